"""Daily streaks per member and guild.

A streak counts consecutive daily questions (one per local day of the guild)
answered correctly. A wrong answer or a missed question ends it when the question
is settled, for every member at once, so leaderboards never show stale streaks.
Days without a post (the bot was down) do not break anyone's streak.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Float, cast, func, text
from sqlalchemy import select as sa_select
from sqlalchemy.orm import Mapped
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.core.errors import UserError
from bot.storage import Database, MemberStats

MILESTONES = (7, 30, 100)
# Going from 0 to 1 is not worth a "new personal best" shout; from 2 on it is.
MIN_ANNOUNCED_BEST = 2
# Accuracy of one lucky answer means nothing: only members with this many answers rank.
MIN_ANSWERED_FOR_ACCURACY = 3
LEADERBOARD_ORDERS = ("streak", "longest", "correct", "accuracy")


class Outcome(StrEnum):
    CORRECT = "correct"
    WRONG = "wrong"
    MISSED = "missed"


@dataclass(frozen=True)
class StreakState:
    current: int = 0
    longest: int = 0
    answered: int = 0
    correct: int = 0


@dataclass(frozen=True)
class StreakUpdate:
    state: StreakState
    new_best: bool
    milestone: int | None


def apply_outcome(state: StreakState, outcome: Outcome) -> StreakUpdate:
    """The pure rule: one settled daily question changes one member's state."""
    if outcome is Outcome.MISSED:
        return StreakUpdate(replace(state, current=0), new_best=False, milestone=None)
    if outcome is Outcome.WRONG:
        return StreakUpdate(replace(state, current=0, answered=state.answered + 1), False, None)
    current = state.current + 1
    new = StreakState(
        current=current,
        longest=max(state.longest, current),
        answered=state.answered + 1,
        correct=state.correct + 1,
    )
    new_best = current > state.longest and current >= MIN_ANNOUNCED_BEST
    milestone = current if current in MILESTONES else None
    return StreakUpdate(new, new_best, milestone)


@dataclass(frozen=True)
class MemberStreak:
    user_id: int
    current: int
    longest: int
    answered: int
    correct: int

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.answered if self.answered else None


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    user_id: int
    value: float  # the ranked number: a streak, a count, or accuracy 0..1
    current: int
    longest: int
    answered: int
    correct: int


@dataclass(frozen=True)
class SettledMember:
    user_id: int
    update: StreakUpdate


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


class Streaks:
    def __init__(self, db: Database):
        self.db = db

    async def streak(self, guild_id: int, user_id: int) -> MemberStreak:
        async with self.db.session() as session:
            stats = await session.get(MemberStats, (guild_id, user_id))
        if stats is None:
            return MemberStreak(user_id, 0, 0, 0, 0)
        return MemberStreak(
            user_id, stats.current_streak, stats.longest_streak, stats.answered, stats.correct
        )

    async def leaderboard(
        self, guild_id: int, by: str = "streak", page: int = 1, per_page: int = 10
    ) -> tuple[list[LeaderboardRow], int]:
        """One page of the ranking and the number of pages (0 when nobody qualifies).

        Members with nothing to show (a zero streak/count) are left out; "accuracy"
        ranks only members with at least MIN_ANSWERED_FOR_ACCURACY answers. Equal
        values share a rank (1, 1, 3); ties are listed by user id for a stable order.
        """
        if by not in LEADERBOARD_ORDERS:
            raise UserError(
                "leaderboard.bad_order", value=by, allowed=", ".join(LEADERBOARD_ORDERS)
            )
        if page < 1:
            raise UserError("leaderboard.bad_page", page=page)
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
        async with self.db.engine.connect() as conn:
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


__all__ = [
    "LEADERBOARD_ORDERS",
    "MILESTONES",
    "MIN_ANSWERED_FOR_ACCURACY",
    "LeaderboardRow",
    "MemberStreak",
    "Outcome",
    "SettledMember",
    "StreakState",
    "StreakUpdate",
    "Streaks",
    "apply_outcome",
    "settle_day",
]
