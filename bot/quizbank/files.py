"""Quiz files on disk: the shipped folder and `QUIZ_DIRS`, read and parsed
(`bot.quizbank.parse`) with every problem's file and line."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from bot.quizbank.bank import QuizBank
from bot.quizbank.cues import answer_cues, bank_cues
from bot.quizbank.parse import Problem, QuizFileError, format_path, line_of, parse_quiz
from bot.quizbank.schema import Path as FieldPath
from bot.quizbank.schema import Quiz

SHIPPED_DIR = Path(__file__).resolve().parents[2] / "quizzes"


def load_quiz_file(path: Path) -> Quiz:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QuizFileError([Problem(str(path), 1, "", f"cannot read file: {exc}")]) from None
    return parse_quiz(text, str(path))


def quiz_files(paths: Iterable[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(path.glob("*.yaml")) + sorted(path.glob("*.yml")))
        else:
            files.append(path)
    return files


def load_quizzes(paths: Iterable[Path]) -> tuple[list[Quiz], list[Problem]]:
    """Load every file; problems of all files, plus ids repeated across files."""
    quizzes: list[Quiz] = []
    problems: list[Problem] = []
    quiz_origin: dict[str, str] = {}
    question_origin: dict[str, str] = {}
    for file in quiz_files(paths):
        try:
            quiz = load_quiz_file(file)
        except QuizFileError as exc:
            problems.extend(exc.problems)
            continue
        text = file.read_text(encoding="utf-8")
        duplicate = False
        if quiz.id in quiz_origin:
            problems.append(
                Problem(
                    str(file),
                    line_of(text, ("id",)),
                    "id",
                    f"duplicate quiz id '{quiz.id}' (also in {quiz_origin[quiz.id]})",
                )
            )
            duplicate = True
        quiz_origin.setdefault(quiz.id, str(file))
        items = [("questions", i, q.id) for i, q in enumerate(quiz.questions)]
        items += [("generated", i, e.id) for i, e in enumerate(quiz.generated)]
        for section, index, item_id in items:
            if item_id in question_origin and question_origin[item_id] != str(file):
                path: FieldPath = (section, index, "id")
                problems.append(
                    Problem(
                        str(file),
                        line_of(text, path),
                        format_path(path),
                        f"duplicate question id '{item_id}' (also in {question_origin[item_id]})",
                    )
                )
                duplicate = True
            question_origin.setdefault(item_id, str(file))
        if not duplicate:
            quizzes.append(quiz)
    return quizzes, sorted(problems)


def load_bank(paths: Iterable[Path] = (SHIPPED_DIR,)) -> QuizBank:
    """Load and validate; any problem in any file raises QuizFileError."""
    quizzes, problems = load_quizzes(paths)
    if problems:
        raise QuizFileError(problems)
    return QuizBank(quizzes)


def is_shipped(file: Path) -> bool:
    return file.resolve().parent == SHIPPED_DIR


def file_cues(paths: Iterable[Path]) -> tuple[list[str], list[str]]:
    """(errors, warnings) as `FILE: error|warning: ...` lines for the quiz files under `paths`.

    A shipped quiz's cues are errors, and so is the bank rule over the shipped quizzes when
    all of them are among the files; other files' cues are warnings.
    """
    errors: list[str] = []
    warnings: list[str] = []
    shipped: dict[Path, Quiz] = {}
    for file in quiz_files(paths):
        try:
            quiz = load_quiz_file(file)
        except QuizFileError:
            continue  # its problems are reported by load_quizzes
        target = errors if is_shipped(file) else warnings
        level = "error" if target is errors else "warning"
        target.extend(f"{file}: {level}: {cue.message()}" for cue in answer_cues(quiz))
        if is_shipped(file):
            shipped[file.resolve()] = quiz
    whole_set = {file.resolve() for file in quiz_files([SHIPPED_DIR])}
    if shipped and set(shipped) == whole_set:
        errors.extend(
            f"{SHIPPED_DIR}: error: {cue.message()}" for cue in bank_cues(shipped.values())
        )
    return errors, warnings


def untranslated_note(quiz: Quiz) -> str | None:
    """Which questions carry a copied (untranslated) text, per locale; None if none do."""
    per_locale: dict[str, list[str]] = {}
    for question in quiz.questions:
        for locale in question.untranslated:
            per_locale.setdefault(locale, []).append(question.id)
    if not per_locale:
        return None
    parts = [
        f"{len(ids)} question(s) not translated to '{locale}' (a copy of another language): "
        + ", ".join(ids[:5])
        + (", ..." if len(ids) > 5 else "")
        for locale, ids in sorted(per_locale.items())
    ]
    return "; ".join(parts)


def file_translations(paths: Iterable[Path]) -> tuple[list[str], list[str]]:
    """(errors, warnings) for texts marked `untranslated`: an error in a shipped quiz, which
    must be translated, a warning in any other file."""
    errors: list[str] = []
    warnings: list[str] = []
    for file in quiz_files(paths):
        try:
            quiz = load_quiz_file(file)
        except QuizFileError:
            continue
        note = untranslated_note(quiz)
        if note is not None:
            if is_shipped(file):
                errors.append(f"{file}: error: {note}")
            else:
                warnings.append(f"{file}: warning: {note}")
    return errors, warnings
