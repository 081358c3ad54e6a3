"""Operations: migrations from every revision, `quiztutor backup` while the bot writes and
restore, `quiztutor doctor`, and JSON logs that trace an error to a guild and a click.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import shutil
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlmodel import SQLModel

from bot.cli import doctor
from bot.cli.logs import setup_logging
from bot.daily import configs_store
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.db.database import HEAD, Database, alembic_config
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.daily import (
    post_todays_question,
    started,
)
from tests.support.db import table_names

ROOT = Path(__file__).resolve().parents[2]
WAIT = 20.0

SCRIPT = ScriptDirectory.from_config(alembic_config())
# Oldest first; a new file in bot/db/migrations/versions is picked up without editing this test.
REVISIONS = [r.revision for r in reversed(list(SCRIPT.walk_revisions("base", "heads")))]


# -- migrations ---------------------------------------------------------------------------


async def schema_diffs(db: Database) -> list[Any]:
    async with db.engine.connect() as conn:
        return await conn.run_sync(
            lambda c: compare_metadata(MigrationContext.configure(c), SQLModel.metadata)
        )


def test_revisions_form_one_line_of_history() -> None:
    assert REVISIONS, "no migrations found"
    assert len(SCRIPT.get_heads()) == 1, f"several heads: {SCRIPT.get_heads()}"
    # The bot's own head (read from the file names, without alembic) is alembic's.
    assert HEAD == SCRIPT.get_current_head()


OPEN_AND_LIST = """
import asyncio, sys
from bot.db.database import Database

async def main():
    db = await Database.open(sys.argv[1])
    print(await db.current_revision())
    await db.close()

