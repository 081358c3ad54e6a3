"""A spreadsheet's CSV: UTF-8, the header `prompt,choice_a,choice_b,...,answer,explanation`
exactly (two to six choice columns), one question per row, `answer` the letter A-F.

A row may leave its last choice cells empty (a question with fewer choices); a gap between
choices is an error. Rows are numbered by the line they start on (a quoted cell may hold
line breaks).
"""

from __future__ import annotations

import csv
import io

from bot.quizbank.formats.common import Draft, Parsed
from bot.quizbank.formats.markup import to_discord
from bot.quizbank.parse import Problem
from bot.quizbank.schema import CHOICE_LETTERS, MAX_CHOICES, MIN_CHOICES


def header(n_choices: int) -> list[str]:
    letters = CHOICE_LETTERS[:n_choices].lower()
    return ["prompt", *(f"choice_{letter}" for letter in letters), "answer", "explanation"]


HEADERS = {n: header(n) for n in range(MIN_CHOICES, MAX_CHOICES + 1)}


def parse_csv(text: str, file: str = "<csv>") -> Parsed:
    parsed = Parsed()
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        first = next(reader)
    except StopIteration:
        first = []
    except csv.Error as exc:
        parsed.errors.append(Problem(file, 1, "", f"not valid CSV: {exc}"))
        return parsed
    names = [cell.strip().lower() for cell in first]
    n_choices = next((n for n, wanted in HEADERS.items() if names == wanted), None)
    if n_choices is None:
        parsed.errors.append(
            Problem(
                file,
                1,
                "",
                f"the header must be exactly {','.join(HEADERS[4])} "
                f"(with {MIN_CHOICES} to {MAX_CHOICES} choice columns)",
            )
        )
        return parsed
    ended = reader.line_num
    try:
        for row in reader:
            line = ended + 1
            ended = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            _row(row, line, n_choices, file, parsed)
    except csv.Error as exc:
        parsed.errors.append(Problem(file, ended + 1, "", f"not valid CSV: {exc}"))
    return parsed


def _row(row: list[str], line: int, n_choices: int, file: str, parsed: Parsed) -> None:
    width = n_choices + 3
    if len(row) != width:
        parsed.errors.append(
            Problem(file, line, "", f"has {len(row)} cells; the header has {width}")
        )
        return
    prompt, cells, answer, explanation = row[0], row[1 : 1 + n_choices], row[-2], row[-1]
    filled = [cell.strip() for cell in cells]
    while filled and not filled[-1]:
        filled.pop()
    if "" in filled:
        parsed.errors.append(Problem(file, line, "", "an empty choice between two choices"))
        return
    letter = answer.strip().upper()
    if len(letter) != 1 or letter not in CHOICE_LETTERS[: len(filled)]:
        allowed = CHOICE_LETTERS[: len(filled)]
        parsed.errors.append(
            Problem(
                file, line, "", f"answer '{answer.strip()}' must be one of the letters {allowed}"
            )
        )
        return
    parsed.drafts.append(
        Draft.of(
            line=line,
            prompt=to_discord(prompt, "moodle"),
            choices=[to_discord(choice, "moodle") for choice in filled],
            answer=CHOICE_LETTERS.index(letter),
            general=to_discord(explanation, "moodle"),
        )
    )
