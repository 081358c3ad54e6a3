"""What the daily question's choice reads: a server's posting history, its active members,
their recall of the candidates (the class recall's sums, kept under the server's own
forgetting curve: `bot.learning.recall_store`) and, for questions none of them has a
card of, their daily accuracy (`bot.daily.choice_rules`).

The sums are the one way the choice reads the class's recall: reading every active
member's card of every candidate instead (what a server with its own memory model once
did) took seconds at 10,000 members and stalled the event loop (docs/architecture.md)."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from fsrs import Scheduler
from sqlalchemy import Integer, case, exists, false, func
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel import SQLModel, col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.daily.choice_rules import recent_questions, window_days
from bot.db.database import Database
from bot.db.tables.aggregates import ClassMember, ClassRecall
from bot.db.tables.daily import DailyAnswer, DailyPost
from bot.db.tables.review import ReviewCard
from bot.learning import recall_store
from bot.learning.recall_rules import ACTIVE_DAYS, ANSWERS, CARDS, RecallSums, Signal, days
from bot.learning.recall_sql import recall_now
from bot.learning.review_rules import SCHEDULER

log = logging.getLogger(__name__)

# How long a choice waits for its fold of the class (members in and out) before it
# chooses from the sums as they are: an upgrade's thousands are folded in the
# background (`bot.learning.recall_backfill`), whose transactions also hold SQLite's
# write lock back to back.
CHOICE_FOLD_S = 0.1
# Folds a choice stopped waiting for: each ends after its current chunk.
_folding: set[asyncio.Task[int]] = set()


async def fold_briefly(db: Database, guild_id: int, now: datetime) -> None:
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


_MEMBER = SQLModel.metadata.tables[ClassMember.__tablename__]
_RECALL = SQLModel.metadata.tables[ClassRecall.__tablename__]
_CARD = SQLModel.metadata.tables[ReviewCard.__tablename__]
_ANSWER = SQLModel.metadata.tables[DailyAnswer.__tablename__]
_POST = SQLModel.metadata.tables[DailyPost.__tablename__]


async def signals_of(
    session: AsyncSession,
    guild_id: int,
    questions: Sequence[str],
    now: datetime,
    scheduler: Scheduler = SCHEDULER,
) -> tuple[int, dict[str, Signal]]:
    """(active members, their signal per question) for the questions given, after
    `recall_store.fold`: the class recall's sums (a row per question, under the curve of
    `scheduler`, the server's memory model) where they have cards, else their accuracy
    in the server's daily answers."""
    conn = await session.connection()
    cutoff = now - timedelta(days=ACTIVE_DAYS)
    counted = select(_MEMBER.c.user_id).where(
        _MEMBER.c.guild_id == guild_id, _MEMBER.c.last_answered_at >= cutoff
    )
    # Members whose only recent answers are on posts not settled yet (none in the usual
    # order of reveal-then-post): their cards are read directly.
    extra = (
        select(_ANSWER.c.user_id)
        .join(_POST, _POST.c.id == _ANSWER.c.post_id)
        .where(
            _POST.c.guild_id == guild_id,
            _POST.c.settled == false(),
            _ANSWER.c.answered_at >= cutoff,
            ~exists().where(_MEMBER.c.guild_id == guild_id, _MEMBER.c.user_id == _ANSWER.c.user_id),
        )
        .distinct()
    )
    members = 0
    for active in (counted, extra):
        count = select(func.count()).select_from(active.subquery())
        members += (await conn.execute(count)).scalar_one()
    if not members or not questions:
        return members, {}
    signals = await _card_signals(
        conn, guild_id, questions, now, RecallSums.for_scheduler(scheduler), extra
    )
    rest = [q for q in questions if q not in signals]
    if rest:
        signals.update(await _accuracy(session, guild_id, rest, counted.union(extra)))
    return members, signals


async def _card_signals(
    conn: AsyncConnection,
    guild_id: int,
    questions: Sequence[str],
    now: datetime,
    curve: RecallSums,
    extra: Any,
) -> dict[str, Signal]:
    """The mean recall now of the active members' cards per question: the sums, and the
    cards of the `extra` members (not in the sums yet)."""
    at = days(now)
    totals: dict[str, tuple[int, float]] = {}
    for chunk in recall_store.in_chunks(list(questions)):
        rows = await conn.execute(
            select(_RECALL.c.question_id, _RECALL.c.cards, _RECALL.c.sums, _RECALL.c.as_of).where(
                _RECALL.c.guild_id == guild_id,
                _RECALL.c.question_id.in_(chunk),
                _RECALL.c.cards > 0,
            )
        )
        for question_id, cards, sums, as_of in rows:
            totals[question_id] = (cards, curve.mean(sums, cards, days(as_of), at) * cards)
        extra_rows = await conn.execute(
            select(
                _CARD.c.question_id,
                func.count(),
                func.sum(recall_now(conn.dialect.name, curve, at)),
            )
            .where(_CARD.c.user_id.in_(extra), _CARD.c.question_id.in_(chunk))
            .group_by(_CARD.c.question_id)
        )
        for question_id, count, total in extra_rows:
            n, s = totals.get(question_id, (0, 0.0))
            totals[question_id] = (n + int(count), s + float(total or 0.0))
    return {
        q: Signal(min(1.0, max(0.0, total / n)), CARDS, n) for q, (n, total) in totals.items() if n
    }


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
    active members and their signal on each question not posted within the window (from
    the sums as they are: `fold_briefly` first)."""
    async with db.session() as session:
        history = await history_of(session, guild_id, day)
        recent = recent_questions(history, day, window_days(repeat_after, len(questions)))
        candidates = [q for q in questions if q not in recent]
        members, signals = await signals_of(session, guild_id, candidates, now, scheduler)
    return history, members, signals
