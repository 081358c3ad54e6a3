"""What the daily question's choice reads: a server's posting history, its active members,
their recall of the candidates (the class recall's sums: `bot.learning.recall_store`)
and, for questions none of them has a card of, their daily accuracy
(`bot.daily.choice_rules`)."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from fsrs import Scheduler
from sqlalchemy import Integer, case, func
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.daily.choice_rules import mean_recalls, recent_questions, window_days
from bot.db.database import Database
from bot.db.tables.daily import DailyAnswer, DailyPost
from bot.db.tables.review import ReviewCard
from bot.learning import recall_store
from bot.learning.recall_rules import ANSWERS, Signal, follows_sums
from bot.learning.review_rules import SCHEDULER

log = logging.getLogger(__name__)

# How long a choice waits for its fold of the class (members in and out) before it
# chooses from the sums as they are: an upgrade's thousands are folded in the
# background (`bot.learning.recall_backfill`), whose transactions also hold SQLite's
# write lock back to back.
CHOICE_FOLD_S = 0.1
# Folds a choice stopped waiting for: each ends after its current chunk.
_folding: set[asyncio.Task[int]] = set()


async def _fold_briefly(db: Database, guild_id: int, now: datetime) -> None:
    """`recall_store.fold` for at most CHOICE_FOLD_S: it starts no chunk after that, and
    the choice does not wait for the chunk in flight (nor for the write lock it waits
    on); what is left is folded later (the backfill, the next settle or choice)."""
    task = asyncio.create_task(recall_store.fold(db, guild_id, now, CHOICE_FOLD_S))
    _folding.add(task)
    task.add_done_callback(functools.partial(_folded, guild_id))
    await asyncio.wait({task}, timeout=CHOICE_FOLD_S)


async def folds_done() -> None:
    """Until the folds choices stopped waiting for have ended (each after one chunk)."""
    while _folding:
        await asyncio.wait(set(_folding))


def _folded(guild_id: int, task: asyncio.Task[int]) -> None:
    _folding.discard(task)
    if not task.cancelled() and task.exception() is not None:
        # A busy database: this choice used the sums as they were.
        log.error(
            "folding the class before the daily choice failed",
            exc_info=task.exception(),
            extra={"guild_id": guild_id},
        )


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
    """(active members, their signal per question) for the questions given: the class
    recall's sums where they have cards (`recall_store.signals`, a row per question),
    else their accuracy in the server's daily answers."""
    conn = await session.connection()
    members, signals, active = await recall_store.signals(conn, guild_id, questions, now)
    if not members or not questions:
        return members, signals
    if not follows_sums(scheduler):
        # The server's own memory model has another forgetting curve than the one the
        # running sums follow: its cards are read and their recall worked out (bounded by
        # the active members' cards of the candidates; off the loop, ~1.6 µs a card).
        cards = await session.exec(
            select(ReviewCard.question_id, ReviewCard.card).where(
                col(ReviewCard.user_id).in_(active), col(ReviewCard.question_id).in_(questions)
            )
        )
        signals = await asyncio.to_thread(mean_recalls, cards.all(), now, scheduler)
    rest = [q for q in questions if q not in signals]
    if rest:
        signals.update(await _accuracy(session, guild_id, rest, active))
    return members, signals


async def _accuracy(
    session: AsyncSession, guild_id: int, questions: Sequence[str], active: Any
) -> dict[str, Signal]:
    """The active members' accuracy per question in this server's daily answers (only
    questions none of them has a card of: new to them, so few posts to read)."""
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
    """What `bot.daily.choice_rules.choose` needs: the server's history before `day`, its
    active members and their signal on each question not posted within the window."""
    await _fold_briefly(db, guild_id, now)
    async with db.session() as session:
        history = await history_of(session, guild_id, day)
        recent = recent_questions(history, day, window_days(repeat_after, len(questions)))
        candidates = [q for q in questions if q not in recent]
        members, signals = await signals_of(session, guild_id, candidates, now, scheduler)
    return history, members, signals
