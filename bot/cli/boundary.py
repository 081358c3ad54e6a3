"""The error boundary of the command line and the bot's start-up.

Every expected failure becomes a `bot.common.errors.SetupError` (what is wrong, what to do, an
exit code) and is printed as at most three short lines; the traceback only with
LOG_LEVEL=DEBUG. Settings, `QUIZ_DIRS` and output paths are checked here, before any
slow work, so a mistake costs seconds, not a computed result.
"""

from __future__ import annotations

import json
import os
import re
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.common.errors import SetupError
from bot.common.redact import redact_text

if TYPE_CHECKING:
    from bot.common.settings import Settings
    from bot.quizbank import Problem, Quiz, QuizBank

CONFIG_FIX = "set it in the environment or in .env in the working directory (docs/configuration.md)"
# Values of these settings are never echoed back: they may hold a secret.
SECRET_FIELDS = ("discord_token", "database_url", "discord_api_base", "discord_gateway_url")
INTERRUPTED = 130  # the shell's convention for SIGINT


def debug_wanted() -> bool:
    """LOG_LEVEL=DEBUG in the environment or in ./.env: show tracebacks."""
    level = os.environ.get("LOG_LEVEL")
    if level is None and Path(".env").is_file():
        try:
            from dotenv import dotenv_values

            level = dotenv_values(".env").get("LOG_LEVEL")
        except Exception:  # a broken .env is reported by the settings themselves
            level = None
    return (level or "").strip().upper() == "DEBUG"


def print_error(error: SetupError, stream: TextIO | None = None) -> None:
    stream = stream or sys.stderr
    print(redact_text(f"error: {error.message}"), file=stream)
    # The first line of the fix is the thing to do; a second one, if any, an alternative.
    for number, line in enumerate(error.fix.splitlines()[:2]):
        print(redact_text(f"fix: {line}" if number == 0 else line), file=stream)


