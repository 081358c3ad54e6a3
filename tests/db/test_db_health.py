"""Database health per backend: bad DATABASE_URLs, doctor's report, backups, no password
ever printed. Tests using `db_url` run on the selected backend (QUIZTUTOR_TEST_DB)."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy.engine import make_url

from bot.common.errors import SetupError
from bot.common.redact import redact_text
from bot.db.backup import backup
from bot.db.database import Database, alembic_config
from bot.db.health import check_url, diagnose, scrub
from testkit.processes import ROOT
from testkit.standin.server import FakeDiscord

# Real subprocesses (bot processes, the CLI, torch workers): left out by -m 'not slow'.
pytestmark = pytest.mark.slow

SECRET = "hunter2-s3cret"

HEAD = ScriptDirectory.from_config(alembic_config()).get_current_head()


def with_password(url: str) -> str:
    """The URL with a password (the test server trusts local logins, so it still works)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return url
    return parsed.set(password=SECRET).render_as_string(hide_password=False)


# -- DATABASE_URL ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "message", "fix"),
    [
        ("not a url", "not a database URL", "sqlite+aiosqlite:///"),
        ("sqlite:///x.db", "uses the driver pysqlite", "sqlite+aiosqlite://"),
        (f"postgresql://qt:{SECRET}@db/qt", "uses the driver psycopg;", "postgresql+asyncpg://"),
        ("mysql+aiomysql://qt@db/qt", "runs on SQLite or PostgreSQL", "postgresql+asyncpg://"),
        ("postgresql+asyncpg:///qt", "names no host", "postgresql+asyncpg://"),
    ],
)
def test_unusable_urls_say_what_to_write(url: str, message: str, fix: str) -> None:
    with pytest.raises(SetupError) as caught:
        check_url(url)
    assert message in caught.value.message and fix in caught.value.fix
    assert SECRET not in caught.value.message + caught.value.fix


def test_postgres_url_without_asyncpg_says_to_install_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "asyncpg" else real(name)
    )
    with pytest.raises(SetupError) as caught:
        check_url(f"postgresql+asyncpg://qt:{SECRET}@db/qt")
    assert "needs the asyncpg package" in caught.value.message
    assert caught.value.fix == "pip install 'quiztutor[postgres]'"
    assert SECRET not in caught.value.message


def test_sqlite_locations_that_cannot_hold_a_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data").write_text("not a folder")
    with pytest.raises(SetupError) as caught:
        check_url(f"sqlite+aiosqlite:///{tmp_path / 'data' / 'quiztutor.db'}")
    assert "is a file" in caught.value.message
    with pytest.raises(SetupError) as caught:
        check_url(f"sqlite+aiosqlite:///{tmp_path}")
    assert "is a folder" in caught.value.message
    # Permissions as another user sees them (tests may run as root, who may write anywhere).
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(SetupError) as caught:
        check_url(f"sqlite+aiosqlite:///{tmp_path / 'new' / 'q.db'}")
    assert "cannot be written" in caught.value.message


def test_redact_hides_the_password_even_when_the_url_does_not_parse() -> None:
    url = f"postgresql+asyncpg://qt:{SECRET}@db:5432/qt"
    assert redact_text(url) == "postgresql+asyncpg://qt:***@db:5432/qt"
    assert SECRET not in redact_text(f"nonsense://qt:{SECRET}@db/qt ?")
    assert scrub(f"failed for {SECRET}", url) == "failed for ***"


# -- doctor, per backend -----------------------------------------------------------------


async def test_doctor_reports_kind_revision_and_integrity(db_url: str) -> None:
    url = with_password(db_url)
    kind = "SQLite" if db_url.startswith("sqlite") else "PostgreSQL"
    fresh = await asyncio.to_thread(diagnose, url)
    if kind == "SQLite":
        assert fresh.ok and "does not exist yet" in fresh.detail
    else:  # an empty database on a server: reachable, not migrated
        assert not fresh.ok and fresh.detail == f"schema at revision None, code expects {HEAD}"
    await (await Database.open(url)).close()
    found = await asyncio.to_thread(diagnose, url)
    assert found.ok, found
    assert found.detail.startswith(f"{kind} ") and f"at revision {HEAD}" in found.detail
    assert SECRET not in found.detail


