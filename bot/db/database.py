"""The async database (SQLite or PostgreSQL): engine, migrations at open, sessions.

SQLite gets its PRAGMAs on every connection; PostgreSQL gets a connection pool sized
by the settings. Migrations run under a lock so several processes starting together
on a new database all come up: an advisory lock on PostgreSQL, a lock file beside
the database on SQLite.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import math
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import create_engine, event, inspect, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.common.private_files import PRIVATE_FILE, create_private
from bot.db.priority import WritePriority

if TYPE_CHECKING:  # alembic is imported only when a migration runs (see migrate_to)
    from alembic.config import Config

DEFAULT_URL = "sqlite+aiosqlite:///data/quiztutor.db"
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def head_revision() -> str:
    """The newest revision id, read from the file names (`versions/NNNN_what.py` holds
    revision "NNNN") without importing alembic: a bot whose database is already there
    never loads alembic (about 12 MiB of its memory). A test holds it equal to
    alembic's own head."""
    versions = (MIGRATIONS_DIR / "versions").glob("[0-9][0-9][0-9][0-9]_*.py")
    return max(path.name[:4] for path in versions)


HEAD = head_revision()
BUSY_TIMEOUT_MS = 10_000
# pg_advisory_xact_lock key of the migrations (the single-bigint key space; the
# per-guild settle lock uses the two-int key space, which never collides with it).
MIGRATION_LOCK_KEY = 0x5154_4D49_4752  # "QTMIGR"


@dataclass(frozen=True)
class EngineOptions:
    """Connection pool settings for a networked database (ignored for SQLite)."""

    pool_size: int = 5
    max_overflow: int = 5
    pool_timeout_s: float = 30.0
    connect_timeout_s: float = 10.0
    pre_ping: bool = True

    @classmethod
    def from_settings(cls, settings: Any) -> EngineOptions:
        return cls(
            pool_size=settings.database_pool_size,
            max_overflow=settings.database_max_overflow,
            pool_timeout_s=settings.database_pool_timeout_s,
            connect_timeout_s=settings.database_connect_timeout_s,
            pre_ping=settings.database_pool_pre_ping,
        )


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def _json_dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


# JSON columns (review cards, summaries, ...) through orjson: a settle writes thousands.
JSON_CODEC: dict[str, Any] = {"json_serializer": _json_dumps, "json_deserializer": orjson.loads}


def engine_kwargs(url: str, options: EngineOptions) -> dict[str, Any]:
    """create_async_engine arguments: PostgreSQL pools per the settings; SQLite as is."""
    if is_sqlite(url):
        return dict(JSON_CODEC)
    kwargs: dict[str, Any] = {
        **JSON_CODEC,
        "pool_size": options.pool_size,
        "max_overflow": options.max_overflow,
        "pool_timeout": options.pool_timeout_s,
        "pool_pre_ping": options.pre_ping,
    }
    if make_url(url).get_driver_name() == "asyncpg":
        kwargs["connect_args"] = {"timeout": options.connect_timeout_s}
    return kwargs


