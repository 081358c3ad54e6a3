"""The quiz bank: shipped quizzes are valid and complete; broken copies get exact messages."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli.main import main as cli_main
from bot.quizbank import Question, QuizBank, QuizFileError, display_order, parse_quiz
from bot.quizbank.export import export_bank, json_schema_text
from bot.quizbank.files import SHIPPED_DIR, load_quizzes
from experiments.catalog import get_info
from experiments.generators.registry import TEMPLATES

MP_FILE = SHIPPED_DIR / "mixed-precision.yaml"
GA_FILE = SHIPPED_DIR / "gradient-accumulation.yaml"

# The correct choice of every shipped question, as written in the file (and the seeds).
EXPECTED_ANSWERS = {
    "mp-01": 0, "mp-02": 1, "mp-03": 2, "mp-04": 3, "mp-05": 0, "mp-06": 1, "mp-08": 3,
    "ga-01": 2, "ga-02": 0, "ga-03": 3, "ga-04": 1, "ga-05": 0, "ga-06": 2, "ga-07": 1,
}  # fmt: skip


def line_of(text: str, needle: str, start: int = 1) -> int:
    """1-based number of the first line at or after `start` that contains `needle`."""
    for number, line in enumerate(text.splitlines(), start=1):
        if number >= start and needle in line:
            return number
    raise AssertionError(f"{needle!r} not found")


def problems_of(text: str) -> list[str]:
    with pytest.raises(QuizFileError) as caught:
        parse_quiz(text, "mp.yaml")
    return [str(problem) for problem in caught.value.problems]


# ---------------------------------------------------------------------------- shipped content


def test_shipped_quizzes_are_complete_in_both_languages(shipped_bank: QuizBank) -> None:
    assert set(shipped_bank.quizzes) == {path.stem for path in SHIPPED_DIR.glob("*.yaml")}
    assert {"mixed-precision", "gradient-accumulation"} <= set(shipped_bank.quizzes)
    questions = shipped_bank.all_questions()
    assert set(EXPECTED_ANSWERS) <= {q.id for q in questions}
    for question in questions:
        assert question.answer == EXPECTED_ANSWERS.get(question.id, question.answer), question.id
        for locale in ("id", "en"):
            assert len(question.choices[locale]) == 4
            # Discord button labels hold 80 characters.
            assert all(len(choice) <= 80 for choice in question.choices[locale]), question.id
            assert len(question.prompt[locale]) <= 256, question.id
            sentences = re.findall(r"[.!?](?:\s|$)", question.explanation[locale].strip())
            assert 2 <= len(sentences) <= 5, (question.id, locale)
        assert question.prompt["id"] != question.prompt["en"], question.id
        assert question.references, f"{question.id} cites no source"
        # Every seed question has a demo; newer ones name one only where it shows the point.
        assert question.demo is not None or question.id not in EXPECTED_ANSWERS, question.id
        if question.demo is not None:
            get_info(question.demo)  # every named demo exists


def test_indonesian_texts_have_no_machine_translation_slips(shipped_bank: QuizBank) -> None:
    # Literal calques from the seed file that change the meaning.
    slips = ("putus sekolah", "umpan mundur", "penskalaan kerugian", "diganti dengan akurat")
    for question in shipped_bank.all_questions():
        texts = [question.prompt["id"], question.explanation["id"], *question.choices["id"]]
        for text in texts:
            assert not any(slip in text.lower() for slip in slips), (question.id, text)


def test_validate_command_passes_on_shipped_quizzes(
    shipped_bank: QuizBank, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["validate"]) == 0
    shipped = (
        f"{len(shipped_bank.quizzes)} quiz(zes), {len(shipped_bank.all_questions())} questions"
    )
    out = capsys.readouterr().out
    assert shipped in out
    # Every template on 1,000 seeds by default (issue 23's contract).
    assert f"OK: {len(TEMPLATES)} template(s), 1000 seeds each." in out


def test_json_schema_file_is_up_to_date() -> None:
    shipped = (SHIPPED_DIR / "quiz.schema.json").read_text(encoding="utf-8")
    assert shipped == json_schema_text(), "run: quiztutor schema -o quizzes/quiz.schema.json"


# ---------------------------------------------------------------------------- broken copies


MP = MP_FILE.read_text(encoding="utf-8")


def test_missing_english_explanation() -> None:
    q2 = line_of(MP, "- id: mp-02")
    start = line_of(MP, "explanation:", q2)
    lines = MP.splitlines()
    en = line_of(MP, "      en: >-", start)
    end = line_of(MP, "    demo:", en)
    broken = "\n".join(lines[: en - 1] + lines[end - 1 :])
    assert problems_of(broken) == [
        f"mp.yaml:{start}: questions[1].explanation: missing the 'en' text (the quiz offers id, en)"
    ]


def test_answer_index_out_of_range() -> None:
    q3 = line_of(MP, "- id: mp-03")
    answer = line_of(MP, "answer: 2", q3)
    broken = MP.replace("    answer: 2\n", "    answer: 7\n", 1)
    assert problems_of(broken) == [
        f"mp.yaml:{answer}: questions[2].answer: answer 7 is out of range: choose 0 to 3"
    ]


def test_unknown_key_is_reported_not_ignored() -> None:
    demo = line_of(MP, "demo: master-weights")
    broken = MP.replace("    demo: master-weights", "    dmeo: master-weights", 1)
    assert problems_of(broken) == [f"mp.yaml:{demo}: questions[0].dmeo: unknown key 'dmeo'"]


def test_duplicate_question_id_in_one_file() -> None:
    q2 = line_of(MP, "- id: mp-02")
    broken = MP.replace("- id: mp-02", "- id: mp-01", 1)
    assert problems_of(broken) == [
        f"mp.yaml:{q2}: questions[1].id: duplicate question id 'mp-01' (also questions[0])"
    ]


def test_duplicate_question_id_across_files(tmp_path: Path) -> None:
    shutil.copy(MP_FILE, tmp_path / "a.yaml")
    ga = GA_FILE.read_text(encoding="utf-8").replace("- id: ga-03", "- id: mp-05", 1)
    (tmp_path / "b.yaml").write_text(ga, encoding="utf-8")
    quizzes, problems = load_quizzes([tmp_path])
    line = line_of(ga, "- id: mp-05")
    assert [str(p) for p in problems] == [
        f"{tmp_path / 'b.yaml'}:{line}: questions[2].id: duplicate question id 'mp-05' (also in {tmp_path / 'a.yaml'})"
    ]
    assert [q.id for q in quizzes] == ["mixed-precision"]


def test_choice_lists_of_different_lengths() -> None:
    q1 = line_of(MP, "- id: mp-01")
    choices = line_of(MP, "choices:", q1)
    broken = MP.replace(
        "        - So that the backward pass computes its gradients in FP32\n", "", 1
    )
    assert broken != MP
    assert problems_of(broken) == [
        f"mp.yaml:{choices}: questions[0].choices: every locale needs the same number of choices (id: 4, en: 3)"
    ]


def test_a_single_choice_is_not_a_question() -> None:
    text = """\