def test_doctor_on_an_unreachable_server_fails_without_the_password() -> None:
    found = diagnose(f"postgresql+asyncpg://qt:{SECRET}@127.0.0.1:1/qt")
    assert not found.ok
    assert found.detail.startswith("Cannot open the database postgresql+asyncpg://qt:***@")
    assert "psql 'postgresql://qt:***@127.0.0.1:1/qt'" in found.fix
    assert SECRET not in found.detail + found.fix


async def test_run_with_an_unreachable_database_exits_with_one_line_and_no_password(
    discord_fake: FakeDiscord, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "SHARD_"))}
    env.update(discord_fake.env())
    env.update(
        DATABASE_URL=f"postgresql+asyncpg://qt:{SECRET}@127.0.0.1:1/qt",
        DEMO_WORKER="false",
        LOG_LEVEL="INFO",
        PYTHONPATH=str(ROOT),
    )
    # Async: the stand-in answers the bot's login from this test's event loop.
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "run",
        cwd=tmp_path,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    raw, _ = await asyncio.wait_for(proc.communicate(), 60)
    out = raw.decode(errors="replace")
    assert proc.returncode == 1, out
    assert "error: Cannot open the database postgresql+asyncpg://qt:***@127.0.0.1:1/qt" in out
    assert "Traceback" not in out
    assert SECRET not in out


@pytest.mark.parametrize("url", ["sqlite:///data/q.db", "sqlite+aiosqlite:///{tmp}/data/q.db"])
def test_run_refuses_a_bad_database_url_before_creating_anything(url: str, tmp_path: Path) -> None:
    (tmp_path / "data").write_text("a file where the folder should be")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "SHARD_"))}
    env.update(
        DATABASE_URL=url.format(tmp=tmp_path), DISCORD_TOKEN="MTIz.abc.def", PYTHONPATH=str(ROOT)
    )
    done = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("error: "), done.stderr
    assert lines[1].startswith("fix: ")
    assert (tmp_path / "data").read_text() == "a file where the folder should be"


# -- backups -----------------------------------------------------------------------------


async def test_backup_per_backend(db_url: str, tmp_path: Path) -> None:
    url = with_password(db_url)
    await (await Database.open(url)).close()
    dest = tmp_path / "backups" / "copy.db"
    if url.startswith("sqlite"):
        assert await backup(url, dest) == dest
        with sqlite3.connect(dest) as copy:
            assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        copy.close()
        return
    with pytest.raises(SetupError) as caught:
        await backup(url, dest)
    parsed = make_url(db_url)
    assert "is a PostgreSQL database: back it up with pg_dump" in caught.value.message
    assert caught.value.fix == (
        f"pg_dump --format=custom --file='{dest}' "
        f"'postgresql://{parsed.username}:***@{parsed.host}:{parsed.port}/{parsed.database}'"
        " (the password from PGPASSWORD or ~/.pgpass)"
    )
    assert SECRET not in caught.value.message + caught.value.fix
    assert not dest.exists()


@pytest.mark.sqlite_only
async def test_backup_refuses_targets_that_would_lose_data(db_url: str, tmp_path: Path) -> None:
    await (await Database.open(db_url)).close()
    source = Path(str(make_url(db_url).database))
    refusals: dict[str, Any] = {}
    for name, target in {
        "itself": source,
        "a text file": tmp_path / "notes.txt",
        "under a file": tmp_path / "notes.txt" / "copy.db",
    }.items():
        (tmp_path / "notes.txt").write_text("keep me")
        with pytest.raises(SetupError) as caught:
            await backup(db_url, target)
        refusals[name] = caught.value.message
    assert "is the database itself" in refusals["itself"]
    assert "is not a SQLite database" in refusals["a text file"]
    assert "cannot be written" in refusals["under a file"]
    assert (tmp_path / "notes.txt").read_text() == "keep me"
    with sqlite3.connect(source) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()


async def test_alembic_by_hand_with_the_bots_async_url(db_url: str, tmp_path: Path) -> None:
    """`alembic upgrade head` as an operator runs it, given DATABASE_URL as it is."""
    ini = tmp_path / "alembic.ini"
    ini.write_text(f"[alembic]\nscript_location = {ROOT / 'bot' / 'db' / 'migrations'}\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for command in (["upgrade", "head"], ["downgrade", "base"], ["upgrade", "head"]):
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "alembic",
            "-c",
            str(ini),
            "-x",
            f"url={db_url}",
            *command,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        out, _ = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 0, out.decode(errors="replace")
    db = await Database.open(db_url, migrate=False)
    try:
        assert await db.current_revision() == HEAD
    finally:
        await db.close()
