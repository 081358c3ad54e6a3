"""GIFT read as Moodle reads it: every construct of Moodle's own GIFT tests
(`question/format/gift/tests/giftformat_test.php`, `format.php`), each case saying what
Moodle produces and checking that quiztutor imports the same question, or lists a question
of another type with its line."""

from __future__ import annotations

import pytest

from bot.quizbank import Problem, Question, QuizFileError
from bot.quizbank.formats import ImportResult, import_text


def read(text: str, strict: bool = False) -> ImportResult:
    return import_text(text, "gift", file="m.gift", locale="en", strict=strict)


def only(text: str) -> Question:
    (question,) = read(text).quiz.questions
    return question


def lines(problems: list[Problem]) -> list[str]:
    return [str(p) for p in problems]


def test_multichoice_with_feedback_on_each_answer_and_format_tags() -> None:
    # Moodle (test_import_multichoice): name Q2; answers yellow (100 %), red, blue, the
    # tags [plain] and [html] taken off; feedback "right; good!", "wrong, it's yellow" x2.
    q = only(
        "\n// multiple choice with specified feedback for right and wrong answers\n"
        "::Q2:: What's between orange and green in the spectrum?\n{\n"
        "    =yellow # right; good!\n"
        "    ~red # [html]wrong, it's yellow\n"
        "    ~[plain]blue # wrong, it's yellow\n}"
    )
    assert q.title == "Q2"
    assert q.prompt["en"] == "What's between orange and green in the spectrum?"
    assert q.choices["en"] == ["yellow", "red", "blue"] and q.answer == 0
    assert q.explanation["en"] == (
        "- yellow: right; good!\n- red: wrong, it's yellow\n- blue: wrong, it's yellow"
    )


def test_multiple_response_is_skipped_and_one_full_answer_with_negative_marks_imports() -> None:
    # Moodle (test_import_multichoice_multi): 50 %, -100 %, 50 %, -100 %: several answers
    # are right together (single = 0), which a quiz cannot ask.
    multi = (
        "::colours:: What's between orange and green in the spectrum?\n{\n"
        "    ~%50%yellow # right; good!\n    ~%-100%red # [html]wrong\n"
        "    ~%50%off-beige # right; good!\n    ~%-100%[plain]blue # wrong\n}"
    )
    # Moodle (test_import_multichoice_multi_tricky): 100 %, -50 %, -50 %: one answer is
    # worth everything; imported with yellow right and a note that the marks were dropped.
    tricky = (
        "::colours:: What's between orange and green in the spectrum?\n{\n"
        "    ~%100%yellow # right; good!\n    ~%-50%red # wrong\n    ~%-50%blue # wrong\n}"
    )
    # Moodle: = with partial credit and negative marks is single-answer (single = 1).
    single = "::neg:: Which? {=right ~%-33.33333%wrong ~%50%half # close}"
    result = read("\n\n".join([multi, tricky, single]))
    assert lines(result.skipped) == ["m.gift:1: skipped: a question with several right answers"]
    first, second = result.quiz.questions
    assert first.choices["en"] == ["yellow", "red", "blue"] and first.answer == 0
    assert second.choices["en"] == ["right", "wrong", "half"] and second.answer == 0
    assert second.explanation["en"] == "- half: close"
    assert lines(result.notes) == [
        "m.gift:9: note: partial credit dropped (B -50 %, C -50 %): the 100 % answer is right,"
        " every other answer wrong",
        "m.gift:16: note: partial credit dropped (B -33.33333 %, C 50 %): the 100 % answer is"
        " right, every other answer wrong",
    ]


