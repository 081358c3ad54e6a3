"""What the daily question's choice reads: a server's posting history, its active members,
their review cards of the candidates and their daily accuracy (`bot.core.daily.choice`)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from fsrs import Scheduler
from sqlalchemy import Integer, case, func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.core.daily.choice import (
    ACTIVE_DAYS,
    ANSWERS,
    Signal,
    mean_recalls,
    recent_questions,
    window_days,
)
from bot.core.review import SCHEDULER
from bot.storage.database import Database
from bot.storage.models import DailyAnswer, DailyPost, ReviewCard


async def history_of(session: AsyncSession, guild_id: int, day: date) -> list[tuple[date, str]]:
    rows = await session.exec(
        select(col(DailyPost.day), col(DailyPost.question_id))
        .where(DailyPost.guild_id == guild_id, DailyPost.day < day)
        .order_by(col(DailyPost.day))
    )
    return [(d, q) for d, q in rows.all()]


async def signals_of(
    session: AsyncSession,
    guild_id: int,
    questions: Sequence[str],
    now: datetime,
    scheduler: Scheduler = SCHEDULER,
) -> tuple[int, dict[str, Signal]]:
    """(active members, their signal per question) for the questions given."""
    active = (
        select(DailyAnswer.user_id)
        .join(DailyPost, col(DailyPost.id) == col(DailyAnswer.post_id))
        .where(
            DailyPost.guild_id == guild_id,
            col(DailyAnswer.answered_at) >= now - timedelta(days=ACTIVE_DAYS),
        )
        .distinct()
    )
    members = (await session.exec(select(func.count()).select_from(active.subquery()))).one()
    if not members or not questions:
        return members, {}
    cards = await session.exec(
        select(ReviewCard.question_id, ReviewCard.card).where(
            col(ReviewCard.user_id).in_(active), col(ReviewCard.question_id).in_(questions)
        )
    )
    # ~1.6 µs a card: a big server's cards (1,000 members x 300 questions) off the loop.
    signals = await asyncio.to_thread(mean_recalls, cards.all(), now, scheduler)
    rest = [q for q in questions if q not in signals]
    if rest:
        signals.update(await _accuracy(session, guild_id, rest, active))
    return members, signals


async def _accuracy(
    session: AsyncSession, guild_id: int, questions: Sequence[str], active: Any
) -> dict[str, Signal]:
    """The active members' accuracy per question in this server's daily answers."""
    rows = await session.exec(
        select(
            DailyPost.question_id,
            func.count(),
            func.sum(case((col(DailyAnswer.correct), 1), else_=0), type_=Integer),
        )
        .join(DailyPost, col(DailyPost.id) == col(DailyAnswer.post_id))
        .where(
            DailyPost.guild_id == guild_id,
            col(DailyPost.question_id).in_(questions),
            col(DailyAnswer.user_id).in_(active),
        )
        .group_by(col(DailyPost.question_id))
    )
    return {q: Signal(right / total, ANSWERS, total) for q, total, right in rows.all() if total}


async def choice_inputs(
    db: Database,
    guild_id: int,
    day: date,
    questions: Sequence[str],
    repeat_after: int,
    now: datetime,
    scheduler: Scheduler = SCHEDULER,
) -> tuple[list[tuple[date, str]], int, dict[str, Signal]]:
    """What `bot.core.daily.choice.choose` needs: the server's history before `day`, its
    active members and their signal on each question not posted within the window."""
    async with db.session() as session:
        history = await history_of(session, guild_id, day)
        recent = recent_questions(history, day, window_days(repeat_after, len(questions)))
        candidates = [q for q in questions if q not in recent]
        members, signals = await signals_of(session, guild_id, candidates, now, scheduler)
    return history, members, signals
