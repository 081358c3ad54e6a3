"""Links in quizzes uploaded by a server's admins show where they lead.

Discord renders `[text](https://…)` in an embed as a clickable `text` that hides its
address, so an uploaded quiz could dress any link as something else. Shipped quizzes are
ours; an upload's masked links become `text (https://…)` (Discord still links the bare
address, now visible), and each reference's title names its domain.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from bot.quizbank.schema import Question, Quiz, Reference

# [text](url), [text](<url>) and [text](url "title"), as Discord's markdown accepts them.
# Linear in the text: the link's text stops at the next `[` (a `[[[[...` upload is scanned
# once, not once per bracket), its address at the next bracket (one pair of parentheses
# allowed, as in Wikipedia's addresses), its title at the next quote or line break; so each
# part of a text is read by one attempt at most. Whatever `](` is left is then broken up
# (`] (`): a form the pattern does not know cannot hide an address either.
_URL = r"[^()\[\]\s<>]+(?:\([^()\[\]\s<>]*\)[^()\[\]\s<>]*)?"
MASKED_LINK = re.compile(r"\[([^\[\]\n]*)\]\(\s*<?(" + _URL + r")>?(?:\s+\"[^\"\n]*\")?\s*\)")


def unmask(text: str) -> str:
    shown = MASKED_LINK.sub(lambda m: f"{m[1]} ({m[2]})" if m[1].strip() else m[2], text)
    return shown.replace("](", "] (")


def _unmask_all(localized: dict[str, Any]) -> dict[str, Any]:
    return {
        locale: [unmask(t) for t in value] if isinstance(value, list) else unmask(value)
        for locale, value in localized.items()
    }


def _with_domain(ref: Reference) -> Reference:
    host = urlsplit(ref.url).hostname or ref.url
    if host.lower() in ref.title.lower():
        return ref
    return ref.model_copy(update={"title": f"{unmask(ref.title)} ({host})"})


def _question(question: Question) -> Question:
    return question.model_copy(
        update={
            "prompt": _unmask_all(question.prompt),
            "choices": _unmask_all(question.choices),
            "explanation": _unmask_all(question.explanation),
            "credit": unmask(question.credit) if question.credit else None,
            "title": unmask(question.title) if question.title else None,
            "references": [_with_domain(r) for r in question.references],
        }
    )


def plain_links(quiz: Quiz) -> Quiz:
    """The quiz with every masked link unmasked and every reference's domain in its title."""
    return quiz.model_copy(
        update={
            "title": _unmask_all(quiz.title),
            "description": _unmask_all(quiz.description),
            "questions": [_question(q) for q in quiz.questions],
        }
    )
