"""Tallies of settled daily posts, for `/daily stats`: per question (posts, answers, right
answers), per wrong choice (picks) and per week (members, answers, posts).

A settle adds its post in its own transaction (`add_post`), so each settled post is in
the tallies exactly once; `/daily stats` reads a row per question and per week instead
of a year of answers, and adds the posts still open (a day or two) live.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from sqlalchemy import literal, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel import SQLModel

from bot.daily.types import Answer
from bot.db.tables.aggregates import QuestionTally, WeekMember, WeekTally, WrongTally
from bot.db.tables.daily import DailyAnswer

_QUESTION = SQLModel.metadata.tables[QuestionTally.__tablename__]
_WRONG = SQLModel.metadata.tables[WrongTally.__tablename__]
_WEEK = SQLModel.metadata.tables[WeekTally.__tablename__]
_WEEK_MEMBER = SQLModel.metadata.tables[WeekMember.__tablename__]
_ANSWER = SQLModel.metadata.tables[DailyAnswer.__tablename__]


def monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _insert(conn: AsyncConnection) -> Any:
    return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert


async def _add(
    conn: AsyncConnection, table: Any, keys: Sequence[str], rows: list[dict[str, Any]]
) -> None:
    """Upsert `rows`, adding their counts to an existing row's."""
    statement = _insert(conn)(table)
    counts = [c.name for c in table.columns if c.name not in keys]
    await conn.execute(
        statement.on_conflict_do_update(
            index_elements=list(keys),
            set_={name: table.c[name] + statement.excluded[name] for name in counts},
        ),
        rows,
    )


async def add_post(
    conn: AsyncConnection,
    guild_id: int,
    post_id: int,
    day: date,
    question_id: str,
    answers: Sequence[Answer],
) -> None:
    """Add one settled post (in the settle's transaction)."""
    right = sum(1 for a in answers if a.correct)
    await _add(
        conn,
        _QUESTION,
        ("guild_id", "question_id"),
        [
            {
                "guild_id": guild_id,
                "question_id": question_id,
                "posts": 1,
                "answered": len(answers),
                "correct": right,
            }
        ],
    )
    wrong = Counter(a.choice for a in answers if not a.correct)
    if wrong:
        await _add(
            conn,
            _WRONG,
            ("guild_id", "question_id", "choice"),
            [
                {"guild_id": guild_id, "question_id": question_id, "choice": c, "picks": n}
                for c, n in sorted(wrong.items())
            ],
        )
    week = monday(day)
    members = 0
    if answers:
        # The members new to this week (one INSERT ... SELECT; the conflict skips the rest).
        inserted = await conn.execute(
            _insert(conn)(_WEEK_MEMBER)
            .from_select(
                ["guild_id", "week", "user_id"],
                select(literal(guild_id), literal(week), _ANSWER.c.user_id).where(
                    _ANSWER.c.post_id == post_id
                ),
            )
            .on_conflict_do_nothing()
        )
        members = max(0, inserted.rowcount)
    await _add(
        conn,
        _WEEK,
        ("guild_id", "week"),
        [
            {
                "guild_id": guild_id,
                "week": week,
                "members": members,
                "answers": len(answers),
                "posts": 1,
            }
        ],
    )