@pytest.mark.parametrize(
    ("gift", "kind"),
    [
        ("::Q8:: How are you? {}", "an essay question"),  # test_import_essay
        (
            "::Moodle activities::[html]Match the <b>activity</b> to the description.{\n"
            "    =[html]An activity supporting asynchronous discussions. -> Forum\n"
            "    =[moodle]A teacher asks a question. -> Choice\n    = -> Chat\n}",
            "a matching question",
        ),
        ("::Q5:: What is a number from 1 to 5? {#3:2~#Completely wrong}", "a numerical question"),
        (
            "::Shortanswer::Which is the best animal?{\n    =Frog#Good!\n"
            "    =%50%Cat#What is it with Moodlers and cats?\n    =%0%*#Completely wrong\n"
            "    ####[html]Here is some general feedback!\n}",
            "a short-answer question",
        ),
        (
            "::Q1:: 42 is the Absolute Answer to everything.{\n"
            "FALSE#42 is the Ultimate Answer.#You gave the right answer.}",
            "a true/false question",
        ),
        ("::2-08 TSL::TSL is blablabla.{T}", "a true/false question"),
        ("::2-08 TSL::TSL is blablabla.{TRUE}", "a true/false question"),
        ("A description, with no answers at all.", "a description (no answers) is not a question"),
    ],
)
def test_other_question_types_are_listed_by_type_with_their_line(gift: str, kind: str) -> None:
    result = read("::ok:: Which? {=a ~b}\n\n" + gift)
    assert [q.title for q in result.quiz.questions] == ["ok"]
    assert lines(result.skipped) == [f"m.gift:3: skipped: {kind}"]


def test_escapes_and_backslashes() -> None:
    # Moodle (test_import_backslash): `\\` is one backslash; `\: \# \= \{ \} \~` the
    # character itself; `\n` a line break.
    q = only(r"::a\:b:: A \\ B \\\\ C \{x\} \= \# \~ 50\: {=one\ntwo ~a \= b}")
    assert q.title == "a:b"
    assert q.prompt["en"] == "A \\ B \\\\ C {x} = # ~ 50:"
    assert q.choices["en"] == ["one\ntwo", "a = b"]


def test_html_becomes_discord_markdown() -> None:
    # Moodle (test_import_pre_content) keeps the HTML, shown formatted; Discord shows
    # markdown: the paragraph and the <pre> block as a code block, `\{` a brace.
    q = only(
        "::Q001::[html]<p>What would running the test method print?</p>\n<pre>\n"
        "    public void test() \\{\n        method1();\n    \\}\n</pre>\n{=x ~y}"
    )
    assert q.prompt["en"] == (
        "What would running the test method print?\n\n```\n    public void test() {\n"
        "        method1();\n    }\n```"
    )
    # An editor's export: attributes, entities, <br>, bold, italics, code, lists, a link.
    q = only(
        '::E::[html]<p dir\\="ltr" style\\="text-align\\: left;">Is <b>bf16</b>&nbsp;&lt; '
        "fp32?<br>Think <i>range</i>.</p><ul><li><code>a_b</code></li><li>c</li></ul>{\n"
        "=[html]<p>yes</p>\n"
        '~no#[html]See <a href\\="https\\://moodle.org/x">the docs</a>.\n}'
    )
    assert q.prompt["en"] == "Is **bf16** < fp32?\nThink *range*.\n\n- `a_b`\n- c"
    assert q.choices["en"] == ["yes", "no"]
    assert q.explanation["en"] == "- no: See the docs (https://moodle.org/x)."


def test_plain_markdown_and_moodle_formats() -> None:
    # [plain] is literal, [markdown] kept, [moodle] (and no tag) keeps its line breaks and
    # reads HTML in it, as Moodle's own format does; an unknown tag is text.
    result = read(
        "::p::[plain]<b>not bold</b> {=x ~y}\n\n::m::[markdown]Is **this** bold? {=x ~y}\n\n"
        "::o::[moodle]Line one\nline <b>two</b> {=x ~y}\n\n::u::[unknown]Tag? {=x ~y}\n\n"
        "::c:: What does this print?\n    x = 1\n    print(x)\n{=1 ~2}"
    )
    prompts = [q.prompt["en"] for q in result.quiz.questions]
    assert prompts == [
        "<b>not bold</b>",
        "Is **this** bold?",
        "Line one\nline **two**",
        "[unknown]Tag?",
        "What does this print?\n    x \\= 1\n    print(x)".replace("\\=", "="),
    ]


def test_images_are_dropped_with_one_note_per_question() -> None:
    result = read(
        '::img::[html]<p>Read the chart <img src\\="@@PLUGINFILE@@/fp16.png"></p>{\n'
        '=[html]<img src\\="@@PLUGINFILE@@/a.png"> A\n~B\n}'
    )
    (q,) = result.quiz.questions
    assert q.prompt["en"] == "Read the chart" and q.choices["en"] == ["A", "B"]
    assert lines(result.notes) == [
        "m.gift:1: note: images dropped (Discord shows no image here): fp16.png, a.png"
    ]


