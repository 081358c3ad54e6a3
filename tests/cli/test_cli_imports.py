"""`quiztutor import`, `quiztutor export --format gift` and `quiztutor reports` as a host
runs them (subprocesses)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
import yaml

from bot.community.reports_store import add_report
from bot.db.database import Database
from bot.quizbank import parse_quiz
from bot.quizbank.files import SHIPPED_DIR
from tests.support.cli import assert_short, cli
from tests.support.db import NOW

pytestmark = pytest.mark.slow

GIFT = """\
$CATEGORY: Week 3
::w3-01:: Which format has the larger range? {=bf16 ~fp16}

::tf:: fp16 has 10 mantissa bits. {T}
"""


def test_import_prints_or_writes_the_quiz_file_and_lists_what_it_skipped(tmp_path: Path) -> None:
    (tmp_path / "week.gift").write_text(GIFT, encoding="utf-8")
    shown = cli(tmp_path, "import", "week.gift")
    assert shown.returncode == 3, shown.stderr  # imported, and something was skipped
    data = yaml.safe_load(shown.stdout)
    assert data["id"] == "week-3" and data["questions"][0]["untranslated"] == ["id"]
    assert "week.gift:4: skipped: a true/false question" in shown.stderr
    assert "imported 1 question(s) from gift into stdout (quiz id week-3; id copied from en" in (
        shown.stderr
    )

    written = cli(
        tmp_path, "import", "week.gift", "--lang", "id", "--id", "minggu-3", "-o", "w.yaml"
    )
    assert written.returncode == 3, written.stderr
    quiz = parse_quiz((tmp_path / "w.yaml").read_text(encoding="utf-8"))
    assert quiz.id == "minggu-3" and quiz.questions[0].untranslated == ["en"]
    checked = cli(tmp_path, "validate", "w.yaml")
    assert checked.returncode == 0
    assert "w.yaml: warning: 1 question(s) not translated to 'en'" in checked.stdout


def test_a_malformed_file_imports_nothing_and_says_where(tmp_path: Path) -> None:
    (tmp_path / "bad.csv").write_text("prompt,choice_a,choice_b,answer,explanation\nQ,x,y,C,E\n")
    result = cli(tmp_path, "import", "bad.csv", "-o", "out.yaml")
    assert result.returncode == 1
    assert result.stdout == (
        "bad.csv:1: no multiple-choice question to import\n"
        "bad.csv:2: skipped: answer 'C' must be one of the letters AB\n"
    )
    assert "nothing was imported" in result.stderr
    assert not (tmp_path / "out.yaml").exists()
    (tmp_path / "latin1.csv").write_bytes("prompt,choice_a\nCaf\xe9\n".encode("latin-1"))
    assert_short(cli(tmp_path, "import", "latin1.csv"), 2, "is not UTF-8 text")
    assert_short(cli(tmp_path, "import", "missing.gift"), 2, "cannot read missing.gift")
    (tmp_path / "q.yaml").write_text("id: x\n")
    assert_short(cli(tmp_path, "import", "q.yaml"), 2, "looks like a quiz file already")


PARTLY_BAD = f"""\
::Good:: Which format has the larger range? {{=bf16 ~fp16}}

::Long:: Which? {{=x ~{"y" * 206}}}

::Good:: Which has more mantissa bits? {{=fp16 ~bf16}}
"""


def test_good_questions_import_and_strict_imports_nothing(tmp_path: Path) -> None:
    (tmp_path / "part.gift").write_text(PARTLY_BAD, encoding="utf-8")
    shown = cli(tmp_path, "import", "part.gift", "-o", "part.yaml")
    assert shown.returncode == 3, shown.stderr
    assert "part.gift:3: skipped: choice B is 206 characters; the limit is 200" in shown.stderr
    assert "part.gift:5: note: another question is named 'Good': this one is 'Good (2)'" in (
        shown.stderr
    )
    quiz = parse_quiz((tmp_path / "part.yaml").read_text(encoding="utf-8"))
    assert [q.title for q in quiz.questions] == ["Good", "Good (2)"]

    everything = cli(tmp_path, "import", "part.gift", "--strict", "-o", "strict.yaml")
    assert everything.returncode == 1
    assert everything.stdout == "part.gift:3: choice B is 206 characters; the limit is 200\n"
    assert not (tmp_path / "strict.yaml").exists()

    (tmp_path / "fine.gift").write_text("::a:: Which? {=x ~y}\n", encoding="utf-8")
    assert cli(tmp_path, "import", "fine.gift", "--strict").returncode == 0


def test_export_to_gift_then_import_gives_the_same_questions(tmp_path: Path) -> None:
    shipped = SHIPPED_DIR / "low-precision-formats.yaml"
    exported = cli(tmp_path, "export", "--format", "gift", "--lang", "id", str(shipped))
    assert exported.returncode == 0, exported.stderr
    assert "\\:" in exported.stdout or "\\=" in exported.stdout  # escapes were needed
    (tmp_path / "formats.gift").write_text(exported.stdout, encoding="utf-8")
    back = cli(tmp_path, "import", "formats.gift", "--lang", "id", "-o", "back.yaml")
    assert back.returncode == 0, back.stderr
    before = parse_quiz(shipped.read_text(encoding="utf-8"))
    after = parse_quiz((tmp_path / "back.yaml").read_text(encoding="utf-8"))
    assert after.id == before.id
    assert [
        (q.id, q.prompt["id"], q.choices["id"], q.answer, q.explanation["id"])
        for q in after.questions
    ] == [
        (q.id, q.prompt["id"], q.choices["id"], q.answer, q.explanation["id"])
        for q in before.questions
    ]


def test_reports_needs_a_database_with_the_reports(tmp_path: Path) -> None:
    result = cli(tmp_path, "reports")
    assert_short(result, 2, "no database at")


async def test_reports_add_up_every_servers_reports_per_question(
    db: Database, db_url: str, tmp_path: Path
) -> None:
    for guild_id, user_id, reason, question_id in [
        (1, 10, "wrong_answer", "mp-01"),
        (2, 11, "wrong_answer", "mp-01"),
        (2, 12, "typo", "mp-01"),
        (2, 13, "unclear", "custom-1"),
    ]:
        await add_report(
            db,
            guild_id=guild_id,
            question_id=question_id,
            user_id=user_id,
            reason=reason,
            note="see <@1>" if user_id == 12 else None,
            fingerprint="f",
            now=NOW,
        )
    result = cli(tmp_path, "reports", "--csv", DATABASE_URL=db_url)
    assert result.returncode == 0, result.stderr
    # Newest report first; equal times (here) by question id.
    other, row = list(csv.DictReader(io.StringIO(result.stdout)))
    assert (other["question_id"], other["quiz_id"], other["shipped"]) == ("custom-1", "", "no")
    assert row["question_id"] == "mp-01"
    assert (row["quiz_id"], row["shipped"], row["servers"], row["total"]) == (
        "mixed-precision",
        "yes",
        "2",
        "3",
    )
    assert (row["wrong_answer"], row["typo"], row["note"]) == ("2", "1", "see <@1>")
    one = cli(tmp_path, "reports", "--guild", "1", DATABASE_URL=db_url)
    assert one.returncode == 0
    lines = one.stdout.splitlines()
    assert lines[0].split()[:3] == ["question_id", "quiz_id", "shipped"]
    assert len(lines) == 3 and "mp-01" in lines[2]
    none = cli(tmp_path, "reports", "--guild", "12345", DATABASE_URL=db_url)
    assert none.stdout == "No question was reported in server 12345.\n"
