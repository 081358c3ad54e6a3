"""Alembic environment: migrations run on the connection `Database` hands over.

Without one (e.g. `alembic -x url=...` by hand) a sync sqlite engine is created.
"""

from __future__ import annotations

from typing import Any, Literal

from alembic import context
from sqlalchemy import create_engine
from sqlmodel import SQLModel
from sqlmodel.sql.sqltypes import AutoString

from bot.storage.models import UTCDateTime  # also registers the tables on SQLModel.metadata

config = context.config
target_metadata = SQLModel.metadata


def render_item(kind: str, obj: Any, autogen_context: Any) -> str | Literal[False]:
    # Revisions stay frozen: render the app's column types as plain SQLAlchemy types.
    if kind == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime()"
    if kind == "type" and isinstance(obj, AutoString):
        return f"sa.String(length={obj.length})" if obj.length else "sa.String()"
    return False


def run(connection: Any) -> None:
    # render_as_batch: SQLite cannot ALTER most things, so later revisions copy tables.
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        render_item=render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    run(connection)
else:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise SystemExit("pass -x url=sqlite:///path/to.db")
    with create_engine(url.replace("+aiosqlite", "")).begin() as sync_connection:
        run(sync_connection)
