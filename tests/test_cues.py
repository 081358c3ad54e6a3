"""Answer cues: the right answer guessable from its length or its slot, warned about by
`quiztutor validate` for every quiz file, shipped or uploaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.core.quizbank import QuizBank, parse_quiz
from bot.core.quizbank.cues import CueWarning, answer_cues
from bot.storage.quiz_files import SHIPPED_DIR, load_bank

ROOT = Path(__file__).resolve().parents[1]
SEED_QUIZZES = {"mixed-precision", "gradient-accumulation"}

# Four choices of equal length (5 characters): none is the longest.
EVEN = ["alpha", "bravo", "gamma", "delta"]


class NoAliasDumper(yaml.SafeDumper):
    """Writes a list used twice in full: quiz files refuse YAML aliases."""

    def ignore_aliases(self, data: object) -> bool:
        return True


def quiz_text(questions: list[tuple[list[str], list[str], int]]) -> str:
    """A two-locale quiz file; each question is (English choices, Indonesian choices, answer)."""
    data = {
        "id": "cue-test",
        "title": {"id": "Uji isyarat", "en": "Cue test"},
        "description": {"id": "Kuis uji.", "en": "A test quiz."},
        "questions": [
            {
                "id": f"cue-{number}",
                "prompt": {"id": f"Pertanyaan {number}?", "en": f"Question {number}?"},
                "choices": {"en": en, "id": id_},
                "answer": answer,
                "explanation": {"id": "Karena begitu.", "en": "Because so."},
            }
            for number, (en, id_, answer) in enumerate(questions, start=1)
        ],
    }
    return yaml.dump(data, Dumper=NoAliasDumper, allow_unicode=True, sort_keys=False)


def with_long(answer: int, long_at: int | None = None) -> list[str]:
    """EVEN with the choice at `long_at` (default: the answer) made the longest."""
    choices = list(EVEN)
    choices[answer if long_at is None else long_at] += " and more"
    return choices


def cues(questions: list[tuple[list[str], list[str], int]]) -> list[CueWarning]:
    return answer_cues(parse_quiz(quiz_text(questions)))


# ---------------------------------------------------------------------------- the rule


def test_a_quiz_without_cues_gets_no_warning() -> None:
    # Answers spread over the slots; the right one is the longest in 2 of 5 (40%, the limit).
    questions = [
        (with_long(0), with_long(0, 1), 0),
        (with_long(1), with_long(1, 2), 1),
        (with_long(2, 3), with_long(2), 2),
        (with_long(3, 0), with_long(3), 3),
        (EVEN, EVEN, 0),
    ]
    assert cues(questions) == []


def test_length_cue_is_counted_per_locale() -> None:
    # English: longest in 3 of 5 (60%); Indonesian: in 2 of 5 (40%, not above the limit).
    questions = [
        (with_long(0), with_long(0), 0),
        (with_long(1), with_long(1), 1),
        (with_long(2), with_long(2, 0), 2),
        (with_long(3, 0), with_long(3, 0), 3),
        (EVEN, EVEN, 0),
    ]
    (warning,) = cues(questions)
    assert warning == CueWarning("longest", 3, 5, locale="en")
    assert warning.message() == (
        "the right answer is the longest choice in 3 of 5 questions (en); "
        "members can guess it from length"
    )


def test_a_tie_for_longest_is_not_a_length_cue() -> None:
    # The right answer shares the top length with a distractor: length does not single it out.
    tie = ["alpha and more", "bravo and more", "gamma", "delta"]
    assert cues([(tie, tie, 0), (tie, tie, 1), (tie, tie, 0), (tie, tie, 1)]) == []


def test_slot_cue_when_one_index_holds_more_than_half() -> None:
    questions = [
        (EVEN, EVEN, 1),
        (EVEN, EVEN, 1),
        (EVEN, EVEN, 1),
        (EVEN, EVEN, 0),
        (EVEN, EVEN, 2),
    ]
    (warning,) = cues(questions)
    assert warning == CueWarning("slot", 3, 5, slot=1)
    assert warning.message() == (
        "the right answer is choice B (answer: 1) in 3 of 5 questions; "
        "members can guess it from position"
    )
    # Exactly half in one slot is within the limit.
    assert cues([(EVEN, EVEN, 1), (EVEN, EVEN, 1), (EVEN, EVEN, 0), (EVEN, EVEN, 3)]) == []


def test_both_cues_at_once_and_the_one_question_quiz() -> None:
    questions = [(with_long(0), with_long(0), 0)] * 3
    assert [(w.kind, w.locale, w.slot, w.count) for w in cues(questions)] == [
        ("longest", "id", None, 3),
        ("longest", "en", None, 3),
        ("slot", None, 0, 3),
    ]
    # A single question cannot spread its answer over slots; its length cue still counts.
    assert cues([(with_long(2), EVEN, 2)]) == [CueWarning("longest", 1, 1, locale="en")]


# ---------------------------------------------------------------------------- the command line


def run_validate(*paths: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "bot", "validate", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
        cwd=ROOT,
    )


def test_validate_prints_cue_warnings_and_still_succeeds(tmp_path: Path) -> None:
    cued = tmp_path / "cued.yaml"
    cued.write_text(quiz_text([(with_long(2), with_long(2), 2)] * 4), encoding="utf-8")
    clean = tmp_path / "clean.yaml"
    clean.write_text(
        quiz_text([(EVEN, EVEN, 0), (EVEN, EVEN, 1)]).replace("cue-", "clean-"), encoding="utf-8"
    )
    result = run_validate(cued, clean)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        f"{cued}: warning: the right answer is the longest choice in 4 of 4 questions (id); "
        "members can guess it from length",
        f"{cued}: warning: the right answer is the longest choice in 4 of 4 questions (en); "
        "members can guess it from length",
        f"{cued}: warning: the right answer is choice C (answer: 2) in 4 of 4 questions; "
        "members can guess it from position",
        "OK: 2 quiz(zes), 6 questions.",
    ]


def test_validate_warns_about_the_loadable_files_when_another_is_broken(tmp_path: Path) -> None:
    cued = tmp_path / "cued.yaml"
    cued.write_text(quiz_text([(EVEN, EVEN, 3)] * 3), encoding="utf-8")
    broken = tmp_path / "broken.yaml"
    broken.write_text("id: [unclosed\n", encoding="utf-8")
    result = run_validate(cued, broken)
    assert result.returncode == 1
    assert f"{broken}:2: not valid YAML" in result.stdout
    assert (
        f"{cued}: warning: the right answer is choice D (answer: 3) in 3 of 3 questions"
        in result.stdout
    )
    assert "Traceback" not in result.stderr


def test_validate_prints_the_seed_quizzes_length_cue() -> None:
    # The seeds keep the user's choices, so their length cue is reported, honestly.
    result = run_validate(SHIPPED_DIR)
    assert result.returncode == 0, result.stdout + result.stderr
    for line in (
        "mixed-precision.yaml: warning: the right answer is the longest choice in 8 of 8 "
        "questions (en)",
        "mixed-precision.yaml: warning: the right answer is the longest choice in 7 of 8 "
        "questions (id)",
        "gradient-accumulation.yaml: warning: the right answer is the longest choice in 7 of 8 "
        "questions (en)",
    ):
        assert line in result.stdout


# ---------------------------------------------------------------------------- shipped quizzes


@pytest.fixture(scope="module")
def bank() -> QuizBank:
    return load_bank()


def test_shipped_quizzes_hold_the_cue_limits(bank: QuizBank) -> None:
    """New quizzes: the right answer the longest in at most 40% of the questions in each
    locale, no slot holding more than half. The seeds keep their length cue (their choices
    are the user's) but their answers are spread over the slots."""
    for quiz in bank.quizzes.values():
        found = [(cue.kind, cue.locale, cue.count, cue.total) for cue in answer_cues(quiz)]
        if quiz.id in SEED_QUIZZES:
            assert all(kind == "longest" for kind, *_ in found), (quiz.id, found)
        else:
            assert found == [], (quiz.id, found)
    assert SEED_QUIZZES <= set(bank.quizzes)
