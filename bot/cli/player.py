"""The terminal tutor: take a quiz without Discord (`quiztutor play`).

Reads answers line by line, so it works from a keyboard and from a pipe. Text is wrapped
to the terminal's width (COLUMNS, else the terminal, else 80), `code` is shown without
its backticks (highlighted on a colour terminal), and the run ends with the time taken
and the questions to review. Ctrl-C or the end of input stop the run with the score of
the questions actually answered.

A quiz's generated questions (templates) are played too when `play` is given a
`generate` function: the command line passes `experiments.generators.generate`, which
runs torch in this process (as `quiztutor demo` does), with each instance's seed drawn
from the run's seed, so `--seed` replays the same instances.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import string
import sys
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from bot.common.errors import SetupError, UserError
from bot.common.i18n import t
from bot.quizbank import Question, QuizBank, display_order
from bot.quizbank.generated import GeneratedQuestion, generated_question
from experiments.generators.instance import Instance

#: Makes instance `seed` of a template (`experiments.generators.generate`; imports torch).
Generate = Callable[[str, int], Instance]
#: Instance seeds are drawn below this (short enough for `quiztutor generate --seed`).
SEED_LIMIT = 10**9

MAX_WIDTH = 100
_CODE = re.compile(r"`([^`\n]+)`")
_OPEN, _CLOSE = "\x02", "\x03"  # code-span markers while wrapping


def pick_questions(
    bank: QuizBank,
    quiz_id: str | None,
    count: int | None,
    rng: random.Random,
    generate: Generate | None = None,
) -> list[Question]:
    """The terminal's run: the bank's one selection rule; a whole quiz keeps its order.
    With `generate`, the quizzes' templates are mixed in, each a fresh instance."""
    items = bank.pick_items(
        None, quiz_id, count, rng, generated=(lambda _: True) if generate else None, shuffle=False
    )
    questions: list[Question] = []
    for item in items:
        if isinstance(item, Question):
            questions.append(item)
        elif generate is not None:
            instance = generate(item.template, rng.randrange(SEED_LIMIT))
            questions.append(generated_question(instance, item))
    return questions


class Printer:
    """Wraps and renders text for one output stream."""

    def __init__(self, out: TextIO, width: int | None = None) -> None:
        self.out = out
        columns = width or shutil.get_terminal_size((80, 24)).columns
        self.width = max(30, min(columns, MAX_WIDTH))
        isatty = getattr(out, "isatty", None)
        self.colour = bool(isatty and isatty()) and "NO_COLOR" not in os.environ

    def render(self, text: str, indent: str = "", first: str | None = None) -> str:
        lines = []
        in_block = False
        for paragraph in text.strip().splitlines() or [""]:
            if paragraph.lstrip().startswith("```"):  # a fenced code block: kept as written
                in_block = not in_block
                continue
            if in_block:
                lines += self._code_line(paragraph, first if first is not None else indent)
                first = None
                continue
            # Spaces inside a code span become no-break spaces, so a span is never split.
            paragraph = _CODE.sub(
                lambda m: _OPEN + m.group(1).replace(" ", "\u00a0") + _CLOSE, paragraph
            )
            lines.extend(
                textwrap.wrap(
                    paragraph,
                    width=self.width,
                    initial_indent=first if first is not None else indent,
                    subsequent_indent=indent,
                    break_long_words=False,
                    break_on_hyphens=False,
                )
                or [""]
            )
            first = None
        joined = "\n".join(lines).replace("\u00a0", " ")
        if self.colour:
            return joined.replace(_OPEN, "\x1b[36m").replace(_CLOSE, "\x1b[0m")
        return joined.replace(_OPEN, "").replace(_CLOSE, "")

    def _code_line(self, code: str, indent: str) -> list[str]:
        """A line of a code block, indented as written; a line too wide goes on below,
        indented further (never re-flowed with the lines around it)."""
        lead = indent + "    "
        own = code[: len(code) - len(code.lstrip())]
        pieces = textwrap.wrap(
            code.strip(),
            width=max(10, self.width - len(lead)),
            initial_indent=own,
            subsequent_indent=own + "    ",
            break_on_hyphens=False,
        )
        return [lead + _OPEN + piece + _CLOSE for piece in pieces or [""]]

    def say(self, text: str = "", indent: str = "", first: str | None = None) -> None:
        print(self.render(text, indent, first) if text else "", file=self.out)


@dataclass
class Run:
    """What happened so far: kept up to date so Ctrl-C can still report it."""

    count: int
    started: float = field(default_factory=time.monotonic)
    answered: int = 0
    score: int = 0
    missed: list[tuple[int, Question, str]] = field(default_factory=list)

    @property
    def percent(self) -> int:
        return round(100 * self.score / self.answered) if self.answered else 0


