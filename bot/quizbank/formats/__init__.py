"""Quizzes in the formats teachers keep them in: Moodle GIFT, Aiken and CSV (pure: text
in, a validated quiz and the skipped questions with their lines out), and a quiz back out
as YAML (`quiz_yaml`, what `quiztutor import` writes and `/quizadmin add` stores) or GIFT.

`import_text` raises `QuizFileError` (nothing imported) when anything is malformed or
breaks a quiz rule; questions of a type quizzes do not have are only listed as skipped.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any, Literal

import yaml

from bot.quizbank.formats.aiken import parse_aiken
from bot.quizbank.formats.common import ImportResult, Parsed, build_quiz, slug
from bot.quizbank.formats.csv import parse_csv
from bot.quizbank.formats.gift import parse_gift, to_gift
from bot.quizbank.schema import TITLE_MAX, Quiz

Format = Literal["yaml", "gift", "aiken", "csv"]
IMPORT_FORMATS: tuple[Format, ...] = ("gift", "aiken", "csv")
EXTENSIONS: dict[str, Format] = {
    ".yaml": "yaml",
    ".yml": "yaml",
    ".gift": "gift",
    ".aiken": "aiken",
    ".csv": "csv",
}
_AIKEN_ANSWER = re.compile(r"^\s*ANSWER\s*:\s*[A-Z]\s*$", re.MULTILINE)
_GIFT_ANSWERS = re.compile(r"\{[^{}]*[=~][^{}]*\}", re.DOTALL)

__all__ = ["IMPORT_FORMATS", "Format", "ImportResult", "detect_format", "import_text"]
__all__ += ["quiz_yaml", "to_gift"]


def detect_format(filename: str, text: str) -> Format:
    """By the extension when it says (.yaml .yml .gift .aiken .csv), else by the content."""
    known = EXTENSIONS.get(PurePath(filename).suffix.lower())
    if known is not None:
        return known
    first = next((line for line in text.splitlines() if line.strip()), "")
    if first.strip().lower().startswith("prompt,"):
        return "csv"
    if _AIKEN_ANSWER.search(text):
        return "aiken"
    if _GIFT_ANSWERS.search(text):
        return "gift"
    return "yaml"


def _parse(text: str, fmt: Format, file: str, locale: str) -> Parsed:
    if fmt == "gift":
        return parse_gift(text, file)
    if fmt == "aiken":
        return parse_aiken(text, file)
    if fmt == "csv":
        return parse_csv(text, file)
    raise ValueError(f"not an import format: {fmt}")


def import_text(
    text: str,
    fmt: Format,
    *,
    file: str,
    locale: str,
    quiz_id: str | None = None,
    title: str | None = None,
) -> ImportResult:
    """One file in one language (`locale`) as a quiz; the other locales get the same text,
    flagged `untranslated`. The quiz id and title default to GIFT's `$CATEGORY` or the
    file's name."""
    parsed = _parse(text.removeprefix("\ufeff"), fmt, file, locale)
    named = (parsed.category or "").split("/")[-1].strip() or PurePath(file).stem
    quiz = build_quiz(
        parsed,
        file=PurePath(file).name,
        quiz_id=quiz_id or slug(named),
        title=(title or named)[:TITLE_MAX],
        locale=locale,
    )
    return ImportResult(quiz, sorted(parsed.skipped), fmt)


def quiz_yaml(quiz: Quiz) -> str:
    """The quiz as a quiz file (what `parse_quiz` reads back to the same quiz)."""
    data: dict[str, Any] = quiz.model_dump(mode="json", exclude_defaults=True)
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100)
