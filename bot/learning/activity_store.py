"""Answers per member and day (`member_activity`), counted as each graded answer is applied
to its card, so exactly once (`bot.learning.cards_store.record_grades`): `/me`'s calendar
and true retention read at most 26 weeks of one member's rows, never the answers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel import SQLModel

from bot.common.times import as_utc
from bot.db.database import Database
from bot.db.tables.learning import MemberActivity, MemoryModel
from bot.learning.memory_rules import Rules
from bot.learning.review_rules import Grade

_ACTIVITY = SQLModel.metadata.tables[MemberActivity.__tablename__]
_MODEL = SQLModel.metadata.tables[MemoryModel.__tablename__]
COUNTS = ("answers", "right", "due_reviews", "due_right")
# A server's first weekly fit comes this long after its first graded answer.
FIRST_FIT_AFTER = timedelta(days=7)


def _insert(conn: AsyncConnection) -> Any:
    return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert


def tally(grades: Sequence[Grade], due_flags: Sequence[bool], rules: Rules) -> list[dict[str, Any]]:
    """The `member_activity` increments of these applied answers, per member and day."""
    rows: dict[tuple[int, date], dict[str, Any]] = {}
    for grade, due in zip(grades, due_flags, strict=True):
        day = as_utc(grade.when).astimezone(rules.tz).date()
        row = rows.setdefault(
            (grade.user_id, day), {"user_id": grade.user_id, "day": day, **dict.fromkeys(COUNTS, 0)}
        )
        row["answers"] += 1
        row["right"] += int(grade.correct)
        row["due_reviews"] += int(due)
        row["due_right"] += int(due and grade.correct)
    return list(rows.values())


async def add_counts(conn: AsyncConnection, rows: Sequence[dict[str, Any]]) -> None:
    """Add increments (as `tally` makes them) to `member_activity`, in the caller's
    transaction."""
    if not rows:
        return
    statement = _insert(conn)(_ACTIVITY)
    await conn.execute(
        statement.on_conflict_do_update(
            index_elements=["user_id", "day"],
            set_={c: _ACTIVITY.c[c] + statement.excluded[c] for c in COUNTS},
        ),
        list(rows),
    )


async def count_answers(
    conn: AsyncConnection, grades: Sequence[Grade], due_flags: Sequence[bool], rules: Rules
) -> None:
    """What Learning II keeps of every applied answer, in the caller's transaction: the
    member's answers that day, and a `memory_model` row for the server (its weekly fit)."""
    await add_counts(conn, tally(grades, due_flags, rules))
    firsts: dict[int, Any] = {}
    for grade in grades:
        if grade.guild_id is not None:
            firsts.setdefault(grade.guild_id, as_utc(grade.when))
    if firsts:
        await conn.execute(
            _insert(conn)(_MODEL).on_conflict_do_nothing(),
            [{"guild_id": g, "next_fit_at": w + FIRST_FIT_AFTER} for g, w in firsts.items()],
        )


async def days_of(db: Database, user_id: int, since: date) -> list[tuple[date, int, int, int]]:
    """(day, answers, due reviews, due right) of a member from `since` on (<= 26 weeks)."""
    query = (
        select(_ACTIVITY.c.day, _ACTIVITY.c.answers, _ACTIVITY.c.due_reviews, _ACTIVITY.c.due_right)
        .where(_ACTIVITY.c.user_id == user_id, _ACTIVITY.c.day >= since)
        .order_by(_ACTIVITY.c.day)
    )
    async with db.session() as session:
        conn = await session.connection()
        return [(r[0], int(r[1]), int(r[2]), int(r[3])) for r in await conn.execute(query)]
