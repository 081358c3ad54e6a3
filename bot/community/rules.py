"""The community's questions, as rules: what a suggestion (the `/quiz suggest` form) must be,
how approved suggestions make a server's "community" quiz, and what a report holds.

A suggestion is checked twice, by the same rules as a quiz file: first field by field, so a
member reads each problem in their language, then as a one-question quiz through the one
validation path (`bot.quizbank.parse.validate_data`), which stays the authority. Text
members type is shown later by the bot (and the host's terminal): it is stored inert
(`bot.common.text.member_text`: no control, bidi or zero-width character, no mention).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from bot.common.errors import UserError
from bot.common.i18n import SUPPORTED_LOCALES, t
from bot.common.text import member_text
from bot.quizbank.parse import QuizFileError, validate_data
from bot.quizbank.schema import (
    CHOICE_LETTERS,
    CHOICE_MAX,
    EXPLANATION_MAX,
    MAX_CHOICES,
    MIN_CHOICES,
    PROMPT_MAX,
    Quiz,
)

# Why a member reports a question (the select's values, in this order).
REASONS = ("wrong_answer", "two_right", "unclear", "typo", "other")
MAX_PENDING_PER_MEMBER = 5
MAX_PENDING_PER_GUILD = 200
# A quiz holds at most 200 questions (the schema): so does a server's community quiz.
MAX_COMMUNITY_QUESTIONS = 200
NOTE_MAX = 200
REASON_MAX = 300
LANGUAGE_MAX = 20
# What the form's text inputs accept (Discord enforces these; the bot checks them again).
CHOICES_TEXT_MAX = MAX_CHOICES * (CHOICE_MAX + 4)

_LANGUAGES = {
    "id": "id",
    "ind": "id",
    "indonesia": "id",
    "indonesian": "id",
    "bahasa indonesia": "id",
    "en": "en",
    "eng": "en",
    "english": "en",
    "inggris": "en",
    "bahasa inggris": "en",
}
_LETTER_PREFIX = re.compile(r"^([A-Fa-f])\s*[.)]\s+(.*)$")


@dataclass(frozen=True)
class SuggestionForm:
    """The form's five fields as typed."""

    prompt: str
    choices: str
    answer: str
    explanation: str
    language: str


