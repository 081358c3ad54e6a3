"""`quiztutor export --format gift` as Moodle reads it back.

`moodle_read` follows Moodle's GIFT reader step by step (`question/format/gift/format.php`:
escapedchar_pre/post with its placeholders, the name, the first `{` and `}`, the last
`####`, parse_text_with_format, the multiple-choice branch with `=` turned into `~=`, the
weights and commentparser), written independently of quiztutor's reader, so the export is
checked against Moodle's rules and not against itself."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.common.i18n import t
from bot.quizbank import Question, QuizBank
from bot.quizbank.formats import import_text, to_gift
from bot.quizbank.formats.common import split_explanation

_ESCAPES = ["\\:", "\\#", "\\=", "\\{", "\\}", "\\~", "\\n"]
_HOLDERS = ["&&058;", "&&035;", "&&061;", "&&123;", "&&125;", "&&126;", "&&010"]
_CHARS = [":", "#", "=", "{", "}", "~", "\n"]
_WEIGHT = re.compile(r"^%\-*([0-9]{1,2})\.?([0-9]*)%")
FORMATS = ("moodle", "html", "plain", "markdown")


def _pre(text: str) -> str:
    text = text.replace("\\\\", "&&092;")
    for escaped, holder in zip(_ESCAPES, _HOLDERS, strict=True):
        text = text.replace(escaped, holder)
    return text.replace("&&092;", "\\")


def _post(text: str) -> str:
    for holder, char in zip(_HOLDERS, _CHARS, strict=True):
        text = text.replace(holder, char)
    return text


def _with_format(text: str, default: str) -> tuple[str, str]:
    fmt = default
    if text.startswith("["):
        end = text.find("]")
        if text[1:end] in FORMATS:
            fmt, text = text[1:end], text[end + 1 :]
    return _post(text).strip(), fmt


@dataclass
class MoodleQuestion:
    name: str
    idnumber: str | None
    text: tuple[str, str]
    answers: list[tuple[str, str]]
    fractions: list[float]
    feedback: list[tuple[str, str]]
    general: tuple[str, str]


def moodle_read(gift: str) -> list[MoodleQuestion]:
    """The multiple-choice questions Moodle reads from `gift`."""
    questions: list[MoodleQuestion] = []
    blocks: list[list[str]] = [[]]
    for line in gift.split("\n"):
        if line.strip():
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    for lines in blocks:
        comments = " ".join(line for line in lines if line.strip().startswith("//"))
        idnumber = re.search(r"\[id:([^\]]+)\]", comments)
        kept = [" " if line.strip().startswith("//") else line for line in lines]
        text = _pre("\n".join(kept).strip())
        if not text or text.startswith("$CATEGORY:"):
            continue
        assert text.startswith("::")
        text = text[2:]
        end = text.find("::")
        name, text = _post(text[:end]), text[end + 2 :].strip()
        start, finish = text.find("{"), text.find("}")
        answers = text[start + 1 : finish].strip()
        question = text[:start] + text[finish + 1 :]
        general = ""
        if (split := answers.rfind("####")) != -1:
            general, answers = answers[split + 4 :], answers[:split].strip()
        qtext = _with_format(question.strip(), "moodle")
        assert "~" in answers, "Moodle reads it as multiple choice"
        parts = answers.replace("=", "~=").split("~")
        if not parts[0].strip():
            parts = parts[1:]
        read = MoodleQuestion(
            name,
            idnumber[1] if idnumber else None,
            qtext,
            [],
            [],
            [],
            _with_format(general.strip(), qtext[1]),
        )
        for part in parts:
            part = part.strip()
            if part.startswith("="):
                fraction, part = 1.0, part[1:]
            elif _WEIGHT.match(part):
                part = part[1:]
                fraction = float(part[: part.find("%")]) / 100
                part = part[part.find("%") + 1 :]
            else:
                fraction = 0.0
            answer, _, said = part.partition("#")
            read.answers.append(_with_format(answer.strip(), qtext[1]))
            read.feedback.append(_with_format(said.strip(), qtext[1]))
            read.fractions.append(fraction)
        questions.append(read)
    return questions


MOODLE_EXPORT = """\
$CATEGORY: $course$/top/Spectrum

::Q2:: What's between orange and green in the spectrum?
{
    =yellow # right; good!
    ~red # [html]wrong, it's <b>yellow</b>
    ~[plain]blue # wrong, it's yellow
    ####[html]<p>Yellow sits between them.</p>
}

::Tricky:: Which is **bold** in markdown? {=[markdown]**x** ~[markdown]__x__ ~%-50%%50%}

::Plain::[plain]Which reads <b> as text? {=<b> ~nothing}
"""


def test_export_writes_names_feedback_and_markdown_only_where_markdown() -> None:
    quiz = import_text(MOODLE_EXPORT, "gift", file="spectrum.gift", locale="en").quiz
    gift = to_gift(quiz, "en")
    assert "::Q2::What's between orange and green in the spectrum?{" in gift  # no tag
    assert "\t=yellow#right; good!" in gift
    assert "\t~red#[markdown]wrong, it's **yellow**" in gift
    assert "\t####Yellow sits between them." in gift
    assert "::Tricky::[markdown]Which is **bold** in markdown?{" in gift
    assert "\t~%0%%50%" in gift  # a wrong answer that reads like a weight, weighted 0
    assert "::Plain::[plain]Which reads <b> as text?{" in gift

    again = import_text(gift, "gift", file="spectrum.gift", locale="en").quiz
    assert again.questions == quiz.questions
    for question, read in zip(quiz.questions, moodle_read(gift), strict=True):
        assert_moodle_reads(question, read, "en")


def assert_moodle_reads(question: Question, read: MoodleQuestion, locale: str) -> None:
    """Moodle reads back the same question: name, id, texts, the right answer, feedback."""
    choices = question.choice_texts(locale)
    general, feedback = split_explanation(question.text("explanation", locale), choices)
    assert read.name == (question.title or question.id)
    assert read.idnumber == question.id
    assert read.text[0] == question.text("prompt", locale)
    assert [text for text, _ in read.answers] == choices
    assert read.fractions == [1.0 if i == question.answer else 0.0 for i in range(len(choices))]
    assert [text for text, _ in read.feedback] == feedback
    # An imported question without feedback was explained by its right answer: exported
    # without feedback, as it came.
    named = t("import.default_explanation", locale, choice=choices[question.answer])
    assert read.general[0] == ("" if general == named else general)
    texts = [read.text, *read.answers, *read.feedback, read.general]
    assert all(fmt != "html" for _, fmt in texts)  # never written as HTML


def test_moodle_reads_every_shipped_quiz_back_from_the_export(shipped_bank: QuizBank) -> None:
    compared = 0
    for quiz in shipped_bank.quizzes.values():
        for locale in ("en", "id"):
            gift = to_gift(quiz, locale)
            for question, read in zip(quiz.questions, moodle_read(gift), strict=True):
                assert_moodle_reads(question, read, locale)
                compared += 1
    assert compared > 100
