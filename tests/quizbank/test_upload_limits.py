"""An upload cannot freeze the bot: every parser is linear in its input (the worst inputs
known at 256 KiB each read in under 1 s), an upload is read in a child process that is
killed at its time limit, and uploaded text shows where its links lead."""

from __future__ import annotations

import time

import pytest
from pydantic import ValidationError

from bot.quizbank import QuizFileError, Reference
from bot.quizbank.formats import detect_format, import_text
from bot.quizbank.links import plain_links, unmask
from bot.quizbank.parse import MAX_FILE_BYTES
from bot.quizbank.sandbox import ParseTimeout, parse_upload, run_limited

N = MAX_FILE_BYTES
WORST = {
    # GIFT's old line-break cleaner: minutes at 256 KiB.
    "x, spaces, y": "::a:: x" + " " * (N - 20) + "y {=a ~b}",
    # The format sniffers for an unknown extension.
    "newlines": "\n" * N,
    "{ then =": "{" + "=" * (N - 1),
    "ANSWER then spaces": "ANSWER:" + " " * (N - 8) + "\n",
    # The masked-link scan.
    "[[[[": "[" * N,
    "[a](b repeated": "[a](b" * (N // 5),
}


def _seconds(call: object) -> float:
    start = time.perf_counter()
    try:
        call()  # type: ignore[operator]
    except QuizFileError:
        pass  # refused is fine: quickly is what counts
    return time.perf_counter() - start


@pytest.mark.parametrize("name", list(WORST))
def test_the_worst_known_inputs_at_256_kib_read_in_under_a_second(name: str) -> None:
    text = WORST[name]
    assert len(text.encode()) <= N
    timings = {
        "sniff": _seconds(lambda: detect_format("upload.txt", text)),
        "unmask": _seconds(lambda: unmask(text)),
        **{
            fmt: _seconds(lambda fmt=fmt: import_text(text, fmt, file="u.txt", locale="en"))
            for fmt in ("gift", "aiken", "csv")
        },
    }
    assert max(timings.values()) < 1.0, timings


def test_an_upload_is_read_in_a_child_process() -> None:
    upload = parse_upload("::a:: Which? {=x ~y}\n\n::b:: Which? {~x ~y}\n", "w.gift", "en")
    assert [q.title for q in upload.quiz.questions] == ["a"] and upload.format == "gift"
    assert [str(p) for p in upload.skipped] == [
        "w.gift:3: skipped: no right answer: mark it with ="
    ]
    assert "untranslated:" in upload.source
    with pytest.raises(QuizFileError) as caught:  # the child's problems, not a traceback
        parse_upload("Q?\nA) x\n", "bad.aiken", "en")
    assert "bad.aiken:1: no multiple-choice question to import" in str(caught.value)


def test_a_child_that_takes_too_long_is_killed_and_the_upload_refused() -> None:
    start = time.monotonic()
    with pytest.raises(ParseTimeout):
        run_limited(time.sleep, 60, timeout=1.0)
    assert time.monotonic() - start < 10  # not the minute the child asked for
    with pytest.raises(QuizFileError) as caught:
        parse_upload("::a:: Which? {=x ~y}", "slow.gift", "en", timeout=0.001)
    assert str(caught.value) == "slow.gift:1: took longer than 0.001 s to read; split it"


def test_uploaded_links_show_their_address_and_nothing_is_left_to_hide_one() -> None:
    assert unmask("[Verify ownership](https://evil.example)") == (
        "Verify ownership (https://evil.example)"
    )
    assert unmask('[a[b](<https://x.example> "t")') == "[ab (https://x.example)"
    assert unmask("[w](https://en.wikipedia.org/wiki/X_(y))") == (
        "w (https://en.wikipedia.org/wiki/X_(y))"
    )
    # A form the pattern does not take is broken up, so Discord cannot mask it either.
    assert unmask("[z](https://x.example/[y])") == "[z] (https://x.example/[y])"


def test_credit_is_unmasked_and_reference_urls_refuse_brackets() -> None:
    quiz = import_text("::a:: Which? {=x ~y}", "gift", file="c.gift", locale="en").quiz
    question = quiz.questions[0].model_copy(update={"credit": "[me](https://evil.example)"})
    shown = plain_links(quiz.model_copy(update={"questions": [question]}))
    assert shown.questions[0].credit == "me (https://evil.example)"
    assert Reference(title="ok", url="https://example.org/a_b?c=d").url
    for url in ("https://x.example/)[text](https://evil.example", "https://x.example/[a]"):
        with pytest.raises(ValidationError):
            Reference(title="t", url=url)
