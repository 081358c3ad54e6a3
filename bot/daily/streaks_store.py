"""Member stats in the database: settling a day's streaks, a member's streak, the leaderboard."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import Float, cast, column, func, or_, table
from sqlalchemy import select as sa_select
from sqlalchemy import update as sa_update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import Mapped
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import SQLModel, col, select

from bot.daily.streak_rules import (
    MIN_ANSWERED_FOR_ACCURACY,
    LeaderboardRow,
    MemberStreak,
    Outcome,
    SettledMember,
    StreakState,
    apply_outcome,
    check_leaderboard,
)
from bot.db.base import driver_time
from bot.db.database import Database
from bot.db.locks import lock_guild
from bot.db.tables.daily import DailyAnswer, MemberStats

# First key of the per-guild settle lock (pg_advisory_xact_lock's two-int key space).


_STATS = SQLModel.metadata.tables[MemberStats.__tablename__]
_STATS_RAW = table(_STATS.name, *(column(c.name) for c in _STATS.columns))
_ANSWER = SQLModel.metadata.tables[DailyAnswer.__tablename__]


@dataclass
class DayStats:
    """A settled day's effect on the answering members' stats, computed before the write:
    the rows to write (values as the driver takes them) and the members it moved."""

    guild_id: int
    day: date
    values: list[dict[str, Any]]
    settled: list[SettledMember]


async def answering_stats(conn: AsyncConnection, guild_id: int, post_id: int) -> dict[int, Any]:
    """The current stats of the members who answered the post (one query, no lock)."""
    stats = _STATS.c
    rows = await conn.execute(
        sa_select(
            stats.user_id,
            stats.current_streak,
            stats.longest_streak,
            stats.answered,
            stats.correct,
            stats.last_settled_day,
        )
        .select_from(_STATS.join(_ANSWER, _ANSWER.c.user_id == stats.user_id))
        .where(stats.guild_id == guild_id, _ANSWER.c.post_id == post_id)
    )
    return {row.user_id: row for row in rows}


def day_stats(
    dialect: str,
    guild_id: int,
    day: date,
    outcomes: dict[int, bool],
    known: dict[int, Any],
    now: datetime,
) -> DayStats:
    """The rule (`apply_outcome`) applied to each answering member: `outcomes` maps each to
    whether they were right; `known` is their current stats (`answering_stats`). A member
    whose last settled day is this day or later is left alone (settling out of order must
    not rewrite history)."""
    settled: list[SettledMember] = []
    values: list[dict[str, Any]] = []
    updated = driver_time(dialect)(now)
    settled_day: Any = day.isoformat() if dialect == "sqlite" else day
    for user_id in sorted(outcomes):
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
    return DayStats(guild_id, day, values, settled)


async def write_day(conn: AsyncConnection, day_stats: DayStats, now: datetime) -> None:
    """Write a day's stats (in the caller's transaction): the answering members' rows in
    one multi-row upsert, and the end of every other running streak in one UPDATE over
    the streak index. Set-based: the work follows the day's answers, not the guild's size."""
    await lock_guild(conn, day_stats.guild_id)
    if day_stats.values:
        insert: Any = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
        upsert = insert(_STATS_RAW)
        await conn.execute(
            upsert.on_conflict_do_update(
                index_elements=["guild_id", "user_id"],
                set_={name: upsert.excluded[name] for name in _MOVED},
            ),
            day_stats.values,
        )
    # Everyone else with a running streak missed the day (the answering members are on
    # this day already). Members without a streak have nothing to lose.
    stats = _STATS.c
    await conn.execute(
        sa_update(_STATS)
        .where(
            stats.guild_id == day_stats.guild_id,
            stats.current_streak > 0,
            or_(stats.last_settled_day.is_(None), stats.last_settled_day < day_stats.day),
        )
        .values(current_streak=0, last_settled_day=day_stats.day, updated_at=now)
    )


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
    db: Database, guild_id: int, by: str = "streak", page: int = 1, per_page: int = 10
) -> tuple[list[LeaderboardRow], int]:
    """One page of the ranking and the number of pages (0 when nobody qualifies).

    Members with nothing to show (a zero streak/count) are left out; "accuracy" ranks
    only members with at least MIN_ANSWERED_FOR_ACCURACY answers. Equal values share a
    rank (1, 1, 3); ties are listed by user id for a stable order.
    """
    check_leaderboard(by, page)
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
