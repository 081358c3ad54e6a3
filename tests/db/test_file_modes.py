"""Files the bot writes are private (the SQLite database, its WAL, its backups: mode 0600,
the folders it makes 0700), and `quiztutor doctor` warns when `.env` is open to other
users."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.cli import doctor
from bot.db.backup import backup
from bot.db.database import Database

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX file modes")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """The common default (022): files readable by everyone unless the bot says otherwise."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


async def test_the_database_and_its_backups_are_readable_by_the_bot_alone(
    tmp_path: Path, usual_umask: None
) -> None:
    path = tmp_path / "data" / "deeper" / "quiztutor.db"
    db = await Database.open(f"sqlite+aiosqlite:///{path}")
    try:
        async with db.session() as session:
            await session.exec(text("CREATE TABLE note (body TEXT)"))  # type: ignore[call-overload]
            await session.exec(text("INSERT INTO note VALUES ('members data')"))  # type: ignore[call-overload]
            await session.commit()
        made = {p.name: mode(p) for p in path.parent.iterdir() if p.name.startswith(path.name)}
        assert {path.name, f"{path.name}-wal"} <= set(made), made
        assert set(made.values()) == {0o600}, made  # the database, -wal, -shm, the lock
        assert mode(path.parent) == 0o700 and mode(path.parent.parent) == 0o700

        fresh = tmp_path / "backups" / "one.db"
        await backup(str(path), fresh)
        assert mode(fresh) == 0o600 and mode(fresh.parent) == 0o700
        # An older backup overwritten (once readable by all) is private afterwards.
        older = tmp_path / "older.db"
        await backup(str(path), older)
        older.chmod(0o644)
        await backup(str(path), older)
        assert mode(older) == 0o600
    finally:
        await db.close()


def test_doctor_warns_when_env_is_open_to_other_users(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("DISCORD_", "QUIZ_", "DEMO_", "DATABASE_", "LOG_")):
            monkeypatch.delenv(name)
    # The checks that do not concern .env (the database, the quizzes, torch) are left out.
    slow = (doctor.check_database, doctor.check_quizzes, doctor.check_torch)
    monkeypatch.setattr(doctor, "CHECKS", [c for c in doctor.CHECKS if c not in slow])
    env = tmp_path / ".env"
    env.write_text("DISCORD_TOKEN=MTIz.abc.def\n", encoding="utf-8")

    env.chmod(0o644)
    assert doctor.run_doctor() == 1
    out = capsys.readouterr().out
    assert "✓ token:" in out
    assert (
        "✗ .env: .env is open to other users of this machine (mode 0644); it holds the bot's token"
        in out
    )
    assert "fix: chmod 600 .env" in out

    env.chmod(0o600)
    assert doctor.run_doctor() == 0
    assert "✓ .env: .env is readable by its owner only" in capsys.readouterr().out
