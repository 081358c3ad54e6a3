"""Answer cues: the right answer guessable from its length rank or its slot, reported by
`quiztutor validate`: errors for the shipped quizzes (and the bank rule over them), warnings
for any other quiz file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.quizbank import QuizBank, parse_quiz
from bot.quizbank.cues import CueWarning, answer_cues, bank_cues, rank_counts, rank_shares
from bot.quizbank.files import SHIPPED_DIR, file_cues
from bot.quizbank.schema import Quiz

ROOT = Path(__file__).resolve().parents[2]

# Four choices of equal length (5 characters): every rank shares each question.
EVEN = ["alpha", "bravo", "gamma", "delta"]
# Four choices of distinct lengths: "dddd" is the longest (rank 1), "a" the shortest (rank 4).
STAIRS = ["a", "bb", "ccc", "dddd"]


class NoAliasDumper(yaml.SafeDumper):
    """Writes a list used twice in full: quiz files refuse YAML aliases."""

    def ignore_aliases(self, data: object) -> bool:
        return True


def quiz_text(questions: list[tuple[list[str], list[str], int]], quiz_id: str = "cue-test") -> str:
    """A two-locale quiz file; each question is (English choices, Indonesian choices, answer)."""
    data = {
        "id": quiz_id,
        "title": {"id": "Uji isyarat", "en": "Cue test"},
        "description": {"id": "Kuis uji.", "en": "A test quiz."},
        "questions": [
            {
                "id": f"{quiz_id}-{number}",
                "prompt": {"id": f"Pertanyaan {number}?", "en": f"Question {number}?"},
                "choices": {"en": en, "id": id_},
                "answer": answer,
                "explanation": {"id": "Karena begitu.", "en": "Because so."},
            }
            for number, (en, id_, answer) in enumerate(questions, start=1)
        ],
    }
    return yaml.dump(data, Dumper=NoAliasDumper, allow_unicode=True, sort_keys=False)


def at_rank(rank: int, answer: int, n: int = 4) -> list[str]:
    """n choices of distinct lengths with the one at `answer` the rank-th longest."""
    lengths = sorted(range(1, n + 1), reverse=True)  # rank 1 = n characters
    order = [i for i in range(n) if i != answer]
    choices = [""] * n
    choices[answer] = "x" * lengths[rank - 1]
    rest = [length for r, length in enumerate(lengths, start=1) if r != rank]
    for index, length in zip(order, rest, strict=True):
        choices[index] = "y" * length
    return choices


def spread(
    ranks: list[int], id_ranks: list[int] | None = None
) -> list[tuple[list[str], list[str], int]]:
    """Questions with the right answer at these ranks (answers spread over the 4 slots)."""
    id_ranks = id_ranks or ranks
    return [
        (at_rank(en, i % 4), at_rank(id_, i % 4), i % 4)
        for i, (en, id_) in enumerate(zip(ranks, id_ranks, strict=True))
    ]


def quiz(questions: list[tuple[list[str], list[str], int]], quiz_id: str = "cue-test") -> Quiz:
    return parse_quiz(quiz_text(questions, quiz_id))


def cues(questions: list[tuple[list[str], list[str], int]]) -> list[CueWarning]:
    return answer_cues(quiz(questions))


# ---------------------------------------------------------------------------- length ranks


def test_the_right_answers_rank_counts_ties_in_equal_shares() -> None:
    q = quiz([(STAIRS, STAIRS, 3), (STAIRS, STAIRS, 0), (EVEN, EVEN, 2)]).questions
    assert rank_shares(q[0], "en") == {1: 1.0}  # "dddd": the longest
    assert rank_shares(q[1], "en") == {4: 1.0}  # "a": the shortest
    assert rank_shares(q[2], "en") == {1: 0.25, 2: 0.25, 3: 0.25, 4: 0.25}
    # The right answer tied with one distractor for longest: ranks 1 and 2 share it.
    tie = quiz([(["abcd", "wxyz", "ab", "a"], EVEN, 0)]).questions[0]
    assert rank_shares(tie, "en") == {1: 0.5, 2: 0.5}
    # Tied for second longest behind one longer choice: ranks 2 and 3.
    behind = quiz([(["abc", "xyz", "abcdef", "a"], EVEN, 1)]).questions[0]
    assert rank_shares(behind, "en") == {2: 0.5, 3: 0.5}
    # Surrounding whitespace does not count.
    padded = quiz([(["  a  ", "bb", "ccc", "dddd"], EVEN, 0)]).questions[0]
    assert rank_shares(padded, "en") == {4: 1.0}
    assert rank_counts(q, "en") == {1: 1.25, 2: 0.25, 3: 0.25, 4: 1.25}


def test_at_rank_builds_what_it_says() -> None:
    for n in (3, 4, 6):
        for answer in range(n):
            for rank in range(1, n + 1):
                (question,) = quiz(
                    [(at_rank(rank, answer, n), at_rank(rank, answer, n), answer)]
                ).questions
                assert rank_shares(question, "en") == {rank: 1.0}


def test_a_quiz_with_ranks_spread_gets_no_warning() -> None:
    # 2 of 5 at rank 1 (40%, the limit itself) and 2 of 5 at rank 2.
    assert cues(spread([1, 2, 3, 1, 2])) == []
    # Equal lengths everywhere: each rank holds a quarter of every question.
    assert cues([(EVEN, EVEN, i % 4) for i in range(8)]) == []


def test_any_rank_above_40_percent_is_a_cue_not_only_the_longest() -> None:
    # The second longest in 3 of 5 (60%): the cue the issue found in two quizzes.
    (warning,) = cues(spread([2, 2, 2, 1, 3], [1, 2, 3, 4, 1]))
    assert warning == CueWarning("rank", 3, 5, locale="en", rank=2)
    assert warning.message() == (
        "the right answer is the second longest choice in 3 of 5 questions (en), over 40%; "
        "members can guess it from length"
    )
    # The shortest just as well, counted per locale.
    (warning,) = cues(spread([1, 2, 3, 4, 1], [4, 4, 4, 1, 2]))
    assert (warning.kind, warning.locale, warning.rank, warning.count) == ("rank", "id", 4, 3)


def test_ties_count_in_fractions_toward_the_limit() -> None:
    # Right answer tied for longest in 4 of 5 questions: ranks 1 and 2 hold 2 each (40%).
    tie, tie2 = ["abcd", "wxyz", "ab", "a"], ["a", "ab", "abcd", "wxyz"]
    questions = [
        (tie, tie, 0),
        (tie, tie, 1),
        (tie2, tie2, 2),
        (tie2, tie2, 3),
        (STAIRS, STAIRS, 0),
    ]
    assert cues(questions) == []
    # A fifth tie tips both ranks to 2.5 of 6 (42%).
    warnings = cues([*questions, (tie, tie, 0)])
    assert [(w.locale, w.rank, w.count, w.total) for w in warnings] == [
        ("id", 1, 2.5, 6),
        ("id", 2, 2.5, 6),
        ("en", 1, 2.5, 6),
        ("en", 2, 2.5, 6),
    ]
    assert "longest choice in 2.5 of 6 questions (en)" in warnings[2].message()


def test_small_quizzes_and_two_choice_questions_are_not_ranked() -> None:
    # Four questions all at rank 1: too few to judge (one repeat is already 50%).
    assert cues(spread([1, 1, 1, 1])) == []
    assert len(cues(spread([1, 1, 1, 1, 1]))) == 2  # five are judged, in both locales
    # Two-choice questions do not count: five of them, right answer always the longer one.
    pair = (["yes, since", "no"], ["ya, karena", "tidak"], 0)
    two = [(["yes, since", "no"], ["ya, karena", "tidak"], i % 2) for i in range(5)]
    assert all(w.kind == "slot" for w in cues(two)) or cues(two) == []
    assert cues([pair, *spread([1, 2, 3, 4])]) == []  # four ranked questions: not judged


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
    # Exactly half in one slot is within the limit; a one-question quiz is not judged.
    assert cues([(EVEN, EVEN, 1), (EVEN, EVEN, 1), (EVEN, EVEN, 0), (EVEN, EVEN, 3)]) == []
    assert cues([(EVEN, EVEN, 2)]) == []


def test_both_cues_at_once() -> None:
    questions = [(at_rank(1, 0), at_rank(1, 0), 0)] * 5
    assert [(w.kind, w.locale, w.rank, w.slot, w.count) for w in cues(questions)] == [
        ("rank", "id", 1, None, 5),
        ("rank", "en", 1, None, 5),
        ("slot", None, None, 0, 5),
    ]


# ---------------------------------------------------------------------------- the bank rule


def bank(*rank_lists: list[int]) -> list[Quiz]:
    return [quiz(spread(ranks), f"bank-{n}") for n, ranks in enumerate(rank_lists)]


def test_bank_rule_holds_each_rank_between_15_and_35_percent() -> None:
    # 20 four-choice questions, 5 per rank: 25% each.
    assert bank_cues(bank([1, 2, 3, 4] * 3, [4, 3, 2, 1] * 2)) == []
    # 3 of 20 (15%) and 7 of 20 (35%) are the limits themselves.
    assert bank_cues(bank([1, 1, 1, 2, 2, 2, 2, 2, 3, 3], [3, 3, 3, 4, 4, 4, 4, 4, 4, 4])) == []


def test_bank_rule_catches_a_rank_every_quiz_keeps_under_40_percent() -> None:
    # Each quiz has ranks 2 and 3 in 2 of 5 each (40%, allowed), but over the bank each holds
    # 40% > 35%, and rank 4 holds none.
    quizzes = bank(*[[1, 2, 2, 3, 3]] * 4)
    assert all(answer_cues(q) == [] for q in quizzes)
    found = [(w.locale, w.rank, w.count, w.total) for w in bank_cues(quizzes)]
    assert found == [
        ("en", 2, 8, 20),
        ("en", 3, 8, 20),
        ("en", 4, 0, 20),
        ("id", 2, 8, 20),
        ("id", 3, 8, 20),
        ("id", 4, 0, 20),
    ]
    (message,) = {w.message() for w in bank_cues(quizzes) if w.locale == "en" and w.rank == 2}
    assert message == (
        "over the bank's 20 questions with 4 choices (en), the right answer is the second longest "
        "choice in 8 (40%); each rank must hold 15%-35%"
    )


def test_bank_rule_groups_by_number_of_choices_and_skips_small_groups() -> None:
    # 19 four-choice questions all at rank 1: too few to judge as a bank (each quiz warns).
    quizzes = [quiz(spread([1, 2, 3, 4, 1]), "b0"), quiz(spread([1, 2, 3, 4] * 3 + [1, 2]), "b1")]
    assert bank_cues(quizzes) == []
    three = [
        (at_rank(r, i % 3, 3), at_rank(r, i % 3, 3), i % 3) for i, r in enumerate([1, 2, 3] * 7)
    ]
    assert bank_cues([quiz(three, "three")]) == []  # 7 of 21 per rank (33%) is 1/3 exactly
    lopsided = [(at_rank(1, i % 3, 3), at_rank(1, i % 3, 3), i % 3) for i in range(21)]
    found = {(w.rank, w.n_choices) for w in bank_cues([quiz(lopsided, "three")])}
    assert found == {(1, 3), (2, 3), (3, 3)}  # 100% at rank 1 (limit 47%), 0% elsewhere (20%)


# ---------------------------------------------------------------------------- the command line


def run_validate(*paths: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        # The files' cue lines only (--seeds 0): the templates have their own tests.
        [sys.executable, "-m", "bot", "validate", "--seeds", "0", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
        cwd=ROOT,
    )


def test_validate_warns_about_cues_in_other_files_and_still_succeeds(tmp_path: Path) -> None:
    cued = tmp_path / "cued.yaml"
    cued.write_text(quiz_text([(at_rank(1, 2), at_rank(1, 2), 2)] * 5), encoding="utf-8")
    clean = tmp_path / "clean.yaml"
    clean.write_text(quiz_text(spread([1, 2, 3, 4, 1]), "clean"), encoding="utf-8")
    result = run_validate(cued, clean)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        f"{cued}: warning: the right answer is the longest choice in 5 of 5 questions (id), "
        "over 40%; members can guess it from length",
        f"{cued}: warning: the right answer is the longest choice in 5 of 5 questions (en), "
        "over 40%; members can guess it from length",
        f"{cued}: warning: the right answer is choice C (answer: 2) in 5 of 5 questions; "
        "members can guess it from position",
        "OK: 2 quiz(zes), 10 questions.",
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


def test_a_cue_in_a_shipped_quiz_is_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The same rule, judged as the bank's own: file_cues treats files in the shipped folder as
    # shipped. A copy of the shipped folder with one cued quiz added stands in for it.
    shipped = tmp_path / "quizzes"
    shutil.copytree(SHIPPED_DIR, shipped)
    (shipped / "cued.yaml").write_text(
        quiz_text([(at_rank(1, i % 4), at_rank(1, i % 4), i % 4) for i in range(5)]),
        encoding="utf-8",
    )
    monkeypatch.setattr("bot.quizbank.files.SHIPPED_DIR", shipped.resolve())
    errors, warnings = file_cues([shipped])
    assert warnings == []
    assert f"{shipped / 'cued.yaml'}: error: the right answer is the longest choice in 5 of 5" in (
        "\n".join(errors)
    )
    # Validating one shipped file does not judge the bank; the whole folder does.
    alone, _ = file_cues([shipped / "cued.yaml"])
    assert all("bank's" not in line for line in alone)
    for name in ("extra-1", "extra-2", "extra-3", "extra-4"):  # 20 more questions at rank 1
        (shipped / f"{name}.yaml").write_text(
            quiz_text([(at_rank(1, i % 4), EVEN, i % 4) for i in range(5)], name), encoding="utf-8"
        )
    errors, _ = file_cues([shipped])
    assert any(
        line.startswith(f"{shipped.resolve()}: error: over the bank's") and "(en)" in line
        for line in errors
    ), errors


def test_validate_fails_on_a_cue_in_the_shipped_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The command itself, in this process, with a stand-in for the shipped folder.
    from bot.cli.main import main

    shipped = tmp_path / "quizzes"
    shipped.mkdir()
    cued = shipped / "cued.yaml"
    cued.write_text(
        quiz_text([(at_rank(2, i % 4), at_rank(2, i % 4), i % 4) for i in range(5)]),
        encoding="utf-8",
    )
    monkeypatch.setattr("bot.quizbank.files.SHIPPED_DIR", shipped.resolve())
    assert main(["validate", str(cued)]) == 1
    out, err = capsys.readouterr()
    assert (
        f"{cued}: error: the right answer is the second longest choice in 5 of 5 questions (en)"
        in out
    )
    assert "2 problem(s) found." in err  # one per locale


def test_validate_passes_the_shipped_bank_without_a_cue_line() -> None:
    result = run_validate()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in result.stdout and "warning" not in result.stdout, result.stdout


# ---------------------------------------------------------------------------- shipped quizzes


def test_every_shipped_quiz_and_the_bank_hold_the_cue_limits(shipped_bank: QuizBank) -> None:
    shipped = shipped_bank
    """The same functions `quiztutor validate` calls: no length rank above 40% in any quiz and
    locale, no slot above half, and over the bank each rank of 15-35% in each locale."""
    for quiz_ in shipped.quizzes.values():
        assert answer_cues(quiz_) == [], (quiz_.id, [c.message() for c in answer_cues(quiz_)])
    assert bank_cues(shipped.quizzes.values()) == []
    assert len(shipped.quizzes) == 6  # the bank rule has the whole shipped set to judge