id: tiny
title: {en: Tiny}
description: {en: One question}
questions:
  - id: t-1
    prompt: {en: "Is this a question?"}
    choices:
      en: ["yes"]
    answer: 0
    explanation: {en: It is not.}
"""
    assert problems_of(text) == [
        "mp.yaml:8: questions[0].choices.en: has 1 choices; a question needs 2 to 6"
    ]


def test_unknown_demo_name() -> None:
    line = line_of(MP, "demo: loss-scaling")
    broken = MP.replace("demo: loss-scaling", "demo: warp-drive", 1)
    (problem,) = problems_of(broken)
    assert problem.startswith(
        f"mp.yaml:{line}: questions[1].demo: unknown demo 'warp-drive'; known: accumulation,"
    )


def test_missing_required_field_and_wrong_type() -> None:
    q1 = line_of(MP, "- id: mp-01")
    answer = line_of(MP, "answer: 0", q1)
    broken = MP.replace("    answer: 0\n", "    answer: first\n", 1)
    assert problems_of(broken) == [
        f"mp.yaml:{answer}: questions[0].answer: input should be a valid integer, unable to parse string as an integer"
    ]
    without_title = MP.replace(
        "title:\n  id: Kuis Pelatihan Presisi Campuran\n  en: Mixed-Precision Training Quiz\n",
        "",
        1,
    )
    assert problems_of(without_title) == ["mp.yaml:1: title: required field is missing"]


def test_malformed_yaml_reports_its_line() -> None:
    line = line_of(MP, "answer: 1")
    broken = MP.replace("    answer: 1\n", "    answer: [1\n", 1)
    (problem,) = problems_of(broken)
    assert re.match(rf"mp\.yaml:{line + 1}: not valid YAML: ", problem), problem


def test_yaml_tags_are_refused_and_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = MP.replace(
        "id: mixed-precision", f'id: !!python/object/apply:os.system ["touch {marker}"]', 1
    )
    (problem,) = problems_of(text)
    assert problem.startswith(
        "mp.yaml:1: not valid YAML: could not determine a constructor for the tag"
    )
    assert not marker.exists()


def test_oversized_file_is_refused_before_parsing() -> None:
    assert problems_of(MP + "#" * 300_000) == ["mp.yaml:1: file is larger than 256 KiB"]


def test_validate_command_prints_every_problem_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        MP.replace("    answer: 2\n", "    answer: 9\n", 1).replace("dmeo", "x"), encoding="utf-8"
    )
    missing = tmp_path / "missing.yaml"
    assert cli_main(["validate", str(broken), str(missing)]) == 1
    captured = capsys.readouterr()
    assert (
        f"{broken}:{line_of(MP, 'answer: 2')}: questions[2].answer: answer 9 is out of range"
        in captured.out
    )
    assert f"{missing}:1: file not found" in captured.err


# ---------------------------------------------------------------------------- export contract


def test_export_contract_for_all_questions(
    shipped_bank: QuizBank, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["export", "--format", "json"]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert list(exported) == ["quizzes"]
    questions = [q for quiz in exported["quizzes"] for q in quiz["questions"]]
    assert len(questions) == len(shipped_bank.all_questions())
    for quiz in exported["quizzes"]:
        assert set(quiz) == {"id", "title", "questions", "generated"}
        assert set(quiz["title"]) == {"id", "en"}
    for question in questions:
        assert set(question) == {"id", "prompt", "choices", "answer", "explanation", "demo"}
        assert question["answer"] == shipped_bank.question(question["id"]).answer
        assert question["answer"] == EXPECTED_ANSWERS.get(question["id"], question["answer"])
        for field in ("prompt", "explanation"):
            assert set(question[field]) == {"id", "en"} and all(question[field].values())
        assert len(question["choices"]["id"]) == len(question["choices"]["en"]) == 4
        assert question["demo"] is None or isinstance(question["demo"], str)


def test_export_matches_bank(shipped_bank: QuizBank) -> None:
    exported = export_bank(shipped_bank)
    first = exported["quizzes"][0]["questions"][0]
    question = shipped_bank.question(first["id"])
    assert first["choices"]["en"][first["answer"]] == question.choices["en"][question.answer]


# ---------------------------------------------------------------------------- terminal tutor


def run_play(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("lang", "score_word", "correct_word"),
    [("en", "Score", "Correct!"), ("id", "Skor", "Benar!")],
)
def test_play_a_whole_quiz_from_a_pipe(lang: str, score_word: str, correct_word: str) -> None:
    # mixed-precision: 8 written questions and 4 generated ones (played in-process).
    result = run_play(
        "--quiz", "mixed-precision", "--lang", lang, "--seed", "1", stdin="a\nb\nc\nd\n" * 3
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\n  A) ") == 12
    score = re.search(rf"{score_word}: (\d+)/12 \(\d+%\)", result.stdout)
    assert score is not None, result.stdout
    assert result.stdout.count(correct_word) == int(score.group(1))


def test_play_answers_every_question_right_when_told_the_answers(shipped_bank: QuizBank) -> None:
    # Replay the seeded shuffle to find the right letters: the score must then be full.
    import random

    from bot.cli.player import pick_questions
    from experiments.generators import generate

    rng = random.Random(7)
    letters = []
    for question in pick_questions(shipped_bank, "gradient-accumulation", None, rng, generate):
        order = display_order(question, rng)
        letters.append("ABCD"[order.index(question.answer)])
    result = run_play(
        "--quiz", "gradient-accumulation", "--seed", "7", stdin="\n".join(letters) + "\n"
    )
    assert f"Score: {len(letters)}/{len(letters)} (100%)" in result.stdout
    assert len(letters) == 11  # 8 written, 3 generated


def test_play_rejects_bad_letters_and_unknown_quiz(shipped_bank: QuizBank) -> None:
    result = run_play("--quiz", "mixed-precision", "--count", "1", "--seed", "3", stdin="z\n\nb\n")
    assert "'z' is not a choice. Type one of: A, B, C, D." in result.stdout
    assert "Score: " in result.stdout
    unknown = run_play("--quiz", "nope", "--lang", "id", stdin="")
    assert unknown.returncode == 2
    available = ", ".join(sorted(shipped_bank.quizzes))
    assert f"Tidak ada kuis 'nope'. Yang tersedia: {available}." in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_play_stops_cleanly_when_input_ends() -> None:
    result = run_play("--quiz", "mixed-precision", "--seed", "1", stdin="a\n")
    assert result.returncode == 0
    assert "Input ended before the quiz did." in result.stdout
    assert "Traceback" not in result.stderr


def test_yaml_alias_bombs_are_refused_at_once() -> None:
    levels = "".join(
        f"{name}: &{name} [{', '.join([f'*{prev}'] * 10)}]\n"
        for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
    )
    bomb = 'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]\n' + levels
    assert problems_of(bomb) == [
        "mp.yaml:2: not valid YAML: YAML aliases (*name) are not allowed in quiz files"
    ]


def test_a_question_without_a_title_keeps_the_fingerprint_it_had_before_titles(
    shipped_bank: QuizBank,
) -> None:
    """Hidden questions are kept by fingerprint: adding the optional `title` field must not
    change any existing question's (the hash of its fields without `title`, as before)."""
    import hashlib

    from bot.quizbank.bank import question_fingerprint

    def before_titles(question: Question) -> str:
        data = question.model_dump(mode="json")
        del data["title"]
        canonical = json.dumps(data, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    questions = [q for quiz in shipped_bank.quizzes.values() for q in quiz.questions]
    assert [question_fingerprint(q) for q in questions] == [before_titles(q) for q in questions]
    titled = questions[0].model_copy(update={"title": "Q1"})
    assert question_fingerprint(titled) != question_fingerprint(questions[0])
