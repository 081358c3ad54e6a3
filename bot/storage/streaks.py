"""Member stats in the database: settling a day's streaks, a member's streak, the leaderboard."""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any

from sqlalchemy import Float, cast, column, func, or_, table, text
from sqlalchemy import select as sa_select
from sqlalchemy import update as sa_update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import Mapped
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.core.streaks import (
    MIN_ANSWERED_FOR_ACCURACY,
    LeaderboardRow,
    MemberStreak,
    Outcome,
    SettledMember,
    StreakState,
    apply_outcome,
)
from bot.storage.database import Database
from bot.storage.models import MemberStats
from bot.storage.models.base import driver_time

# First key of the per-guild settle lock (pg_advisory_xact_lock's two-int key space).
SETTLE_LOCK_SPACE = 0x5154  # "QT"


def _int32(value: int) -> int:
    value &= 0xFFFF_FFFF
    return value - (1 << 32) if value >= 1 << 31 else value


async def lock_guild_stats(session: AsyncSession, guild_id: int) -> None:
    """Serialise writers of one guild's member stats and class until the transaction ends.

    Settles of one guild already run one at a time and in day order (the claim of a post
    waits for the guild's earlier posts: `bot.storage.daily.settle`); this advisory lock
    also keeps `class_recall.fold` of the guild out of a settle's way on PostgreSQL, and
    guards the stats' read-modify-write should anything else settle. Settles and folds
    of different guilds still run in parallel. SQLite needs nothing: the settle's first
    statement (the UPDATE of its post) takes the database's single write lock, held
    until the commit.
    """
    await lock_guild(await session.connection(), guild_id)


async def lock_guild(connection: AsyncConnection, guild_id: int) -> None:
    """`lock_guild_stats` on a connection (a no-op on SQLite)."""
    if connection.dialect.name != "postgresql":
        return
    # Snowflakes are 64-bit: fold them into the lock's 32-bit second key. A collision
    # only makes two guilds' settles wait for each other.
    key = _int32(guild_id ^ (guild_id >> 32))
    await connection.execute(
        text("SELECT pg_advisory_xact_lock(:space, :key)"),
        {"space": SETTLE_LOCK_SPACE, "key": key},
    )


_STATS = SQLModel.metadata.tables[MemberStats.__tablename__]
_STATS_RAW = table(_STATS.name, *(column(c.name) for c in _STATS.columns))
# Member ids per IN list (SQLite binds at most 32766 parameters per statement).
CHUNK = 500


