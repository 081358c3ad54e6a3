"""Member stats in the database: settling a day's streaks, a member's streak, the leaderboard."""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any

from sqlalchemy import Float, cast, func, text
from sqlalchemy import select as sa_select
from sqlalchemy.orm import Mapped
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import col, select
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

# First key of the per-guild settle lock (pg_advisory_xact_lock's two-int key space).
SETTLE_LOCK_SPACE = 0x5154  # "QT"


def _int32(value: int) -> int:
    value &= 0xFFFF_FFFF
    return value - (1 << 32) if value >= 1 << 31 else value


async def lock_guild_stats(session: AsyncSession, guild_id: int) -> None:
    """Serialise settles of one guild's member stats until the transaction ends.

    Settling reads every member row of the guild, then writes them and inserts rows
    for new members. PostgreSQL runs two such transactions side by side: both read
    the same streak (an update is lost) and both insert a new member's row (one fails
    with a UniqueViolation, and that day can never be applied later). Row locks
    (`SELECT ... FOR UPDATE`) would not cover the rows another settle is inserting,
    so one advisory lock per guild serialises the whole read-modify-write instead;
    settles of different guilds still run in parallel. SQLite needs nothing: the
    settle's first statement (the UPDATE of its post) takes the database's single
    write lock, held until the commit.
    """
    connection = await session.connection()
    if connection.dialect.name != "postgresql":
        return
    # Snowflakes are 64-bit: fold them into the lock's 32-bit second key. A collision
    # only makes two guilds' settles wait for each other.
    key = _int32(guild_id ^ (guild_id >> 32))
    await connection.execute(
        text("SELECT pg_advisory_xact_lock(:space, :key)"),
        {"space": SETTLE_LOCK_SPACE, "key": key},
    )


async def settle_day(
    session: AsyncSession,
    guild_id: int,
    day: date,
    outcomes: dict[int, bool],
    now: datetime,
) -> list[SettledMember]:
    """Apply one settled question to every member of the guild (in the caller's transaction).

    `outcomes` maps each answering member to whether they were right; everyone else
    with stats in the guild missed it. A day older than a member's last settled day
    changes nothing for them (settling out of order must not rewrite history).
    """
    await lock_guild_stats(session, guild_id)
    rows = (await session.exec(select(MemberStats).where(MemberStats.guild_id == guild_id))).all()
    known = {row.user_id: row for row in rows}
    for user_id in outcomes.keys() - known.keys():
        stats = MemberStats(guild_id=guild_id, user_id=user_id)
        session.add(stats)
        known[user_id] = stats
    settled: list[SettledMember] = []
    for user_id, stats in known.items():
        if stats.last_settled_day is not None and stats.last_settled_day >= day:
            continue
        if user_id in outcomes:
            outcome = Outcome.CORRECT if outcomes[user_id] else Outcome.WRONG
        else:
            outcome = Outcome.MISSED
        update = apply_outcome(
            StreakState(stats.current_streak, stats.longest_streak, stats.answered, stats.correct),
            outcome,
        )
        stats.current_streak = update.state.current
        stats.longest_streak = update.state.longest
        stats.answered = update.state.answered
        stats.correct = update.state.correct
        stats.last_settled_day = day
        stats.updated_at = now
        settled.append(SettledMember(user_id, update))
    return settled


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
