"""Quizzes in the formats teachers keep them in: Moodle GIFT, Aiken and CSV (pure: text
in, a validated quiz and the skipped questions with their lines out), and a quiz back out
as YAML (`quiz_yaml`, what `quiztutor import` writes and `/quizadmin add` stores) or GIFT.

`import_text` imports the good questions and lists every other one once, with its line
and the reason (`ImportResult.skipped`), and what changed on the way in (`notes`); it
raises `QuizFileError` (nothing imported) when no question is good, or, with `strict`,
when any question is malformed or breaks a quiz rule. Every step is linear in the text:
lines are split and scanned, no pattern runs over the whole upload.
"""

from __future__ import annotations

import re
from dataclasses import replace
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

__all__ = ["IMPORT_FORMATS", "Format", "ImportResult", "detect_format", "import_text"]
__all__ += ["quiz_yaml", "to_gift"]


def detect_format(filename: str, text: str) -> Format:
    """By the extension when it says (.yaml .yml .gift .aiken .csv), else by the content."""
    known = EXTENSIONS.get(PurePath(filename).suffix.lower())
    if known is not None:
        return known
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    if first.strip().lower().startswith("prompt,"):
        return "csv"
    if any(_aiken_answer(line) for line in lines):
        return "aiken"
    if _gift_answers(text):
        return "gift"
    return "yaml"


def _aiken_answer(line: str) -> bool:
    """`ANSWER: B` alone on its line."""
    head, colon, rest = line.partition(":")
    letter = rest.strip()
    return bool(colon) and head.strip() == "ANSWER" and len(letter) == 1 and letter.isupper()


def _gift_answers(text: str) -> bool:
    """A `{...}` holding a `=` or `~` (each piece after a `{` is looked at once)."""
    for piece in text.split("{")[1:]:
        inside, closed, _ = piece.partition("}")
        if closed and ("=" in inside or "~" in inside):
            return True
    return False


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
    strict: bool = False,
) -> ImportResult:
    """One file in one language (`locale`) as a quiz; the other locales get the same text,
    flagged `untranslated`. The quiz id and title default to GIFT's `$CATEGORY` or the
    file's name. Line endings may be LF, CRLF or CR; a byte order mark is ignored."""
    parsed = _parse(text.removeprefix("\ufeff"), fmt, file, locale)
    named = (parsed.category or "").split("/")[-1].strip() or PurePath(file).stem
    result = build_quiz(
        parsed,
        file=PurePath(file).name,
        quiz_id=quiz_id or slug(named),
        title=(title or named)[:TITLE_MAX],
        locale=locale,
        strict=strict,
    )
    return replace(result, format=fmt)


# What a YAML 1.2 reader takes for a number (PyYAML writes YAML 1.1, where `3.4e38` is a
# string and needs no quotes): such text is quoted, so every reader keeps it text.
_YAML12_NUMBER = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|0o[0-7]+|0x[0-9a-fA-F]+"
)


class _QuizDumper(yaml.SafeDumper):
    def represent_str(self, data: str) -> yaml.ScalarNode:
        if _YAML12_NUMBER.fullmatch(data):
            return self.represent_scalar("tag:yaml.org,2002:str", data, style="'")
        return super().represent_str(data)


_QuizDumper.add_representer(str, _QuizDumper.represent_str)


def quiz_yaml(quiz: Quiz) -> str:
    """The quiz as a quiz file (what `parse_quiz` reads back to the same quiz); text that
    a YAML 1.2 reader would take for a number is quoted."""
    data: dict[str, Any] = quiz.model_dump(mode="json", exclude_defaults=True)
    return yaml.dump(data, Dumper=_QuizDumper, allow_unicode=True, sort_keys=False, width=100)
