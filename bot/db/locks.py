"""Per-server advisory locks (PostgreSQL; SQLite's single writer needs none)."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

SETTLE_LOCK_SPACE = 0x5154  # "QT"


def _int32(value: int) -> int:
    value &= 0xFFFF_FFFF
    return value - (1 << 32) if value >= 1 << 31 else value


async def lock_guild(connection: AsyncConnection, guild_id: int) -> None:
    """Serialise writers of one guild's member stats and class until the transaction ends.

    Settles of one guild already run one at a time and in day order (the claim of a post
    waits for the guild's earlier posts: `bot.daily.settle_store`); this advisory lock
    also keeps `class_recall.fold` of the guild out of a settle's way on PostgreSQL.
    Settles and folds of different guilds still run in parallel. SQLite needs nothing:
    a settle's first statement (the claim of its post) takes the database's single write
    lock, held until the commit.
    """
    if connection.dialect.name != "postgresql":
        return
    # Snowflakes are 64-bit: fold them into the lock's 32-bit second key. A collision
    # only makes two guilds' settles wait for each other.
    key = _int32(guild_id ^ (guild_id >> 32))
    await connection.execute(
        text("SELECT pg_advisory_xact_lock(:space, :key)"),
        {"space": SETTLE_LOCK_SPACE, "key": key},
    )
