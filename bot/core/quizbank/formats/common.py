"""What every import format shares: a parsed question (`Draft`), the parse result with its
problems, and the one way a parse becomes a quiz: a plain dict validated by the same schema
as a YAML file (`bot.core.quizbank.parse.validate_data`), each problem at its question's line.

A question imported without feedback gets its right answer as the explanation ("The right
answer is B: ..."): quizzes always explain. Formats hold one language. The import fills every other locale of the quiz with the same
text and lists those locales in each question's `untranslated` field, so the copy is never
mistaken for a translation (`quiztutor validate` warns about it, members see a note).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bot.core.i18n import SUPPORTED_LOCALES, t
from bot.core.quizbank.parse import Problem, QuizFileError, validate_data
from bot.core.quizbank.schema import ID_PATTERN, Quiz
from bot.core.quizbank.schema import Path as FieldPath
from bot.core.text import clip

QUESTION_ID = re.compile(ID_PATTERN)
MAX_ID = 40


@dataclass
class Draft:
    """One multiple-choice question as a format wrote it, in one language."""

    line: int
    prompt: str
    choices: list[str]
    answer: int
    explanation: str
    name: str | None = None  # GIFT's ::title::, used as the question id when it is one


@dataclass
class Parsed:
    """A format's reading of a file: the questions, what it skipped and what is wrong.

    `skipped`: questions of a type quizzes do not have (listed, not imported);
    `errors`: anything malformed, which stops the whole import.
    """

    drafts: list[Draft] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    category: str | None = None


@dataclass(frozen=True)
class ImportResult:
    quiz: Quiz
    skipped: list[Problem]
    format: str


def slug(text: str, fallback: str = "imported") -> str:
    """A quiz id made of `text`: lower case letters, digits and dashes, at most 40."""
    cut = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:MAX_ID].strip("-")
    return cut or fallback


def _question_id(draft: Draft, quiz_id: str, number: int) -> str:
    if draft.name is not None and QUESTION_ID.fullmatch(draft.name):
        return draft.name
    suffix = f"-{number:02d}"
    return quiz_id[: MAX_ID - len(suffix)].rstrip("-") + suffix


def _named_answer(draft: Draft, locale: str) -> str:
    """The explanation of a question imported without feedback, in `locale`: its right
    answer by its text (a letter would not match the shuffled order a learner sees)."""
    if not 0 <= draft.answer < len(draft.choices):
        return "-"
    return t("import.default_explanation", locale, choice=draft.choices[draft.answer])


def build_quiz(
    parsed: Parsed,
    *,
    file: str,
    quiz_id: str,
    title: str,
    locale: str,
    locales: tuple[str, ...] = SUPPORTED_LOCALES,
) -> Quiz:
    """The quiz of a parse; QuizFileError (nothing imported) on any error or no question."""
    if parsed.errors:
        raise QuizFileError(sorted(parsed.errors))
    if not parsed.drafts:
        raise QuizFileError(
            sorted([Problem(file, 1, "", "no multiple-choice question to import"), *parsed.skipped])
        )
    others = [other for other in locales if other != locale]
    ordered = [locale, *others]

    def every(value: Any) -> dict[str, Any]:
        return {loc: value for loc in ordered}

    questions = [
        {
            "id": _question_id(draft, quiz_id, number),
            "prompt": every(draft.prompt),
            "choices": every(list(draft.choices)),
            "answer": draft.answer,
            "explanation": every(draft.explanation)
            if draft.explanation
            else {loc: _named_answer(draft, loc) for loc in ordered},
            **({"untranslated": others} if others else {}),
        }
        for number, draft in enumerate(parsed.drafts, start=1)
    ]
    data = {
        "id": quiz_id,
        "title": every(title),
        "description": {loc: t("import.description", loc, file=clip(file, 200)) for loc in ordered},
        "questions": questions,
    }

    def line(path: FieldPath) -> int:
        if len(path) >= 2 and path[0] == "questions" and isinstance(path[1], int):
            if 0 <= path[1] < len(parsed.drafts):
                return parsed.drafts[path[1]].line
        return 1

    return validate_data(data, file, line)