def alembic_config() -> Config:
    """Alembic configured in code: works from an installed package, no alembic.ini needed."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def sqlite_path(url_or_path: str | Path) -> Path:
    """The file behind a sqlite URL (or a plain path)."""
    if isinstance(url_or_path, Path) or "://" not in url_or_path:
        return Path(url_or_path)
    database = make_url(url_or_path).database
    if not database or database == ":memory:":
        raise ValueError(f"not a file database: {url_or_path}")
    return Path(database)


def _sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL; None for other databases and in-memory SQLite."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return None
    if parsed.database == ":memory:" or parsed.database.startswith("file:"):
        return None
    return Path(parsed.database)


def _set_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers run while the single writer commits; NORMAL is durable in WAL
    # except for the last transactions on power loss, which is fine for a quiz bot.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    try:  # the class recall's SQL (bot.learning.recall_store) needs exp() and power()
        cursor.execute("SELECT exp(0.0), power(2.0, 0.5)")
    except Exception:  # SQLite built without its math functions: Python's stand in
        dbapi_connection.create_function("exp", 1, math.exp, deterministic=True)
        dbapi_connection.create_function("power", 2, math.pow, deterministic=True)
    cursor.close()


def _stored_revision(connection: Connection) -> str | None:
    """What alembic's `get_current_revision` reads, without alembic: the one row of
    `alembic_version` (this project's history has no branches)."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    rows = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    if len(rows) > 1:
        raise RuntimeError(f"the database has several heads: {sorted(rows)}")
    return rows[0] if rows else None


class Database:
    """Open with `await Database.open(url)`; every access is async (aiosqlite)."""

    def __init__(self, engine: AsyncEngine, url: str):
        self.engine = engine
        self.url = url
        self._sessions = async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)
        # A member's writes before background work's (SQLite's one write lock).
        self.priority = WritePriority(one_writer=engine.dialect.name == "sqlite")

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @classmethod
    async def open(
        cls,
        url: str = DEFAULT_URL,
        *,
        migrate: bool = True,
        options: EngineOptions | None = None,
    ) -> Database:
        sqlite_file = _sqlite_file(url)
        if sqlite_file is not None:
            create_private(sqlite_file)  # mode 0600: members' data, readable by the bot alone
        engine = create_async_engine(url, **engine_kwargs(url, options or EngineOptions()))
        if engine.dialect.name == "sqlite":
            event.listen(engine.sync_engine, "connect", _set_pragmas)
        db = cls(engine, url)
        if migrate:
            await db.migrate_to("head")
        return db

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        async with self._sessions() as session:
            yield session

    def sync_sqlite_engine(self) -> Engine | None:
        """A synchronous engine on the same SQLite file, with the same PRAGMAs, for a
        caller that keeps its connection in one thread of its own (the answer writer);
        None for PostgreSQL and in-memory SQLite (another connection would see another
        database)."""
        if _sqlite_file(self.url) is None:
            return None
        engine = create_engine(make_url(self.url).set(drivername="sqlite"), **JSON_CODEC)
        event.listen(engine, "connect", _set_pragmas)
        return engine

    async def close(self, within_s: float = 2.0) -> None:
        """Close every connection. Connections still in use by a task that is ending are
        awaited briefly first: one left open keeps its driver thread (aiosqlite's is not
        a daemon) and with it the process alive after the bot has stopped."""
        pool = self.engine.pool
        checked_out = getattr(pool, "checkedout", None)
        if checked_out is not None and checked_out() > 0:
            loop = asyncio.get_running_loop()
            returned = asyncio.Event()

            def checked_in(*_: object) -> None:
                loop.call_soon_threadsafe(returned.set)

            event.listen(pool, "checkin", checked_in)
            try:
                deadline = loop.time() + within_s
                while checked_out() > 0 and (left := deadline - loop.time()) > 0:
                    returned.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(returned.wait(), left)
            finally:
                event.remove(pool, "checkin", checked_in)
        await self.engine.dispose()

    # -- migrations -------------------------------------------------------------

    async def current_revision(self) -> str | None:
        """The revision the database is at (alembic's version table, read in plain SQL);
        None for a database with no tables yet."""
        async with self.engine.connect() as conn:
            return await conn.run_sync(_stored_revision)

    async def migrate_to(self, revision: str) -> None:
        """Upgrade or downgrade to `revision` ("head", "base" or a revision id).

        A database already at head (every start but the first after an upgrade) is only
        read: alembic is not imported then.
        """
        target = HEAD if revision == "head" else revision
        if target != "base" and await self.current_revision() == target:
            return

        def run(connection: Connection) -> None:
            from alembic import command
            from alembic.runtime.migration import MigrationContext
            from alembic.script import ScriptDirectory

            config = alembic_config()
            config.attributes["connection"] = connection
            current = MigrationContext.configure(connection).get_current_revision()
            script = ScriptDirectory.from_config(config)
            below = (
                {rev.revision for rev in script.walk_revisions("base", current)}
                if current
                else set()
            )
            if revision == "base" or (revision in below and revision != current):
                command.downgrade(config, revision)
            else:
                command.upgrade(config, revision)

        async with self._migration_lock(), self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                # Held until this transaction ends; PostgreSQL's DDL is transactional,
                # so the next process sees either no tables or all of them.
                await conn.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY}
                )
            await conn.run_sync(run)

    @asynccontextmanager
    async def _migration_lock(self) -> AsyncIterator[None]:
        """SQLite: an exclusive lock on a file beside the database, for the migration.

        SQLite runs DDL outside the driver's transaction, so two processes migrating one
        new file at once would both create tables; the second waits here instead, then
        finds the schema at head. The file stays (empty); it is only ever locked.
        """
        sqlite_file = _sqlite_file(self.url)
        if sqlite_file is None:
            yield
            return
        lock_path = sqlite_file.with_name(sqlite_file.name + ".migrate-lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
        try:
            # flock blocks: wait in a thread so the event loop keeps running.
            await asyncio.to_thread(fcntl.flock, fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    # -- maintenance ------------------------------------------------------------

    async def integrity_check(self) -> list[str]:
        """Problems found; an empty list means the database is sound.

        SQLite: `PRAGMA integrity_check` over the whole file. PostgreSQL checks its own
        pages; what is left to look at is an index an interrupted build left invalid.
        """
        async with self.engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                rows = (await conn.execute(text("PRAGMA integrity_check"))).scalars().all()
                return [] if list(rows) == ["ok"] else [str(row) for row in rows]
            invalid = await conn.execute(
                text("SELECT indexrelid::regclass::text FROM pg_index WHERE NOT indisvalid")
            )
            return [f"index {name} is invalid (REINDEX it)" for name in invalid.scalars()]