@dataclass(frozen=True)
class Suggestion:
    """A checked suggestion: one language, its texts safe to show."""

    prompt: str
    choices: tuple[str, ...]
    answer: int
    explanation: str
    locale: str

    def form(self) -> SuggestionForm:
        """The form prefilled with it (an admin's Edit)."""
        return SuggestionForm(
            prompt=self.prompt,
            choices="\n".join(self.choices),
            answer=CHOICE_LETTERS[self.answer],
            explanation=self.explanation,
            language=self.locale,
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "prompt": self.prompt,
            "choices": list(self.choices),
            "answer": self.answer,
            "explanation": self.explanation,
            "locale": self.locale,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Suggestion:
        return cls(
            prompt=str(data["prompt"]),
            choices=tuple(str(c) for c in data["choices"]),
            answer=int(data["answer"]),
            explanation=str(data["explanation"]),
            locale=str(data["locale"]),
        )


def language_of(text: str) -> str | None:
    return _LANGUAGES.get(" ".join(text.lower().split()).strip(".")) if text else None


def _choice_lines(text: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    matches = [_LETTER_PREFIX.match(line) for line in lines]
    letters = "".join(m[1].upper() for m in matches if m)
    # "A) ..." on every line, in order: the letters are the member's, not the choice's text.
    if lines and len(letters) == len(lines) and letters == CHOICE_LETTERS[: len(lines)]:
        return [m[2].strip() for m in matches if m]
    return lines


def check_suggestion(form: SuggestionForm, locale: str) -> Suggestion:
    """The suggestion, or a UserError listing every problem in the member's `locale`."""
    problems: list[str] = []

    def need(ok: bool, key: str, **params: Any) -> None:
        if not ok:
            problems.append("• " + t(key, locale, **params))

    prompt = member_text(form.prompt).strip()
    explanation = member_text(form.explanation).strip()
    choices = _choice_lines(member_text(form.choices))
    written_in = language_of(form.language)
    need(bool(prompt), "suggest.p_prompt_empty")
    need(len(prompt) <= PROMPT_MAX, "suggest.p_prompt_long", limit=PROMPT_MAX, length=len(prompt))
    need(
        MIN_CHOICES <= len(choices) <= MAX_CHOICES,
        "suggest.p_choice_count",
        count=len(choices),
        low=MIN_CHOICES,
        high=MAX_CHOICES,
    )
    for number, choice in enumerate(choices[:MAX_CHOICES], start=1):
        need(len(choice) <= CHOICE_MAX, "suggest.p_choice_long", number=number, limit=CHOICE_MAX)
    keys = [" ".join(choice.lower().split()) for choice in choices]
    need(len(set(keys)) == len(keys), "suggest.p_choice_duplicate")
    letter = form.answer.strip().strip(".)").upper()
    letters = CHOICE_LETTERS[: min(len(choices), MAX_CHOICES)]
    answer = letters.index(letter) if len(letter) == 1 and letter in letters else -1
    need(answer >= 0, "suggest.p_answer", letters=", ".join(letters) or "A, B")
    need(bool(explanation), "suggest.p_explanation_empty")
    need(
        len(explanation) <= EXPLANATION_MAX,
        "suggest.p_explanation_long",
        limit=EXPLANATION_MAX,
        length=len(explanation),
    )
    need(written_in is not None, "suggest.p_language")
    if problems:
        raise UserError("suggest.invalid", problems="\n".join(problems))
    assert written_in is not None
    suggestion = Suggestion(prompt, tuple(choices), answer, explanation, written_in)
    # The quiz rules themselves (one home): a problem the checks above missed still stops it.
    try:
        community_quiz(0, [question_data(suggestion, "suggestion-check", author_id=0)])
    except QuizFileError as exc:
        raise UserError(
            "suggest.invalid", problems="\n".join(f"• {p.path}: {p.message}" for p in exc.problems)
        ) from None
    return suggestion


def question_data(
    suggestion: Suggestion,
    question_id: str,
    author_id: int,
    locales: tuple[str, ...] = SUPPORTED_LOCALES,
) -> dict[str, Any]:
    """A quiz question of an approved suggestion: its language copied into the others
    (flagged `untranslated`), credited to its author (a mention: shown, never pinged)."""
    others = [loc for loc in locales if loc != suggestion.locale]
    ordered = [suggestion.locale, *others]
    return {
        "id": question_id,
        "prompt": {loc: suggestion.prompt for loc in ordered},
        "choices": {loc: list(suggestion.choices) for loc in ordered},
        "answer": suggestion.answer,
        "explanation": {loc: suggestion.explanation for loc in ordered},
        "untranslated": others,
        "credit": f"<@{author_id}>",
    }


def community_quiz_id(guild_id: int) -> str:
    """Quiz ids are global (sessions and posts name question ids): one per server."""
    return f"community-{guild_id}"


def community_question_id(suggestion_id: int) -> str:
    return f"community-q{suggestion_id}"


def community_quiz(guild_id: int, questions: list[dict[str, Any]]) -> Quiz:
    """A server's "community" quiz of its approved suggestions, validated like a file."""
    data = {
        "id": community_quiz_id(guild_id),
        "title": {loc: t("community.quiz_title", loc) for loc in SUPPORTED_LOCALES},
        "description": {loc: t("community.quiz_description", loc) for loc in SUPPORTED_LOCALES},
        "questions": questions[:MAX_COMMUNITY_QUESTIONS],
    }
    return validate_data(data, f"community-{guild_id}")


def prompt_key(prompt: str) -> str:
    """The same prompt, whatever its case, spacing or final punctuation (duplicates)."""
    norm = " ".join(re.sub(r"[^\w\s]", " ", prompt.lower()).split())
    return hashlib.sha256(norm.encode()).hexdigest()[:32]


def check_note(text: str | None, limit: int = NOTE_MAX) -> str | None:
    """A member's free text (a report's note, a rejection's reason): None when empty."""
    cleaned = " ".join(member_text(text or "").split())
    if not cleaned:
        return None
    if len(cleaned) > limit:
        raise UserError("report.note_long", limit=limit)
    return cleaned


def check_reason(reason: str) -> str:
    if reason not in REASONS:
        raise UserError("report.bad_reason")
    return reason
