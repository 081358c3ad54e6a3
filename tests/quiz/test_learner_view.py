"""What a learner sees agrees everywhere: a generated instance shows the same letters in
`quiztutor play`, `quiztutor generate` and a Discord quiz; an imported question without
feedback is explained by its answer's text in the learner's language; a copied text is
marked as not yet translated; asking for more questions than a quiz holds plays them all
and says so."""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest

from bot.cli.player import play
from bot.quizbank import QuizBank, display_order
from bot.quizbank.files import load_bank
from bot.quizbank.formats import import_text
from bot.quizbank.generated import GeneratedQuestion
from experiments.generate_cli import main as generate_main
from experiments.generators import generate

CHOICE = re.compile(r"^\s+([A-F])\) (.*)$")


def shown_choices(text: str) -> list[tuple[str, str]]:
    return [m.groups() for line in text.splitlines() if (m := CHOICE.match(line))]


def test_a_generated_question_has_the_same_letters_in_play_and_generate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bank = load_bank()
    quiz = next(q for q in bank.quizzes.values() if q.generated)
    out = io.StringIO()
    answers = io.StringIO("A\n" * 40)
    assert play(bank, quiz_id=quiz.id, seed=5, stdin=answers, stdout=out, generate=generate) == 0
    questions = out.getvalue().split("\nQuestion ")[1:]
    played = [q for q in questions if "quiztutor generate" in q]
    assert len(played) == len(quiz.generated)
    for question in played:
        name, seed = re.search(r"quiztutor generate (\S+) --seed (\d+)", question).groups()  # type: ignore[union-attr]
        assert generate_main([name, "--seed", seed]) == 0
        printed = capsys.readouterr().out
        assert shown_choices(question) == shown_choices(printed), (name, seed)


def test_discord_shows_a_generated_instance_in_its_own_order() -> None:
    instance = generate("tensor-bytes", 820096753)
    from bot.quizbank.generated import generated_question

    question = generated_question(instance)
    rng = random.Random(1)
    orders = {tuple(display_order(question, rng)) for _ in range(20)}
    assert orders == {tuple(range(len(instance.choices["en"])))}
    # Written questions are still shuffled per showing.
    written = next(q for q in load_bank().all_questions() if not isinstance(q, GeneratedQuestion))
    assert len({tuple(display_order(written, rng)) for _ in range(20)}) > 1


GIFT = "::q1:: How many bytes does one fp16 value take? {~1 ~4 =2 ~8}\n"


def imported_bank(tmp_path: Path) -> QuizBank:
    quiz = import_text(GIFT, "gift", file="bytes.gift", locale="en", quiz_id="bytes").quiz
    return QuizBank([quiz])


def test_a_question_without_feedback_is_explained_by_the_answer_text_in_each_language(
    tmp_path: Path,
) -> None:
    bank = imported_bank(tmp_path)
    (question,) = bank.all_questions("bytes")
    assert question.explanation == {
        "en": "The right answer is “2”.",
        "id": "Jawaban yang benar adalah “2”.",
    }
    # Played in Indonesian: the letter shown is whatever the shuffle gave; the explanation
    # names no letter, so it cannot contradict it.
    out = io.StringIO()
    play(bank, quiz_id="bytes", locale="id", seed=3, stdin=io.StringIO("A\n"), stdout=out)
    text = out.getvalue()
    assert "Alasannya: Jawaban yang benar adalah “2”." in text
    assert "The right answer" not in text


def test_a_copied_text_is_marked_not_yet_translated_in_play(tmp_path: Path) -> None:
    bank = imported_bank(tmp_path)
    out = io.StringIO()
    play(bank, quiz_id="bytes", locale="id", seed=3, stdin=io.StringIO("A\n"), stdout=out)
    assert "(Belum diterjemahkan: ditampilkan apa adanya.)" in out.getvalue()
    # In the language it was written in, no note.
    out = io.StringIO()
    play(bank, quiz_id="bytes", locale="en", seed=3, stdin=io.StringIO("A\n"), stdout=out)
    assert "translated" not in out.getvalue()


def test_more_questions_than_the_quiz_holds_plays_them_all_with_a_note() -> None:
    bank = load_bank()
    quiz = next(iter(bank.quizzes.values()))
    held = len(quiz.questions)  # written questions only: no generate given
    out = io.StringIO()
    answers = io.StringIO("A\n" * (held + 5))
    assert play(bank, quiz_id=quiz.id, count=held + 5, stdin=answers, stdout=out) == 0
    text = out.getvalue()
    assert f"This quiz holds {held} questions, not {held + 5}: here are all {held}." in text
    assert f"Question {held}/{held}" in text
    # Asking for fewer says nothing of the kind.
    out = io.StringIO()
    play(bank, quiz_id=quiz.id, count=2, stdin=io.StringIO("A\nA\n"), stdout=out)
    assert "This quiz holds" not in out.getvalue()