async def settle_day(
    session: AsyncSession,
    guild_id: int,
    day: date,
    outcomes: dict[int, bool],
    now: datetime,
) -> list[SettledMember]:
    """Apply one settled question to the guild's members (in the caller's transaction).

    `outcomes` maps each answering member to whether they were right; everyone else
    with a running streak in the guild missed it. Set-based, so the work follows the
    day's answers, not the guild's size: the answering members' rows are read, moved by
    the rule (`apply_outcome`) and written back in one multi-row upsert; the streaks of
    the others end in one UPDATE over the streak index. A member whose last settled day
    is this day or later is left alone (settling out of order must not rewrite history).
    Returns the answering members whose stats moved.
    """
    await lock_guild_stats(session, guild_id)
    conn = await session.connection()
    stats = _STATS.c
    known: dict[int, Any] = {}
    users = sorted(outcomes)
    for start in range(0, len(users), CHUNK):
        rows = await conn.execute(
            sa_select(
                stats.user_id,
                stats.current_streak,
                stats.longest_streak,
                stats.answered,
                stats.correct,
                stats.last_settled_day,
            ).where(stats.guild_id == guild_id, stats.user_id.in_(users[start : start + CHUNK]))
        )
        known.update((row.user_id, row) for row in rows)
    settled: list[SettledMember] = []
    values: list[dict[str, Any]] = []
    # Values as the driver takes them (the upsert's table has no SQLAlchemy types).
    updated = driver_time(conn.dialect.name)(now)
    settled_day: Any = day.isoformat() if conn.dialect.name == "sqlite" else day
    for user_id in users:
        row = known.get(user_id)
        if row is not None and row.last_settled_day is not None and row.last_settled_day >= day:
            continue
        state = (
            StreakState(row.current_streak, row.longest_streak, row.answered, row.correct)
            if row is not None
            else StreakState()
        )
        update = apply_outcome(state, Outcome.CORRECT if outcomes[user_id] else Outcome.WRONG)
        values.append(
            {
                "guild_id": guild_id,
                "user_id": user_id,
                "current_streak": update.state.current,
                "longest_streak": update.state.longest,
                "answered": update.state.answered,
                "correct": update.state.correct,
                "last_settled_day": settled_day,
                "updated_at": updated,
            }
        )
        settled.append(SettledMember(user_id, update))
    if values:
        insert: Any = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
        upsert = insert(_STATS_RAW)
        await conn.execute(
            upsert.on_conflict_do_update(
                index_elements=["guild_id", "user_id"],
                set_={name: upsert.excluded[name] for name in _MOVED},
            ),
            values,
        )
    # Everyone else with a running streak missed the day (the answering members are on
    # this day already). Members without a streak have nothing to lose.
    await conn.execute(
        sa_update(_STATS)
        .where(
            stats.guild_id == guild_id,
            stats.current_streak > 0,
            or_(stats.last_settled_day.is_(None), stats.last_settled_day < day),
        )
        .values(current_streak=0, last_settled_day=day, updated_at=now)
    )
    return settled


_MOVED = (
    "current_streak",
    "longest_streak",
    "answered",
    "correct",
    "last_settled_day",
    "updated_at",
)


async def member_streak(db: Database, guild_id: int, user_id: int) -> MemberStreak:
    async with db.session() as session:
        stats = await session.get(MemberStats, (guild_id, user_id))
    if stats is None:
        return MemberStreak(user_id, 0, 0, 0, 0)
    return MemberStreak(
        user_id, stats.current_streak, stats.longest_streak, stats.answered, stats.correct
    )


async def leaderboard(
    db: Database, guild_id: int, by: str, page: int, per_page: int
) -> tuple[list[LeaderboardRow], int]:
    """One page of the ranking and the number of pages (0 when nobody qualifies).

    Members with nothing to show (a zero streak/count) are left out; "accuracy" ranks
    only members with at least MIN_ANSWERED_FOR_ACCURACY answers. Equal values share a
    rank (1, 1, 3); ties are listed by user id for a stable order.
    """
    m = MemberStats
    metrics: dict[str, ColumnElement[Any] | Mapped[int]] = {
        "streak": col(m.current_streak),
        "longest": col(m.longest_streak),
        "correct": col(m.correct),
        "accuracy": cast(m.correct, Float) / col(m.answered),
    }
    metric = metrics[by]
    qualifies = col(m.answered) >= MIN_ANSWERED_FOR_ACCURACY if by == "accuracy" else metric > 0
    where = (col(m.guild_id) == guild_id, qualifies)
    rank = func.rank().over(order_by=metric.desc()).label("rank")
    query = (
        select(
            rank,
            metric.label("value"),
            m.user_id,
            m.current_streak,
            m.longest_streak,
            m.answered,
            m.correct,
        )  # type: ignore[call-overload]
        .where(*where)
        .order_by(metric.desc(), col(m.user_id))
        .limit(per_page)
        .offset((page - 1) * per_page)
    )
    async with db.engine.connect() as conn:
        count = sa_select(func.count()).select_from(m).where(*where)
        total = (await conn.execute(count)).scalar_one()
        rows = (await conn.execute(query)).all()
    pages = math.ceil(total / per_page)
    return [
        LeaderboardRow(
            r.rank,
            r.user_id,
            float(r.value),
            r.current_streak,
            r.longest_streak,
            r.answered,
            r.correct,
        )
        for r in rows
    ], pages