asyncio.run(main())
print(sorted(m for m in sys.modules if m.split('.')[0] in ('alembic', 'mako')))
"""


async def test_a_database_at_head_is_opened_without_loading_alembic(db_url: str) -> None:
    """Alembic (about 12 MiB of the bot's memory) is loaded only when a migration runs."""
    db = await Database.open(db_url)  # migrates to head: alembic in this process only
    await db.close()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", OPEN_AND_LIST, db_url, cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()[-2000:]
    assert out.decode().split("\n")[:2] == [HEAD, "[]"]


@pytest.mark.parametrize("start", ["empty", *REVISIONS])
async def test_upgrade_to_head_from_every_revision_and_round_trip(start: str, db_url: str) -> None:
    db = await Database.open(db_url, migrate=False)
    try:
        if start != "empty":
            await db.migrate_to(start)
            assert await db.current_revision() == start
        await db.migrate_to("head")
        assert await db.current_revision() == SCRIPT.get_current_head()
        assert await schema_diffs(db) == []
        # Down one revision at a time to base, then up again: every downgrade works.
        for revision in reversed(REVISIONS):
            down = SCRIPT.get_revision(revision).down_revision
            await db.migrate_to(down if isinstance(down, str) else "base")
        assert await db.current_revision() is None
        assert await table_names(db) <= {"alembic_version"}
        await db.migrate_to("head")
        assert await schema_diffs(db) == []
        assert await db.integrity_check() == []
    finally:
        await db.close()


# -- backup and restore ------------------------------------------------------------------


def sqlite_count(path: Path, sql: str) -> int:
    with sqlite3.connect(path) as conn:
        value = int(conn.execute(sql).fetchone()[0])
    conn.close()
    return value


@pytest.mark.sqlite_only
async def test_backup_while_the_bot_writes_then_restore(
    discord_fake: FakeDiscord, start_bot: StartBot, tmp_path: Path
) -> None:
    fake = discord_fake
    db_path = tmp_path / "quiztutor.db"
    copy = tmp_path / "backups" / "copy.db"
    async with start_bot() as bot:
        jobs, message, _post, (n, _, _) = await post_todays_question(fake, bot)
        seen = jobs.reactions.seen.count

        backup_done = asyncio.Event()
        written = 0

        async def write_until_backed_up() -> None:
            # One committed answer after another (new members joining) while the backup runs.
            nonlocal written
            while not backup_done.is_set():
                member = fake.add_user(f"m{written:05d}")
                fake.add_member(fake.guild, member)
                await fake.react(message, member, ANSWER_EMOJI[written % n])
                await asyncio.wait_for(jobs.reactions.wait_seen(seen + written + 1), WAIT)
                written += 1

        writing = asyncio.create_task(write_until_backed_up())
        # `quiztutor backup` is its own process, as an operator runs it next to the bot.
        env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{db_path}"}
        backup = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "backup",
            str(copy),
            cwd=tmp_path,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(backup.communicate(), WAIT)
        backup_done.set()
        await writing
        assert backup.returncode == 0, err.decode()
        assert f"Backed up {db_path} to {copy}" in out.decode()
        assert written > 0
        live_answers = sqlite_count(db_path, "SELECT COUNT(*) FROM daily_answer")
        assert live_answers == written

    # The copy is a consistent database on its own (no -wal needed) at the head revision.
    with sqlite3.connect(copy) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        revision = conn.execute("SELECT version_num FROM alembic_version").fetchall()
        copied_answers = conn.execute("SELECT COUNT(*) FROM daily_answer").fetchone()[0]
        assert conn.execute("SELECT COUNT(*) FROM guild_daily_config").fetchone()[0] == 1
    conn.close()
    assert revision == [(SCRIPT.get_current_head(),)]
    assert 0 <= copied_answers <= written

    # Restore = the bot stopped, the copy put back (with the old WAL files removed).
    restore(copy, db_path)
    async with start_bot(sync=False) as bot:
        jobs = await started(bot)
        assert await bot.services.db.integrity_check() == []
        assert (await configs_store.get(bot.services.daily.db, fake.guild.id)) is not None
        assert sqlite_count(db_path, "SELECT COUNT(*) FROM daily_post") == 1
        # Reactions newer than the copy are read back from Discord at start.
        assert sqlite_count(db_path, "SELECT COUNT(*) FROM daily_answer") == written
        status = await fake.slash(fake.admin, "daily status")
        assert str(message.id) in status.text  # the open question survived the restore


def restore(copy: Path, db_path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(copy, db_path)


def test_backup_without_a_database_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.cli.main import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'missing.db'}")
    assert main(["backup", str(tmp_path / "out.db")]) == 2
    assert not (tmp_path / "out.db").exists()


# -- doctor ------------------------------------------------------------------------------


@pytest.fixture
def doctor_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clean host: no .env, a valid-looking token, a database path in tmp."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("DISCORD_", "QUIZ_", "DEMO_", "DATABASE_", "LOG_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("DISCORD_TOKEN", "MTIz.abc.def")
    db_path = tmp_path / "q.db"
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{db_path}")
    return db_path


@pytest.fixture
def no_torch_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    # The failing cases are about other checks; the real torch probe runs once below.
    def fake_torch(settings: Any) -> doctor.Check:
        return doctor.Check("torch", True, "skipped in this test")

    monkeypatch.setattr(doctor, "CHECKS", [*doctor.CHECKS[:-1], fake_torch])


def test_doctor_says_what_to_fix(
    doctor_env: Path,
    no_torch_probe: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A missing token.
    monkeypatch.delenv("DISCORD_TOKEN")
    assert doctor.run_doctor() == 1
    out = capsys.readouterr().out
    assert "✗ token: DISCORD_TOKEN is not set" in out
    assert "fix: create a bot at https://discord.com/developers/applications" in out
    monkeypatch.setenv("DISCORD_TOKEN", "MTIz.abc.def")

    # A broken quiz folder.
    broken = tmp_path / "quizzes"
    broken.mkdir()
    (broken / "bad.yaml").write_text("id: x\ntitle: [unclosed\n", encoding="utf-8")
    monkeypatch.setenv("QUIZ_DIRS", json.dumps([str(broken)]))
    assert doctor.run_doctor() == 1
    out = capsys.readouterr().out
    assert "✗ quizzes:" in out and "bad.yaml" in out
    assert "fix: run `quiztutor validate` and fix the files" in out
    monkeypatch.delenv("QUIZ_DIRS")

    # A database at an older revision (base: before 0001).
    async def old_db() -> None:
        db = await Database.open(f"sqlite+aiosqlite:///{doctor_env}")
        await db.migrate_to("base")
        await db.close()

    asyncio.run(old_db())
    assert doctor.run_doctor() == 1
    out = capsys.readouterr().out
    assert f"✗ database: schema at revision None, code expects {SCRIPT.get_current_head()}" in out
    assert "fix: start the bot once: migrations run at start" in out
    assert "1 check(s) need attention." in out


def test_doctor_all_good_exits_0(doctor_env: Path) -> None:
    async def fresh_db() -> None:
        await (await Database.open(f"sqlite+aiosqlite:///{doctor_env}")).close()

    asyncio.run(fresh_db())
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "bot", "doctor"],
        cwd=doctor_env.parent,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "✓ token" in done.stdout and "✓ database" in done.stdout
    assert "✓ quizzes" in done.stdout and "✓ torch" in done.stdout
    assert done.stdout.rstrip().endswith("All good.")


# -- logs --------------------------------------------------------------------------------


@pytest.fixture
def json_logs() -> Iterator[io.StringIO]:
    """LOG_FORMAT=json as `quiztutor run` sets it up, its handler writing to a buffer;
    pytest's own handlers are restored after."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    setup_logging("INFO", "json")
    [handler] = root.handlers
    assert isinstance(handler, logging.StreamHandler)
    buffer = io.StringIO()
    handler.setStream(buffer)
    try:
        yield buffer
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


async def test_unhandled_command_error_logs_one_json_line_with_guild_and_interaction(
    discord_fake: FakeDiscord,
    start_bot: StartBot,
    json_logs: io.StringIO,
) -> None:
    fake = discord_fake
    member = fake.users_list[0]
    async with start_bot() as bot:

        async def broken_start(*args: Any, **kwargs: Any) -> None:
            raise RuntimeError("database on fire")

        bot.services.sessions.start = broken_start  # type: ignore[method-assign]
        res = await fake.slash(member, "quiz start", topic="mixed-precision")
        assert res.ephemeral and res.content.startswith("⚠️ ")
        assert "database on fire" not in res.content  # no internals to the member
    lines = [line for line in json_logs.getvalue().splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]  # every line is one JSON object
    errors = [e for e in entries if e["level"] == "ERROR"]
    assert len(errors) == 1, errors
    [error] = errors
    assert error["guild_id"] == fake.guild.id
    assert error["interaction_id"] == res.interaction.id
    assert error["user_id"] == member.id and error["command"] == "quiz start"
    assert "RuntimeError: database on fire" in error["exception"]
