"""The IDENTIFY buckets shared by the shard processes on one database."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col

from bot.db.database import Database
from bot.db.tables.gateway import IdentifyBucket


async def take_turn(
    db: Database, bucket: int, holder: str, clock: Callable[[], datetime], spacing: timedelta
) -> float:
    """Take the bucket's turn to IDENTIFY now: 0.0 when taken, else the seconds until the
    bucket's last turn is `spacing` old.

    The bucket's row is locked first (a no-op UPDATE: PostgreSQL's row lock, SQLite's
    write lock) and the clock read while holding it, so a turn is stamped when it is
    granted, not when it was asked for (a busy database can make that seconds later)."""
    async with db.session() as session:
        locked = await session.exec(
            update(IdentifyBucket)
            .where(col(IdentifyBucket.bucket) == bucket)
            .values(holder=col(IdentifyBucket.holder))
        )
        now = clock()
        if locked.rowcount == 0:
            session.add(IdentifyBucket(bucket=bucket, last_at=now, holder=holder))
            try:
                await session.commit()
            except IntegrityError:
                return 0.01  # another process created it first: ask again
            return 0.0
        row = await session.get(IdentifyBucket, bucket)
        assert row is not None
        wait_s = (row.last_at + spacing - now).total_seconds()
        if wait_s > 0:
            await session.rollback()
            return wait_s
        row.last_at = now
        row.holder = holder
        await session.commit()
        return 0.0
