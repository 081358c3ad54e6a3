"""Imports (Moodle GIFT, Aiken, CSV) and the GIFT export: pure text in, quiz out."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.quizbank import QuizBank, QuizFileError, parse_quiz
from bot.quizbank.files import untranslated_note
from bot.quizbank.formats import detect_format, import_text, quiz_yaml, to_gift
from bot.quizbank.formats.gift import escape, parse_gift
from bot.quizbank.parse import validate_data

GIFT = """\
// A comment line, and a category Moodle would file the questions under.
$CATEGORY: $course$/top/Numerics Basics

::fp16-max:: What is the largest finite fp16 value? {
  =65504 # Right: 2^15 × (2 − 2^-10).
  ~65536 # That is 2^16, one step past the largest.
  ~3.4e38
  ####fp16 has 5 exponent bits.
}

::TF:: fp16 has 10 mantissa bits. {T}

Bf16 keeps {~fewer =the same ~more} exponent
  bits as fp32.

::escapes::[markdown]Which is written \\{a\\}, with a \\= and a \\# and 50%\\: {
  =a \\~ b\\nnext line
  ~a \\\\ c
}

::num:: 2 + 2 {#4}

::short:: The dtype of master weights {=fp32 =float32}

::match:: Match {=fp16 -> 5 exponent bits =bf16 -> 8 exponent bits}

::essay:: Explain loss scaling. {}

::weights:: Which are right? {~%50%one ~%50%two ~%-100%three}

// the arrow is plain text in a multiple-choice answer
::arrow:: Which cast happens? {=fp16 -> fp32 ~none}

A description, with no answers at all.
"""


def gift(text: str = GIFT, **kw: str) -> tuple[list[str], list[str]]:
    result = import_text(text, "gift", file="basics.gift", locale=kw.get("locale", "en"))
    return [q.id for q in result.quiz.questions], [str(p) for p in result.skipped]


def test_gift_multiple_choice_with_feedback_escapes_comments_and_the_missing_word_form() -> None:
    result = import_text(GIFT, "gift", file="basics.gift", locale="en")
    quiz = result.quiz
    assert quiz.id == "numerics-basics" and quiz.title == {
        "en": "Numerics Basics",
        "id": "Numerics Basics",
    }
    first, gap, escapes, arrow = quiz.questions
    assert arrow.choices["en"] == ["fp16 -> fp32", "none"]
    assert first.id == "fp16-max"  # the GIFT title, an id already
    assert first.choices["en"] == ["65504", "65536", "3.4e38"] and first.answer == 0
    # The general feedback first, then each answer's feedback on its choice's line.
    assert first.explanation["en"] == (
        "fp16 has 5 exponent bits.\n\n- 65504: Right: 2^15 × (2 − 2^-10).\n"
        "- 65536: That is 2^16, one step past the largest."
    )
    assert gap.id == "numerics-basics-02"  # no title: the quiz id and its number
    assert gap.prompt["en"] == "Bf16 keeps _____ exponent\n  bits as fp32."  # as Moodle keeps it
    assert gap.choices["en"] == ["fewer", "the same", "more"] and gap.answer == 1
    # No feedback at all: the answer by its text (letters are shuffled), in each language.
    assert gap.explanation["en"] == "The right answer is “the same”."
    assert escapes.prompt["en"] == "Which is written {a}, with a = and a # and 50%:"
    assert escapes.choices["en"] == ["a ~ b\nnext line", "a \\ c"]
    # One language: the other holds the same text, flagged as a copy.
    assert first.prompt["id"] == first.prompt["en"] and first.untranslated == ["id"]


def test_gift_lists_every_unsupported_question_with_its_line_and_skips_it() -> None:
    ids, skipped = gift()
    assert ids == ["fp16-max", "numerics-basics-02", "escapes", "arrow"]
    assert skipped == [
        "basics.gift:11: skipped: a true/false question",
        "basics.gift:21: skipped: a numerical question",
        "basics.gift:23: skipped: a short-answer question",
        "basics.gift:25: skipped: a matching question",
        "basics.gift:27: skipped: an essay question",
        "basics.gift:29: skipped: a question with several right answers",
        "basics.gift:34: skipped: a description (no answers) is not a question",
    ]


def test_gift_questions_separated_by_blank_lines_are_skipped_one_by_one() -> None:
    text = "\n\n".join(
        [
            "::ok:: Which? {=a ~b}",
            "::tf:: True? {TRUE}",
            "::num:: 2+2 {#4:0}",
            "::short:: Name it {=fp32 =float32}",
            "::match:: Match {=a -> b =c -> d}",
            "::essay:: Explain. {}",
            "::weights:: Which? {~%50%one ~%50%two}",
            "Just a description.",
        ]
    )
    ids, skipped = gift(text)
    assert ids == ["ok"]
    assert skipped == [
        "basics.gift:3: skipped: a true/false question",
        "basics.gift:5: skipped: a numerical question",
        "basics.gift:7: skipped: a short-answer question",
        "basics.gift:9: skipped: a matching question",
        "basics.gift:11: skipped: an essay question",
        "basics.gift:13: skipped: a question with several right answers",
        "basics.gift:15: skipped: a description (no answers) is not a question",
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "::a:: Which? {=x ~y}\n\n::b:: Which? {=x ~y",
            "3: a { or } is missing around the answers",
        ),
        ("::a:: Which? {=x ~y}\n\n::b:: Which? {~x ~y}", "3: no right answer: mark it with ="),
        ("::a:: Which? {=x ~y}\n\n::b:: Which? {=x ~X}", "3: choices A and B are the same"),
        (
            f"::a:: Which? {{=x ~y}}\n\n::b:: {'long ' * 300}? {{=x ~y}}",
            "3: the question is 1501 characters; the limit is 1000",
        ),
        (
            f"::a:: Which? {{=x ~y}}\n\n::b:: Which? {{=x ~{'y' * 206}}}",
            "3: choice B is 206 characters; the limit is 200",
        ),
        (
            "::a:: Which? {=x ~y}\n\n::b:: Which? {=x =y ~z}",
            "3: skipped: a question with several right answers",
        ),
    ],
)
def test_a_bad_question_is_skipped_with_its_reason_and_strict_imports_nothing(
    text: str, problem: str
) -> None:
    ids, skipped = gift(text)
    assert ids == ["a"]
    assert len(skipped) == 1 and skipped[0].startswith("basics.gift:3: skipped: ")
    assert skipped[0].endswith(problem.split(": ", 1)[1]), skipped
    if "skipped:" in problem:  # a type quizzes do not have: listed, never an error
        return
    with pytest.raises(QuizFileError) as caught:
        import_text(text, "gift", file="basics.gift", locale="en", strict=True)
    assert [str(p) for p in caught.value.problems] == [f"basics.gift:{problem}"]


def test_a_file_with_only_unsupported_questions_imports_nothing() -> None:
    with pytest.raises(QuizFileError) as caught:
        gift("::tf:: True? {T}\n\n::num:: 1+1 {#2}")
    lines = [str(p) for p in caught.value.problems]
    assert lines[0] == "basics.gift:1: no multiple-choice question to import"
    assert "basics.gift:1: skipped: a true/false question" in lines


AIKEN = """\
What does loss scaling protect in fp16?
A. Small gradients from underflowing to zero
B. Large activations from overflowing
C) The optimizer's state
ANSWER: A
EXPLANATION: Multiplying the loss moves small gradients into fp16's range.

