"""Alembic environment: migrations run on the connection `Database` hands over.

Without one (alembic run by hand), the URL comes from `-x url=...` or `sqlalchemy.url`:
the bot's own async URL (`sqlite+aiosqlite:///...`, `postgresql+asyncpg://...`) is
opened with an async engine and the migrations run on its connection, under the same
lock as at bot start (see `Database.migrate_to`); a sync URL uses a sync engine.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from alembic import context
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine
from sqlmodel import SQLModel
from sqlmodel.sql.sqltypes import AutoString

from bot.db.base import UTCDateTime  # also registers the tables on SQLModel.metadata

config = context.config
target_metadata = SQLModel.metadata

ASYNC_DRIVERS = {"aiosqlite", "asyncpg"}
WORK_MEM = "64MB"
MAINTENANCE_WORK_MEM = "256MB"


def render_item(kind: str, obj: Any, autogen_context: Any) -> str | Literal[False]:
    # Revisions stay frozen: render the app's column types as plain SQLAlchemy types.
    if kind == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime()"
    if kind == "type" and isinstance(obj, AutoString):
        return f"sa.String(length={obj.length})" if obj.length else "sa.String()"
    return False


def run(connection: Any) -> None:
    if connection.dialect.name == "postgresql":
        # For this transaction only: the back-fills sort, group and index a server's whole
        # history (a million answers) in memory instead of in temporary files.
        connection.exec_driver_sql(f"SET LOCAL work_mem = '{WORK_MEM}'")
        connection.exec_driver_sql(f"SET LOCAL maintenance_work_mem = '{MAINTENANCE_WORK_MEM}'")
    # render_as_batch: SQLite cannot ALTER most things, so later revisions copy tables.
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        render_item=render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_async(url: str) -> None:
    from bot.db.database import MIGRATION_LOCK_KEY

    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                await connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY}
                )
            await connection.run_sync(run)
    finally:
        await engine.dispose()


def main() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run(connection)
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise SystemExit(
            "pass -x url=DATABASE_URL, e.g. -x url=sqlite+aiosqlite:///data/quiztutor.db"
        )
    if make_url(url).get_driver_name() in ASYNC_DRIVERS:
        asyncio.run(run_async(url))
    else:
        with create_engine(url).begin() as sync_connection:
            run(sync_connection)


main()