def format_duration(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    return f"{minutes}:{seconds:02d}"


def play(
    bank: QuizBank,
    *,
    quiz_id: str | None = None,
    locale: str = "en",
    count: int | None = None,
    seed: int | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    generate: Generate | None = None,
) -> int:
    stdin = stdin or sys.stdin
    out = stdout or sys.stdout
    rng = random.Random(seed)
    try:
        questions = pick_questions(bank, quiz_id, count, rng, generate)
    except UserError as exc:
        raise SetupError(t(exc.key, locale, **exc.params), "see `quiztutor help play`") from None
    printer = Printer(out)
    title = bank.quiz(quiz_id).title if quiz_id else {"en": "All quizzes", "id": "Semua kuis"}
    printer.say(
        t("tutor.header", locale, title=title.get(locale, title.get("en")), count=len(questions))
    )
    if count is not None and len(questions) < count:  # asked for more than there are
        printer.say(t("quiz.fewer", locale, count=len(questions), asked=count))
    run = Run(count=len(questions))
    try:
        finished = _ask_all(questions, run, printer, stdin, locale, rng)
    except KeyboardInterrupt:
        print("", file=out)
        printer.say(
            t(
                "tutor.stopped",
                locale,
                score=run.score,
                answered=run.answered,
                percent=run.percent,
                count=run.count,
            )
        )
        return 130
    printer.say()
    printer.say(t("tutor.score", locale, score=run.score, count=run.answered, percent=run.percent))
    if not finished:
        printer.say(t("tutor.answered_of", locale, answered=run.answered, count=run.count))
    printer.say(t("tutor.time", locale, time=format_duration(time.monotonic() - run.started)))
    _recap(run, printer, locale)
    return 0


def _ask_all(
    questions: list[Question],
    run: Run,
    printer: Printer,
    stdin: TextIO,
    locale: str,
    rng: random.Random,
) -> bool:
    """Ask every question; False if the input ended first."""
    for number, question in enumerate(questions, start=1):
        texts = question.choice_texts(locale)
        order = display_order(question, rng)
        letters = string.ascii_uppercase[: len(order)]
        printer.say()
        printer.say(t("tutor.question", locale, number=number, count=len(questions)))
        printer.say(question.text("prompt", locale))
        shown = locale if locale in question.prompt else next(iter(question.prompt))
        if shown in question.untranslated:  # a copy of another language's text
            printer.say(f"({t('quiz.untranslated', locale)})")
        for letter, index in zip(letters, order, strict=True):
            printer.say(texts[index], indent="     ", first=f"  {letter}) ")
        chosen = _read_letter(stdin, printer.out, locale, letters)
        if chosen is None:
            printer.say(t("tutor.ended_early", locale))
            return False
        run.answered += 1
        right_position = order.index(question.answer)
        right = f"{letters[right_position]}) {texts[question.answer]}"
        if chosen == right_position:
            run.score += 1
            printer.say("✓ " + t("tutor.correct", locale))
        else:
            run.missed.append((number, question, right))
            printer.say(
                "✗ "
                + t(
                    "tutor.wrong",
                    locale,
                    letter=letters[right_position],
                    choice=texts[question.answer],
                )
            )
        printer.say()
        printer.say(
            t("tutor.why", locale, text=question.text("explanation", locale)),
            indent="  ",
            first="  ",
        )
        if question.demo:
            printer.say(t("tutor.demo_hint", locale, demo=question.demo), indent="  ")
        if isinstance(question, GeneratedQuestion):
            again = t("generate.again", locale, template=question.template, seed=question.seed)
            printer.say(again, indent="  ")
    return True


def _recap(run: Run, printer: Printer, locale: str) -> None:
    if not run.answered:
        return
    if not run.missed:
        printer.say(t("tutor.all_right", locale))
        return
    printer.say(t("tutor.review", locale, count=len(run.missed)))
    for number, question, right in run.missed:
        prompt = question.text("prompt", locale)
        printer.say(
            t("tutor.review_item", locale, number=number, prompt=prompt, choice=right),
            indent="    ",
            first="  ",
        )


def _read_letter(stdin: TextIO, out: TextIO, locale: str, letters: str) -> int | None:
    listed = ", ".join(letters)
    while True:
        print(t("tutor.prompt", locale, letters=listed), end="", file=out, flush=True)
        line = stdin.readline()
        if not line:
            print(file=out)
            return None
        if not getattr(stdin, "isatty", lambda: False)():
            print(line.strip(), file=out)  # a piped answer is not echoed by a terminal
        value = line.strip().upper()
        if len(value) == 1 and value in letters:
            return letters.index(value)
        print(t("tutor.bad_letter", locale, value=line.strip(), letters=listed), file=out)
