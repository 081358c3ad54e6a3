"""The terminal tutor: take a quiz without Discord (`quiztutor play`).

Reads answers line by line, so it works from a keyboard and from a pipe.
"""

from __future__ import annotations

import random
import string
import sys
from typing import TextIO

from bot.errors import UserError
from bot.i18n import t
from bot.quizbank import QuizBank, choice_order


def pick_questions(bank: QuizBank, quiz_id: str | None, count: int | None, rng: random.Random):  # type: ignore[no-untyped-def]
    """The questions of a run, in order; shared by every front end."""
    if quiz_id is not None and quiz_id not in bank.quizzes:
        raise UserError("quiz.unknown_topic", topic=quiz_id, available=", ".join(bank.quizzes))
    questions = bank.all_questions(quiz_id)
    if count is None:
        count = len(questions)
    if not 1 <= count <= len(questions):
        raise UserError("quiz.bad_count", count=count, max=len(questions))
    if quiz_id is None or count < len(questions):
        questions = rng.sample(questions, count)
    return questions


def play(
    bank: QuizBank,
    *,
    quiz_id: str | None = None,
    locale: str = "en",
    count: int | None = None,
    seed: int | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    stdin = stdin or sys.stdin
    out = stdout or sys.stdout
    rng = random.Random(seed)
    try:
        questions = pick_questions(bank, quiz_id, count, rng)
    except UserError as exc:
        print(t(exc.key, locale, **exc.params), file=sys.stderr)
        return 2
    title = bank.quiz(quiz_id).title if quiz_id else {"en": "All quizzes", "id": "Semua kuis"}
    print(
        t("tutor.header", locale, title=title.get(locale, title.get("en")), count=len(questions)),
        file=out,
    )
    score = 0
    for number, question in enumerate(questions, start=1):
        texts = question.choice_texts(locale)
        order = choice_order(len(texts), rng)
        letters = string.ascii_uppercase[: len(order)]
        print(f"\n{t('tutor.question', locale, number=number, count=len(questions))}", file=out)
        print(question.text("prompt", locale), file=out)
        for letter, index in zip(letters, order, strict=True):
            print(f"  {letter}) {texts[index]}", file=out)
        chosen = _read_letter(stdin, out, locale, letters)
        if chosen is None:
            print(t("tutor.ended_early", locale), file=out)
            break
        right_position = order.index(question.answer)
        if chosen == right_position:
            score += 1
            print(t("tutor.correct", locale), file=out)
        else:
            print(
                t(
                    "tutor.wrong",
                    locale,
                    letter=letters[right_position],
                    choice=texts[question.answer],
                ),
                file=out,
            )
        print(question.text("explanation", locale), file=out)
        if question.demo:
            print(t("tutor.demo_hint", locale, demo=question.demo), file=out)
    percent = round(100 * score / len(questions))
    print(
        f"\n{t('tutor.score', locale, score=score, count=len(questions), percent=percent)}",
        file=out,
    )
    return 0


def _read_letter(stdin: TextIO, out: TextIO, locale: str, letters: str) -> int | None:
    listed = ", ".join(letters)
    while True:
        print(t("tutor.prompt", locale, letters=listed), end="", file=out, flush=True)
        line = stdin.readline()
        if not line:
            return None
        value = line.strip().upper()
        if len(value) == 1 and value in letters:
            return letters.index(value)
        print(t("tutor.bad_letter", locale, value=line.strip(), letters=listed), file=out)
