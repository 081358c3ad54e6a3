"""Live rounds in the database, the reads: a question's answers (for its reveal), the
standings (for the scoreboard and a player's own result), and a member's live answers
(for `/me`). Only closed questions count: an open one gives nothing away."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, case, func
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from bot.db.database import Database
from bot.db.tables.live import LiveAnswer, LiveQuestion
from bot.live.rules import Answer, QuestionStatus, Standing


async def question(db: Database, round_id: int, number: int) -> LiveQuestion | None:
    async with db.session() as session:
        return await session.get(LiveQuestion, (round_id, number))


async def answers_of(db: Database, round_id: int, number: int) -> list[Answer]:
    async with db.session() as session:
        rows = await session.exec(
            select(LiveAnswer).where(
                col(LiveAnswer.round_id) == round_id, col(LiveAnswer.number) == number
            )
        )
        return [Answer(a.user_id, a.position, a.correct, a.ms) for a in rows.all()]


def _closed_answers(round_id: int) -> Any:
    return and_(
        col(LiveAnswer.round_id) == round_id,
        col(LiveQuestion.round_id) == col(LiveAnswer.round_id),
        col(LiveQuestion.number) == col(LiveAnswer.number),
        col(LiveQuestion.status) == QuestionStatus.CLOSED,
    )


async def standings(db: Database, round_id: int, user_id: int | None = None) -> list[Standing]:
    """Each player's points, right answers, answers and total time over the closed
    questions (one player's with `user_id`), unranked."""
    query = sa_select(
        col(LiveAnswer.user_id),
        func.sum(col(LiveAnswer.points)),
        func.sum(case((col(LiveAnswer.correct), 1), else_=0)),
        func.count(),
        func.sum(col(LiveAnswer.ms)),
    ).where(_closed_answers(round_id))
    if user_id is not None:
        query = query.where(col(LiveAnswer.user_id) == user_id)
    query = query.group_by(col(LiveAnswer.user_id))
    async with db.session() as session:
        conn = await session.connection()
        rows = (await conn.execute(query)).all()
    return [
        Standing(int(u), int(p or 0), int(r or 0), int(n), int(ms or 0)) for u, p, r, n, ms in rows
    ]


async def wrong_numbers(db: Database, round_id: int, user_id: int) -> list[int]:
    """The closed questions a player answered wrong."""
    query = (
        select(LiveAnswer.number)
        .where(_closed_answers(round_id), col(LiveAnswer.user_id) == user_id)
        .where(col(LiveAnswer.correct).is_(False))
        .order_by(col(LiveAnswer.number))
    )
    async with db.session() as session:
        return [int(n) for n in (await session.exec(query)).all()]