Which format has 8 exponent bits
and 7 mantissa bits?
A. fp16
B. bf16
ANSWER: B
"""


def test_aiken_with_and_without_an_explanation() -> None:
    quiz = import_text(AIKEN, "aiken", file="scaling.txt", locale="id").quiz
    first, second = quiz.questions
    assert first.choices["id"][2] == "The optimizer's state" and first.answer == 0
    assert first.explanation["id"].startswith("Multiplying the loss")
    assert second.prompt["en"] == "Which format has 8 exponent bits\nand 7 mantissa bits?"
    assert second.explanation["id"] == "Jawaban yang benar adalah “bf16”."
    assert second.explanation["en"] == "The right answer is “bf16”."  # not a copy of the id
    assert second.untranslated == ["en"] and quiz.id == "scaling"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Q?\nA. x\nB. y\n", "f.aiken:1: the last question has no ANSWER: line"),
        ("Q?\nA. x\nB. y\nANSWER: C\n", "f.aiken:4: ANSWER: C is not one of the choices"),
        ("Q?\nA. x\nANSWER: A\n", "f.aiken:3: a question needs at least 2 choices"),
        ("A. x\nB. y\n", "f.aiken:1: choice A before any question"),
        ("Q?\nA. x\nC. y\nANSWER: A\n", "f.aiken:3: choice C where B was expected"),
        ("ANSWER: A\n", "f.aiken:1: ANSWER: without a question"),
    ],
)
def test_aiken_problems_have_their_line(text: str, problem: str) -> None:
    with pytest.raises(QuizFileError) as caught:
        import_text(text, "aiken", file="f.aiken", locale="en")
    lines = [str(p) for p in caught.value.problems]
    assert lines[0] == "f.aiken:1: no multiple-choice question to import"
    assert any(line.startswith(problem.replace(": ", ": skipped: ", 1)) for line in lines), lines
    # The same question after a good one: the good one imports, the bad one is listed.
    good = "Good?\nA. yes\nB. no\nANSWER: A\n\n"
    result = import_text(good + text, "aiken", file="f.aiken", locale="en")
    assert [q.prompt["en"] for q in result.quiz.questions] == ["Good?"]
    skipped = str(result.skipped[0])
    line = int(problem.split(":")[1]) + 5
    assert skipped.startswith(f"f.aiken:{line}: skipped: {problem.split(': ', 1)[1]}")


CSV = (
    "prompt,choice_a,choice_b,choice_c,choice_d,answer,explanation\n"
    'What is fp16\'s max?,65504,65536,"3.4e38",,A,"Five exponent bits, ten mantissa bits."\n'
    '"A prompt over\ntwo lines?",yes,no,,,b,Because.\n'
)


def test_csv_with_fewer_choices_in_a_row_and_a_cell_over_two_lines() -> None:
    quiz = import_text("\ufeff" + CSV, "csv", file="sheet.csv", locale="en").quiz
    first, second = quiz.questions
    assert first.choices["en"] == ["65504", "65536", "3.4e38"] and first.answer == 0
    assert second.prompt["en"] == "A prompt over\ntwo lines?" and second.answer == 1


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("question,a,b,answer,explanation\nQ,x,y,A,E\n", "s.csv:1: the header must be exactly"),
        (CSV + "Q3,x,,z,,A,E\n", "s.csv:5: an empty choice between two choices"),
        (CSV + "Q3,x,y,,,C,E\n", "s.csv:5: answer 'C' must be one of the letters AB"),
        (CSV + "Q3,x,y\n", "s.csv:5: has 3 cells; the header has 7"),
        (CSV + "Q3,x,y,,,A,\n", ""),  # no explanation: the right answer explains it
    ],
)
def test_csv_problems_have_their_line_and_strict_imports_nothing(text: str, problem: str) -> None:
    if not problem:
        quiz = import_text(text, "csv", file="s.csv", locale="en").quiz
        assert quiz.questions[-1].explanation["en"] == "The right answer is “x”."
        return
    with pytest.raises(QuizFileError) as caught:
        import_text(text, "csv", file="s.csv", locale="en", strict=True)
    assert str(caught.value.problems[0]).startswith(problem), caught.value.problems
    if "header" not in problem:  # the good rows import, the bad one is listed
        result = import_text(text, "csv", file="s.csv", locale="en")
        assert len(result.quiz.questions) == 2
        assert str(result.skipped[0]).startswith(problem.replace(": ", ": skipped: ", 1))


def test_the_format_is_detected_by_extension_then_content() -> None:
    assert detect_format("a.gift", "") == "gift"
    assert detect_format("a.CSV", "") == "csv"
    assert detect_format("a.yml", "") == "yaml"
    assert detect_format("a.txt", CSV) == "csv"
    assert detect_format("a.txt", AIKEN) == "aiken"
    assert detect_format("a.txt", GIFT) == "gift"
    assert detect_format("quiz", "id: x\ntitle: {en: X}\n") == "yaml"


def test_an_import_becomes_a_quiz_file_that_validates_and_says_what_is_untranslated() -> None:
    quiz = import_text(GIFT, "gift", file="basics.gift", locale="en").quiz
    again = parse_quiz(quiz_yaml(quiz), "basics.yaml")
    assert again == quiz
    note = untranslated_note(again)
    assert note is not None and note.startswith("4 question(s) not translated to 'id'")


def test_export_then_import_gives_the_same_questions_for_every_shipped_quiz(
    shipped_bank: QuizBank,
) -> None:
    """The property over the shipped quizzes, in both languages: id, prompt, choices in
    order, the right answer and the explanation survive GIFT (and its escapes)."""
    compared = 0
    for quiz in shipped_bank.quizzes.values():
        for locale in ("en", "id"):
            text = to_gift(quiz, locale)
            result = import_text(text, "gift", file=f"{quiz.id}.gift", locale=locale)
            assert result.skipped == [] and result.quiz.id == quiz.id
            for before, after in zip(quiz.questions, result.quiz.questions, strict=True):
                assert (after.id, after.answer) == (before.id, before.answer)
                assert after.prompt[locale] == before.prompt[locale]
                assert after.choices[locale] == before.choices[locale]
                assert after.explanation[locale] == before.explanation[locale]
                compared += 1
    assert compared == 2 * sum(len(q.questions) for q in shipped_bank.quizzes.values()) > 100


def test_gift_escapes_what_gift_requires() -> None:
    assert escape("a~b=c#d{e}f:g\\h\ni") == "a\\~b\\=c\\#d\\{e\\}f\\:g\\\\h\\ni"


TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\r")
    | st.sampled_from(list("~=#{}:\\\n%-> ")),
    min_size=1,
    max_size=60,
).filter(lambda s: s.strip() and s == s.strip() and "\n " not in s and " \n" not in s)


@settings(max_examples=300, deadline=None)
@given(prompt=TEXT, right=TEXT, wrong=TEXT, explanation=TEXT)
def test_any_text_survives_gift(prompt: str, right: str, wrong: str, explanation: str) -> None:
    """Escaping is exact for any text (the schema strips each text's ends, so do we)."""
    if " ".join(right.lower().split()) == " ".join(wrong.lower().split()):
        return  # two equal choices are refused by the quiz rules, not by GIFT
    quiz = validate_data(
        {
            "id": "p",
            "title": {"en": "P"},
            "description": {"en": "P"},
            "questions": [
                {
                    "id": "q-1",
                    "prompt": {"en": prompt},
                    "choices": {"en": [wrong, right]},
                    "answer": 1,
                    "explanation": {"en": explanation},
                }
            ],
        }
    )
    parsed = parse_gift(to_gift(quiz, "en"))
    assert parsed.skipped == [] and parsed.errors == []
    (draft,) = parsed.drafts
    assert (draft.prompt, draft.choices, draft.answer, draft.explanation) == (
        prompt,
        [wrong, right],
        1,
        explanation,
    )


def test_imported_yaml_quotes_text_a_yaml_12_reader_takes_for_a_number() -> None:
    """`3.4e38` is text to PyYAML (YAML 1.1) but a float to YAML 1.2 readers: quoted."""
    aiken = b"Where does fp16 overflow?\nA. 65504\nB. 3.4e38\nC. .inf\nD. 1e-5\nANSWER: A\n"
    quiz = import_text(aiken.decode(), "aiken", file="q.txt", locale="en").quiz
    text = quiz_yaml(quiz)
    for value in ("'65504'", "'3.4e38'", "'.inf'", "'1e-5'"):
        assert value in text, text
    assert parse_quiz(text, "q.yaml") == quiz