def test_general_feedback_is_the_explanations_first_part() -> None:
    q = only("::g:: Which? {\n=x # yes\n~y\n####[html]<p>Because <b>x</b>.</p>\n}")
    assert q.explanation["en"] == "Because **x**.\n\n- x: yes"


def test_comments_category_idnumber_crlf_and_bom() -> None:
    # Moodle: `//` lines are comments, `$CATEGORY:` files the questions (the last part is
    # the quiz's name here), `[id:...]` in a comment is the question's idnumber.
    gift = (
        "// A comment\n$CATEGORY: $course$/top/Numerics Basics\n\n"
        "// [id:fp16-max]\n::Largest fp16:: What is the largest fp16 value? {=65504 ~65536}\n\n"
        "::q-2:: Which? // not a comment inside a line\n{=x ~y}\n"
    )
    plain = read(gift)
    crlf = read("\ufeff" + gift.replace("\n", "\r\n"))
    assert plain.quiz == crlf.quiz
    first, second = plain.quiz.questions
    assert plain.quiz.id == "numerics-basics" and plain.quiz.title["en"] == "Numerics Basics"
    assert (first.id, first.title) == ("fp16-max", "Largest fp16")
    assert (second.id, second.title) == ("q-2", "q-2")  # a name that is an id is the id
    assert second.prompt["en"] == "Which? // not a comment inside a line"


def test_missing_word_text_before_the_first_mark_and_a_name_without_its_end() -> None:
    result = read(
        "Bf16 keeps {~fewer =the same ~more} exponent bits.\n\n"
        # Moodle: text before the first mark is an answer like any other (a wrong one).
        "::w:: Which? {x =y ~z}\n\n"
        # Moodle: no closing `::`, no name; the `::` is taken off the text.
        "::no end Which? {=a ~b}"
    )
    gap, loose, unnamed = result.quiz.questions
    assert gap.prompt["en"] == "Bf16 keeps _____ exponent bits." and gap.answer == 1
    assert loose.choices["en"] == ["x", "y", "z"] and loose.answer == 1
    assert unnamed.prompt["en"] == "no end Which?" and unnamed.title is None


def test_duplicate_names_are_made_unique_with_a_note() -> None:
    result = read("::Q1:: One? {=a ~b}\n\n::Q1:: Two? {=a ~b}\n\n::q1:: Three? {=a ~b}")
    assert [q.title for q in result.quiz.questions] == ["Q1", "Q1 (2)", "q1 (3)"]
    assert len({q.id for q in result.quiz.questions}) == 3
    assert lines(result.notes) == [
        "m.gift:3: note: another question is named 'Q1': this one is 'Q1 (2)'",
        "m.gift:5: note: another question is named 'q1': this one is 'q1 (3)'",
    ]


def test_each_bad_question_is_listed_once_in_words_and_the_rest_imports() -> None:
    html = '[html]<p dir\\="ltr" style\\="text-align\\: left;">' + "f" * 990 + "<br></p>"
    result = read(
        "::good:: Which? {=a ~b}\n\n"
        f"::long:: Which? {{=a ~{'b' * 206}}}\n\n"
        f"::fb:: Which? {{=a ~b ####{html}}}\n\n"
        "::few:: Which? {~a}\n\n"
        "::none:: Which? {~a ~b}\n\n"
        "::brace:: Which? {=a ~b\n"
    )
    assert [q.title for q in result.quiz.questions] == ["good", "fb"]  # the tags cost nothing
    assert lines(result.skipped) == [
        "m.gift:3: skipped: choice B is 206 characters; the limit is 200",
        "m.gift:7: skipped: a question needs 2 to 6 answers; this one has 1",
        "m.gift:9: skipped: no right answer: mark it with =",
        "m.gift:11: skipped: a { or } is missing around the answers",
    ]
    with pytest.raises(QuizFileError) as caught:
        read("::good:: Which? {=a ~b}\n\n::none:: Which? {~a ~b}", strict=True)
    assert lines(caught.value.problems) == ["m.gift:3: no right answer: mark it with ="]
