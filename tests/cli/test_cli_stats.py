"""`quiztutor stats --guild ID [--csv]` as a real subprocess on a seeded database."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from bot.common.times import utcnow
from bot.db.database import Database
from bot.quizbank import QuizBank
from tests.support.analytics import seed_class, wrong_choices
from tests.support.cli import assert_short, cli

pytestmark = pytest.mark.slow

GUILD = 123_456_789_012_345_678


async def test_stats_csv_per_question_and_per_week_and_the_plain_table(
    tmp_path: Path, db: Database, db_url: str, shipped_bank: QuizBank
) -> None:
    q1, q2, q3 = (q.id for q in shipped_bank.quiz("mixed-precision").questions[:3])
    await seed_class(db, shipped_bank, GUILD, utcnow().date(), (q1, q2, q3))
    env = {"DATABASE_URL": db_url}

    result = cli(tmp_path, "stats", "--guild", str(GUILD), "--csv", **env)
    assert result.returncode == 0, result.stderr
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == [
        "question_id",
        "quiz_id",
        "posts",
        "answered",
        "correct",
        "accuracy",
        "top_wrong_choice",
        "top_wrong_text",
        "top_wrong_count",
    ]
    w1 = wrong_choices(shipped_bank, q1)[0]
    text = shipped_bank.question(q1).choice_texts("en")[w1]
    assert rows[1] == [q1, "mixed-precision", "2", "5", "1", "0.2000", str(w1), text, "3"]
    assert [r[0] for r in rows[1:]] == [q1, q2]  # worst first; the open q3 is left out

    weeks = cli(tmp_path, "stats", "--guild", str(GUILD), "--csv", "--table", "weeks", **env)
    week_rows = list(csv.reader(io.StringIO(weeks.stdout)))
    assert week_rows[0] == ["week_start", "members", "answers", "posts"]
    assert len(week_rows) == 1 + 8
    assert sum(int(r[2]) for r in week_rows[1:]) == 4 + 3 + 1 + 1

    plain = cli(tmp_path, "stats", "--guild", str(GUILD), "--lang", "id", **env)
    assert plain.returncode == 0, plain.stderr
    lines = plain.stdout.splitlines()
    assert lines[0].startswith(f"Server {GUILD}: questions, weakest first")
    assert lines[3].split()[:5] == [q1, "mixed-precision", "5", "1", "0.2000"]
    id_text = shipped_bank.question(q1).choice_texts("id")[w1]
    assert id_text[:39] in lines[3]

    # --table without --csv: that table alone.
    only_weeks = cli(tmp_path, "stats", "--guild", str(GUILD), "--table", "weeks", **env)
    assert only_weeks.returncode == 0, only_weeks.stderr
    assert "members per week" in only_weeks.stdout
    assert "weakest first" not in only_weeks.stdout and q1 not in only_weeks.stdout

    # A server with no daily question here: a short error, not an empty file.
    other = cli(tmp_path, "stats", "--guild", "42", "--csv", **env)
    assert_short(other, 1, "no daily question was posted in server 42", "Copy Server ID")
    assert other.stdout == ""


def test_stats_errors_are_short(tmp_path: Path) -> None:
    missing = cli(tmp_path, "stats", "--guild", "5")  # host_env's database does not exist
    assert_short(missing, 2, "no database at", "DATABASE_URL")
    assert not (tmp_path / "data" / "q.db").exists()  # nothing was created
    assert_short(cli(tmp_path, "stats"), 2, "--guild")
    assert_short(cli(tmp_path, "stats", "--guild", "5", "--weeks", "0"), 2, "1 to 52")
    empty = tmp_path / "empty.db"
    empty.touch()
    no_schema = cli(tmp_path, "stats", "--guild", "5", DATABASE_URL=f"sqlite+aiosqlite:///{empty}")
    assert_short(no_schema, 2, "no quiztutor data")