def guarded(action: Callable[[], int]) -> int:
    """Run one command; turn every expected failure into a short message and an exit code."""
    try:
        return int(action())
    except SetupError as exc:
        _maybe_traceback()
        print_error(exc)
        return exc.exit_code
    except KeyboardInterrupt:
        print("\ninterrupted.", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        # `quiztutor export | head`: the reader left; nothing to report, and nothing more
        # to flush at exit (which would raise again).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except OSError as exc:
        _maybe_traceback()
        where = f": {exc.filename}" if exc.filename else ""
        print_error(
            SetupError(
                f"{exc.strerror or exc}{where}", "check the path and its permissions", exit_code=1
            )
        )
        return 1
    except Exception as exc:  # a bug: still no wall of text unless asked for
        if debug_wanted():
            traceback.print_exc()
        first_line = (str(exc).strip().splitlines() or [""])[0][:200]
        print(redact_text(f"error: unexpected {type(exc).__name__}: {first_line}"), file=sys.stderr)
        print(
            "fix: run again with LOG_LEVEL=DEBUG for the traceback, and report it", file=sys.stderr
        )
        return 1


def _maybe_traceback() -> None:
    if debug_wanted():
        traceback.print_exc()


# -- settings ------------------------------------------------------------------------------


def load_settings(**overrides: object) -> Settings:
    """Settings from the environment and .env, or a SetupError naming each bad variable."""
    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    from bot.common.settings import Settings

    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        parts = []
        for error in exc.errors(include_url=False):
            field = ".".join(str(p) for p in error["loc"])
            message = str(error["msg"]).removeprefix("Value error, ")
            shown = "" if field in SECRET_FIELDS else f"={str(error.get('input'))[:40]!r}"
            parts.append(f"{field.upper()}{shown}: {message}")
        raise SetupError("; ".join(parts), CONFIG_FIX, exit_code=2) from exc
    except SettingsError as exc:
        found = re.search(r'field "(\w+)"', str(exc))
        field = found.group(1) if found else "a setting"
        if field == "quiz_dirs":
            value = _raw_setting("QUIZ_DIRS")
            folders = [p.strip() for p in re.split(r"[,:;]", value) if p.strip()]
            as_json = json.dumps(folders or ["extra-quizzes"])
            raise SetupError(
                f"QUIZ_DIRS is not a JSON list: {value[:60]!r}",
                f"write it as QUIZ_DIRS='{as_json}'",
                exit_code=2,
            ) from exc
        raise SetupError(
            f"{field.upper()} is not valid JSON", f"write a JSON value; {CONFIG_FIX}", exit_code=2
        ) from exc


def _raw_setting(name: str) -> str:
    """A variable as the user wrote it: the environment first, then ./.env."""
    if name in os.environ:
        return os.environ[name]
    try:
        from dotenv import dotenv_values

        return str(dotenv_values(".env").get(name) or "")
    except Exception:
        return ""


# -- quizzes ---------------------------------------------------------------------------------


def quiz_sources(settings: Settings | None, paths: Sequence[str | Path] = ()) -> list[Path]:
    """What the bot loads (shipped + QUIZ_DIRS), or the paths given on the command line."""
    from bot.quizbank.files import SHIPPED_DIR

    if paths:
        return [Path(p) for p in paths]
    extra = list(settings.quiz_dirs) if settings is not None else []
    missing = [p for p in extra if not p.exists()]
    if missing:
        names = ", ".join(str(p) for p in missing)
        relative = any(not p.is_absolute() for p in missing)
        raise SetupError(
            f"QUIZ_DIRS: no such folder: {names}" + (f" (in {Path.cwd()})" if relative else ""),
            "create it, or remove it from QUIZ_DIRS",
            exit_code=2,
        )
    return [SHIPPED_DIR, *extra]


def empty_folders(paths: Sequence[Path]) -> list[Path]:
    from bot.quizbank.files import quiz_files

    return [p for p in paths if p.is_dir() and not quiz_files([p])]


def warn_empty(paths: Sequence[Path], stream: TextIO | None = None) -> None:
    for folder in empty_folders(paths):
        print(
            f"warning: {folder}: no quiz files (*.yaml) in this folder", file=stream or sys.stderr
        )


def problems_summary(problems: Sequence[Problem]) -> str:
    """`N problem(s) in quiz files: a.yaml:3, b.yaml:7` with the first line of each file."""
    first: dict[str, int] = {}
    for problem in sorted(problems):
        first.setdefault(problem.file, problem.line)
    where = ", ".join(f"{file}:{line}" for file, line in first.items())
    return f"{len(problems)} problem(s) in quiz files: {where}"


def load_quizzes_or_fail(paths: Sequence[Path]) -> list[Quiz]:
    from bot.quizbank.files import load_quizzes

    quizzes, problems = load_quizzes(paths)
    if problems:
        raise SetupError(
            problems_summary(problems),
            "`quiztutor validate` lists every problem; fix them or remove the folder from QUIZ_DIRS",
            exit_code=2,
        )
    return quizzes


def load_bank(paths: Sequence[Path]) -> QuizBank:
    from bot.quizbank import QuizBank

    return QuizBank(load_quizzes_or_fail(paths))


# -- output paths ------------------------------------------------------------------------------


def check_output_path(path: str | Path, what: str = "output") -> Path:
    """Fail before any work if `path` cannot be written as a file (`experiments.outpaths`)."""
    from experiments.outpaths import OutputPathError
    from experiments.outpaths import check_output_path as check

    try:
        return check(path, what)
    except OutputPathError as exc:
        raise SetupError(str(exc), exc.fix, exit_code=2) from None


def quiz_files(paths: Sequence[str]) -> list[Path]:
    """Quiz files as the bot sees them: shipped + QUIZ_DIRS, unless paths are given."""
    settings = None if paths else load_settings()
    sources = quiz_sources(settings, paths)
    warn_empty(sources)
    return sources
