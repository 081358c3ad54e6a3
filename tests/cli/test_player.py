"""`quiztutor play` as a student sees it: wrapped to the terminal, code without backticks,
verdict and explanation apart, the score of the questions answered, time and review."""

from __future__ import annotations

import os
import random
import re
import selectors
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli.player import pick_questions
from bot.quizbank import display_order
from bot.quizbank.files import load_bank
from experiments.generators import generate

# Real subprocesses (bot processes, the CLI, torch workers): left out by -m 'not slow'.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def env(**extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("QUIZ_", "COLUMNS"))}
    return {**base, "PYTHONPATH": str(ROOT), **extra}


def play(*args: str, stdin: str, columns: int = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env(COLUMNS=str(columns)),
    )


#: mixed-precision.yaml: 8 written questions and 4 generated ones (templates).
MP_QUESTIONS = 12


def right_letters(quiz_id: str, seed: int) -> list[str]:
    """The letters of the right answers in a seeded run (the same shuffle as the player,
    the same generated instances: their seeds come from the run's seed)."""
    rng = random.Random(seed)
    letters = []
    for question in pick_questions(load_bank(), quiz_id, None, rng, generate):
        order = display_order(question, rng)
        letters.append("ABCDEF"[order.index(question.answer)])
    return letters


def test_text_is_wrapped_to_the_terminal_and_code_is_rendered() -> None:
    letters = right_letters("gradient-accumulation", 5)
    result = play("--quiz", "gradient-accumulation", "--seed", "5", stdin="\n".join(letters))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 60
    assert sum(len(line) > 45 for line in lines) > 10  # wrapped near the edge, not short
    assert "`" not in result.stdout  # the quiz files use backticks for code
    assert "zero_grad()" in result.stdout
    # Every word arrives whole: the wrapped text is the same words as the source texts.
    bank = load_bank()
    for question in bank.all_questions("gradient-accumulation"):
        words = question.text("explanation", "en").replace("`", "").split()
        assert " ".join(words) in " ".join(result.stdout.split())


def test_verdict_and_explanation_are_apart_and_all_right_is_said() -> None:
    letters = right_letters("mixed-precision", 2)
    result = play("--quiz", "mixed-precision", "--seed", "2", stdin="\n".join(letters) + "\n")
    lines = result.stdout.splitlines()
    verdicts = [i for i, line in enumerate(lines) if line == "✓ Correct!"]
    assert len(verdicts) == len(letters) == MP_QUESTIONS
    for i in verdicts:
        assert lines[i + 1] == "" and lines[i + 2].startswith("  Why: ")
    assert f"Score: {MP_QUESTIONS}/{MP_QUESTIONS} (100%)" in result.stdout
    # A generated question says how to print it again.
    assert "quiztutor generate running-sum-stall --seed " in result.stdout
    assert re.search(r"^Time: \d+:\d\d$", result.stdout, re.M)
    assert "Nothing to review: every answer was right." in result.stdout


def test_input_ending_counts_only_answered_questions_and_reviews_the_missed() -> None:
    letters = right_letters("mixed-precision", 4)
    wrong = "A" if letters[1] != "A" else "B"
    result = play("--quiz", "mixed-precision", "--seed", "4", stdin=f"{letters[0]}\n{wrong}\n")
    assert result.returncode == 0
    out = result.stdout
    assert "Input ended before the quiz did." in out
    assert "Score: 1/2 (50%)" in out  # not 1/8
    assert f"2 of {MP_QUESTIONS} question(s) answered; the score counts those only." in out
    review = out[out.index("To review (1):") :]
    assert review.splitlines()[1].startswith("  Q2: ")
    question = pick_questions(load_bank(), "mixed-precision", None, random.Random(4), generate)[1]
    answer = question.choices["en"][question.answer].replace("`", "")
    assert answer.split()[-1] in review


def test_indonesian_end_of_run() -> None:
    result = play("--quiz", "mixed-precision", "--lang", "id", "--seed", "1", stdin="a\n")
    assert f"dari {MP_QUESTIONS} soal dijawab" in result.stdout and "Waktu: " in result.stdout


def test_ctrl_c_prints_the_score_so_far() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "play", "--quiz", "mixed-precision", "--seed", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"a\n")
    proc.stdin.flush()
    seen = b""
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while seen.count(b"Your answer") < 2:  # the second question waits for input
            assert selector.select(timeout=30), seen
            chunk = os.read(proc.stdout.fileno(), 65536)
            assert chunk, seen
            seen += chunk
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=30)
    out = (seen + rest).decode()
    assert proc.returncode == 130
    assert "Traceback" not in err.decode()
    assert re.search(r"\nStopped\. Score so far: [01]/1 \((0|100)%\), 12 question\(s\)", out), out


@pytest.mark.parametrize("columns", [40, 120])
def test_width_follows_the_terminal_within_bounds(columns: int) -> None:
    result = play("--quiz", "mixed-precision", "--seed", "1", stdin="", columns=columns)
    widest = max(len(line) for line in result.stdout.splitlines())
    assert widest <= min(columns, 100)
