"""The database's clock: one time for every process on one database.

Deadlines that members race against (a live question's) are kept and checked by the
database's clock, read inside the transaction that decides, so neither a member's
client nor the clock of whichever bot process handles a press can move them.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel.ext.asyncio.session import AsyncSession

# SQLite: milliseconds; PostgreSQL: microseconds, the time of this statement (not of the
# transaction's start, as now() would be).
_SQLITE_NOW = text("SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')")
_POSTGRES_NOW = text("SELECT clock_timestamp()")


async def db_now(session: AsyncSession | AsyncConnection) -> datetime:
    """The database's current time, as an aware UTC datetime."""
    conn = await session.connection() if isinstance(session, AsyncSession) else session
    if conn.dialect.name == "sqlite":
        value = (await conn.execute(_SQLITE_NOW)).scalar_one()
        return datetime.fromisoformat(str(value)).replace(tzinfo=UTC)
    value = (await conn.execute(_POSTGRES_NOW)).scalar_one()
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)


def db_now_sync(conn: Connection) -> datetime:
    """`db_now` on a synchronous connection (a writer's own thread, `run_sync`)."""
    if conn.dialect.name == "sqlite":
        value = conn.execute(_SQLITE_NOW).scalar_one()
        return datetime.fromisoformat(str(value)).replace(tzinfo=UTC)
    value = conn.execute(_POSTGRES_NOW).scalar_one()
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
