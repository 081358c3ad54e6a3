"""The database the tests run on: SQLite files (the default) or a PostgreSQL server.

    QUIZTUTOR_TEST_DB=postgres \\
    QUIZTUTOR_TEST_PG_URL=postgresql+asyncpg://postgres@127.0.0.1:5432/postgres \\
    python -m pytest -q

runs the tests that touch the database (those using the `db_url` fixture, directly or
through `db`, `open_db`, `start_bot`, ...) against that server. The URL is an admin
connection on a server someone else started (`.ci/run` starts a throwaway one); this
plugin starts nothing. Each test gets a fresh, empty database of its own (CREATE
DATABASE, ~25 ms), migrated by the code under test exactly like a new SQLite file, and
dropped afterwards. Tests marked `sqlite_only` (PRAGMAs, file backups) and tests that
touch no database are deselected on that run; pytest reports how many.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import sqlite3
import threading
import uuid
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy.engine import make_url

BACKEND = os.environ.get("QUIZTUTOR_TEST_DB", "sqlite").strip().lower() or "sqlite"
PG_URL = os.environ.get("QUIZTUTOR_TEST_PG_URL", "")
BACKENDS = ("sqlite", "postgres")

T = TypeVar("T")
_RUN = uuid.uuid4().hex[:8]
_counter = itertools.count(1)


def on_postgres() -> bool:
    return BACKEND == "postgres"


def _in_thread(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from sync code, even inside a running event loop."""
    result: list[T] = []
    error: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(coro))
        except BaseException as exc:
            error.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if error:
        raise error[0]
    return result[0]


def _asyncpg_dsn(url: str) -> str:
    """A libpq-style DSN of a SQLAlchemy URL (asyncpg takes no '+driver')."""
    parsed = make_url(url).set(drivername="postgresql")
    return parsed.render_as_string(hide_password=False)


async def _admin(sql: str, admin_url: str = "") -> None:
    import asyncpg

    conn = await asyncpg.connect(_asyncpg_dsn(admin_url or PG_URL))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def create_pg_database(admin_url: str = "", template: str | None = None) -> str:
    """A new database on the test server (or `admin_url`'s): empty, or a copy of the
    database `template` (which nobody may be connected to); its async URL."""
    name = f"qt_{_RUN}_{next(_counter)}"
    copy = f' TEMPLATE "{template}"' if template else ""
    _in_thread(_admin(f'CREATE DATABASE "{name}"{copy}', admin_url))
    server = make_url(admin_url or PG_URL)
    return server.set(drivername="postgresql+asyncpg", database=name).render_as_string(
        hide_password=False
    )


def drop_pg_database(url: str) -> None:
    name = make_url(url).database
    admin = make_url(url).set(database="postgres").render_as_string(hide_password=False)
    # FORCE: a bot subprocess killed mid-test may still hold connections.
    _in_thread(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', admin))


def new_database_url(tmp_path: Path, name: str = "quiztutor.db") -> str:
    """A database nobody has opened yet: a file under tmp_path, or a new PG database."""
    if on_postgres():
        return create_pg_database()
    return f"sqlite+aiosqlite:///{tmp_path / name}"


def dispose_database_url(url: str) -> None:
    if make_url(url).get_backend_name() == "postgresql":
        drop_pg_database(url)


async def _pg_rows(url: str, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    import asyncpg

    conn = await asyncpg.connect(_asyncpg_dsn(url))
    try:
        # asyncpg numbers its placeholders: write `?` in tests, as for sqlite3.
        for index in range(1, len(params) + 1):
            sql = sql.replace("?", f"${index}", 1)
        return [tuple(record) for record in await conn.fetch(sql, *params)]
    finally:
        await conn.close()


def db_rows(url: str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """A plain read, from outside, of a database another process writes (either backend)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        assert parsed.database
        with sqlite3.connect(parsed.database, timeout=10) as conn:
            rows = conn.execute(sql, params).fetchall()
        conn.close()
        return rows
    return _in_thread(_pg_rows(url, sql, params))
