"""The async database: engine with SQLite pragmas, migrations at open, sessions, backups."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import event, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

DEFAULT_URL = "sqlite+aiosqlite:///data/quiztutor.db"
MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
BUSY_TIMEOUT_MS = 10_000


def alembic_config() -> Config:
    """Alembic configured in code: works from an installed package, no alembic.ini needed."""
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


def _set_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets readers run while the single writer commits; NORMAL is durable in WAL
    # except for the last transactions on power loss, which is fine for a quiz bot.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.close()


class Database:
    """Open with `await Database.open(url)`; every access is async (aiosqlite)."""

    def __init__(self, engine: AsyncEngine, url: str):
        self.engine = engine
        self.url = url
        self._sessions = async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)

    @classmethod
    async def open(cls, url: str = DEFAULT_URL, *, migrate: bool = True) -> Database:
        parsed = make_url(url)
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url)
        event.listen(engine.sync_engine, "connect", _set_pragmas)
        db = cls(engine, url)
        if migrate:
            await db.migrate_to("head")
        return db

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        async with self._sessions() as session:
            yield session

    async def close(self) -> None:
        await self.engine.dispose()

    # -- migrations -------------------------------------------------------------

    async def current_revision(self) -> str | None:
        async with self.engine.connect() as conn:
            return await conn.run_sync(
                lambda c: MigrationContext.configure(c).get_current_revision()
            )

    async def migrate_to(self, revision: str) -> None:
        """Upgrade or downgrade to `revision` ("head", "base" or a revision id)."""

        def run(connection: Connection) -> None:
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

        async with self.engine.begin() as conn:
            await conn.run_sync(run)

    # -- maintenance ------------------------------------------------------------

    async def integrity_check(self) -> list[str]:
        """SQLite's integrity check; an empty list means the file is sound."""
        async with self.engine.connect() as conn:
            rows = (await conn.execute(text("PRAGMA integrity_check"))).scalars().all()
        return [] if list(rows) == ["ok"] else [str(row) for row in rows]

    async def backup(self, dest_path: str | Path) -> Path:
        return await backup(self.url, dest_path)


async def backup(db_url_or_path: str | Path, dest_path: str | Path) -> Path:
    """A consistent copy via sqlite3's online backup API (safe while the bot writes)."""
    source = sqlite_path(db_url_or_path)
    dest = Path(dest_path)

    def copy() -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(source) as src, sqlite3.connect(dest) as out:
            src.backup(out)
        src.close()
        out.close()

    await asyncio.to_thread(copy)
    return dest
