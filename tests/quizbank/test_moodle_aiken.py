"""Aiken read as Moodle reads it: the cases of Moodle's own Aiken tests
(`question/format/aiken/tests/aikenformat_test.php` and its fixtures), each saying what
Moodle produces and checking that quiztutor imports the same questions."""

from __future__ import annotations

import pytest

from bot.quizbank import QuizFileError
from bot.quizbank.formats import import_text

# Moodle's fixture aiken_errors.txt, with its third good question (HTML characters).
ERRORS = """\
A question with too few answers
A) Only answer
ANSWER: A

A) Question not started

ANSWER: Question not started

A good question
A) Correct
B) Incorrect
ANSWER: A

A question started but not finished
A) Correct-ish
B) Incorrect-ish

A second good question
A)Incorrect (No space)
B)Correct (No space)
ANSWER: B

A third good question with HTML chars such as > < &
A) Correct (< > &)
B) Incorrect (< > &)
ANSWER: A
"""


def test_moodles_error_fixture_imports_its_three_good_questions_and_lists_the_rest() -> None:
    # Moodle: three questions; errors on line 3 (too few answers), 5 and 7 (not started),
    # and the question of line 14 not completed before the next one starts.
    result = import_text(ERRORS, "aiken", file="e.txt", locale="en")
    prompts = [q.prompt["en"] for q in result.quiz.questions]
    assert prompts == [
        "A good question",
        "A second good question",
        "A third good question with HTML chars such as > < &",
    ]
    first, second, third = result.quiz.questions
    assert first.choices["en"] == ["Correct", "Incorrect"] and first.answer == 0
    # `A)text` without a space is a choice, as in Moodle.
    assert second.choices["en"] == ["Incorrect (No space)", "Correct (No space)"]
    assert second.answer == 1
    # Moodle escapes these (shown as written): no HTML here, so shown as written too.
    assert third.choices["en"] == ["Correct (< > &)", "Incorrect (< > &)"]
    assert [str(p) for p in result.skipped] == [
        "e.txt:3: skipped: a question needs at least 2 choices before its ANSWER:",
        "e.txt:5: skipped: choice A before any question",
        "e.txt:7: skipped: ANSWER: without a question and its choices before it",
        "e.txt:14: skipped: no ANSWER: line before the next question",
    ]


def test_moodles_questions_fixture_and_every_choice_label() -> None:
    # Moodle's questions.aiken.txt: B is right; text with `<html class="cool"> &` is text.
    text = (
        "The Moodle project was started by:\nA) Petr Skoda\nB) Martin Dougiamas\n"
        "C) Eloy Lafuente\nD) Tim Hunt\nANSWER: B\n\n"
        "Moodle's abilities include handling user input that includes "
        '<html class="cool"> & images:\nA) True\nB) False\nANSWER: A\n\n'
        "Labels?\nA.dot\nB) paren\nC.  spaced\nANSWER: C\n"
    )
    first, second, third = import_text(text, "aiken", file="q.txt", locale="en").quiz.questions
    assert first.answer == 1 and first.choices["en"][1] == "Martin Dougiamas"
    assert second.prompt["en"].endswith('includes <html class="cool"> & images:')
    assert third.choices["en"] == ["dot", "paren", "spaced"] and third.answer == 2


def test_html_in_aiken_becomes_markdown_and_crlf_and_bom_read_the_same() -> None:
    text = "Is <b>bf16</b> wider?<br>Think.\nA) <i>yes</i>\nB) no\nANSWER: A\n"
    lf = import_text(text, "aiken", file="h.txt", locale="en").quiz
    crlf = import_text("\ufeff" + text.replace("\n", "\r\n"), "aiken", file="h.txt", locale="en")
    assert lf == crlf.quiz
    (q,) = lf.questions
    assert q.prompt["en"] == "Is **bf16** wider?\nThink." and q.choices["en"] == ["*yes*", "no"]


def test_a_file_of_bad_aiken_questions_imports_nothing_and_says_why() -> None:
    with pytest.raises(QuizFileError) as caught:
        import_text("Q?\nA) x\nB) y\n", "aiken", file="b.txt", locale="en")
    assert [str(p) for p in caught.value.problems] == [
        "b.txt:1: no multiple-choice question to import",
        "b.txt:1: skipped: the last question has no ANSWER: line",
    ]
