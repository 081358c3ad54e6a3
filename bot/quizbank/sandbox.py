"""An uploaded quiz read in a child process with a hard time limit.

Every parser here is linear in its input, but an upload is untrusted: should any step
still take long, it must not hold the bot's process (Python's regular expressions keep the
GIL, so a thread would not do). `parse_upload` reads the file in a fresh ("spawn") child
and kills it when the limit passes; the upload is then refused like any bad file.
`run_limited` is the same for any picklable function. Both block their caller: call them
from a thread (`asyncio.to_thread`), never on the event loop.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from bot.quizbank.formats import Format, detect_format, import_text, quiz_yaml
from bot.quizbank.parse import Problem, QuizFileError, parse_quiz
from bot.quizbank.schema import Quiz

PARSE_SECONDS = 15.0  # a 256 KiB file takes well under 1 s; the child's start ~0.5 s
T = TypeVar("T")


class ParseTimeout(Exception):
    """The child did not finish within the limit (it was killed)."""


@dataclass(frozen=True)
class Upload:
    quiz: Quiz
    source: str  # the quiz file (YAML) to store
    format: Format
    skipped: list[Problem]  # questions not imported, each with its reason
    notes: list[Problem]  # imported, with a change


def read_upload(text: str, filename: str, locale: str) -> Upload:
    """A quiz file (YAML) as it is, or an import (GIFT, Aiken, CSV) as the YAML it becomes."""
    fmt = detect_format(filename, text)
    if fmt == "yaml":
        return Upload(parse_quiz(text, filename), text, fmt, [], [])
    result = import_text(text, fmt, file=filename, locale=locale)
    return Upload(result.quiz, quiz_yaml(result.quiz), fmt, result.skipped, result.notes)


def _child(conn: Connection, func: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        outcome: tuple[str, Any] = ("ok", func(*args))
    except QuizFileError as exc:  # sent as its problems: the exception does not pickle
        outcome = ("problems", exc.problems)
    except Exception as exc:  # reported to the parent, never lost
        outcome = ("error", f"{type(exc).__name__}: {exc}")
    conn.send(outcome)
    conn.close()


def run_limited(func: Callable[..., T], *args: Any, timeout: float = PARSE_SECONDS) -> T:
    """`func(*args)` in a child process; ParseTimeout (the child killed) after `timeout` s.
    A QuizFileError in the child is raised here with its problems."""
    context = multiprocessing.get_context("spawn")
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(writer, func, args), daemon=True)
    process.start()
    writer.close()
    try:
        if not reader.poll(timeout):
            raise ParseTimeout(f"no result within {timeout:g} s")
        kind, value = reader.recv()
    except EOFError:
        raise RuntimeError("the parsing process ended without a result") from None
    finally:
        reader.close()
        if process.is_alive():
            process.kill()
        process.join()
    if kind == "problems":
        raise QuizFileError(value)
    if kind == "error":
        raise RuntimeError(value)
    return value


def parse_upload(
    text: str, filename: str, locale: str, *, timeout: float = PARSE_SECONDS
) -> Upload:
    """`read_upload` in a child process; a file that takes longer than `timeout` seconds is
    refused with a QuizFileError saying so."""
    try:
        return run_limited(read_upload, text, filename, locale, timeout=timeout)
    except ParseTimeout:
        raise QuizFileError(
            [Problem(filename, 1, "", f"took longer than {timeout:g} s to read; split it")]
        ) from None
