"""`quiztutor import FILE` (GIFT, Aiken or CSV to a quiz file) and `quiztutor export
--format gift`: the formats teachers keep their banks in (`bot.quizbank.formats`).

Import prints the YAML (or writes it with `-o`) of the questions that import, and lists on
stderr each question it skipped (`FILE:LINE: skipped: reason`) and each change made on the
way in (`FILE:LINE: note: ...`). Exit status: 0 every question imported, 3 imported with
some skipped, 1 nothing imported (no good question, or with `--strict` any bad one).
"""

from __future__ import annotations

import sys
from pathlib import Path

from bot.cli import boundary
from bot.common.errors import SetupError
from bot.quizbank import QuizBank, QuizFileError
from bot.quizbank.formats import Format, detect_format, import_text, quiz_yaml, to_gift
from bot.quizbank.formats.common import slug
from bot.quizbank.parse import MAX_FILE_BYTES

# The exit status of an import that wrote the good questions and skipped others.
SKIPPED_EXIT = 3


def read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SetupError(
            f"cannot read {path}: {exc.strerror or exc}", "check the path", exit_code=2
        ) from None
    if len(data) > MAX_FILE_BYTES:
        raise SetupError(
            f"{path} is larger than {MAX_FILE_BYTES // 1024} KiB",
            "split it into several files",
            exit_code=1,
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SetupError(
            f"{path} is not UTF-8 text", "save it as UTF-8 (CSV UTF-8 in a spreadsheet)"
        ) from None


def check_quiz_id(quiz_id: str) -> str:
    """`--id` as given, or a usage error that says what an id is and offers one."""
    import re

    from bot.quizbank.schema import ID_PATTERN

    if re.fullmatch(ID_PATTERN, quiz_id):
        return quiz_id
    raise SetupError(
        f"--id {quiz_id[:60]!r} is not a quiz id: lower-case letters, digits and dashes,"
        " at most 40, starting with a letter or digit",
        f"for example --id {slug(quiz_id)}",
        exit_code=2,
    )


def run_import(
    file: str,
    fmt: str | None,
    output: str | None,
    lang: str,
    quiz_id: str | None,
    title: str | None,
    strict: bool = False,
) -> int:
    if quiz_id is not None:
        check_quiz_id(quiz_id)  # before reading: the file is not to blame
    target = boundary.check_output_path(output, "import") if output else None
    path = Path(file)
    text = read_text(path)
    chosen: Format = fmt or detect_format(path.name, text)  # type: ignore[assignment]
    if chosen == "yaml":
        raise SetupError(
            f"{path} looks like a quiz file already (YAML)",
            "check it with `quiztutor validate`, or name the format with --format",
            exit_code=2,
        )
    from bot.cli.progress import working

    try:
        with working(f"importing {path.name} ({chosen})"):
            result = import_text(
                text,
                chosen,
                file=str(path),
                locale=lang,
                quiz_id=quiz_id,
                title=title,
                strict=strict,
            )
    except QuizFileError as exc:
        for problem in exc.problems:
            print(problem)
        print(f"{len(exc.problems)} problem(s) found; nothing was imported.", file=sys.stderr)
        return 1
    for line in sorted([*result.skipped, *result.notes]):
        print(line, file=sys.stderr)
    yaml_text = quiz_yaml(result.quiz)
    where = "stdout"
    if target is not None:
        target.write_text(yaml_text, encoding="utf-8")
        where = str(target)
    else:
        sys.stdout.write(yaml_text)
    others = ", ".join(loc for loc in ("id", "en") if loc != lang)
    print(
        f"imported {len(result.quiz.questions)} question(s) from {chosen} into {where}"
        f" (quiz id {result.quiz.id}; {others} copied from {lang}, marked untranslated)"
        + (f"; {len(result.skipped)} skipped" if result.skipped else ""),
        file=sys.stderr,
    )
    return SKIPPED_EXIT if result.skipped else 0


def gift_text(bank: QuizBank, lang: str) -> str:
    """Every quiz of the bank in GIFT, one `$CATEGORY` (the quiz id) each."""
    return "\n".join(to_gift(quiz, lang) for quiz in bank.quizzes.values())


def export_text(bank: QuizBank, fmt: str, lang: str) -> str:
    """What `quiztutor export` writes: GIFT in one language, or the JSON contract."""
    if fmt == "gift":
        return gift_text(bank, lang)
    import json

    from bot.quizbank.export import export_bank

    return json.dumps(export_bank(bank), ensure_ascii=False, indent=2) + "\n"
