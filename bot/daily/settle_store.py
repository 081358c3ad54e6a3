"""Settling a day (`settle_post`): the answers and the answering members' stats are read
and the day worked out first, outside any transaction; then one short transaction
claims the post, writes the answering members' streaks (and ends the others'), adds the
post to the tallies and its answerers to the class, stores the reveal's summary and owes
the reveal to the channel. The answers go onto the members' review cards afterwards,
GRADE_CHUNK per transaction (`grade_post`), so that no transaction holds SQLite's write
lock for long and the reveal does not wait for them (each waits for a member's write in
progress: `Database.priority`). The post is `graded` once the last
chunk commits; each answer is applied once whatever happens (`review_log`), and what a
crash left undone is finished at start-up (`ungraded_posts`).

A server's days settle one at a time and in day order, on SQLite and PostgreSQL alike:
the post is claimed by one conditional UPDATE that also requires every earlier post of
the server to be settled (`ix_daily_post_guild_open`). A settle whose server has an
earlier post still open claims nothing and raises `SettleBlocked` naming it: the caller
settles that one first (`bot.daily.settling`). Two settles of one server can
therefore never interleave: the later day's claim only succeeds once the earlier day's
transaction has committed, claim and streaks together. The work is set-based and
bounded by the day's answers, not by the server's size or history.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import exists, false, func, select, true, update
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import aliased
from sqlmodel import SQLModel, col
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.daily import tallies_store
from bot.daily.streaks_store import DayStats, answering_stats, day_stats, write_day
from bot.daily.types import Answer, RevealSummary, reveal_summary
from bot.db.database import Database
from bot.db.tables.daily import DailyAnswer, DailyPost, GuildDailyConfig
from bot.learning import recall_store
from bot.learning.cards_store import apply_grades, chunks, prepare_grades
from bot.learning.memory_store import rules_on
from bot.learning.review_rules import DAILY, Grade, Source
from bot.outbox.rules import Owed
from bot.outbox.store import owe

Grading = Callable[[DailyPost], "tuple[int, int] | None"]
# Answers applied to review cards per transaction (a few tens of ms of the write lock).
GRADE_CHUNK = 100
# Looks at a post that changed between the reads and the claim (an answer came in).
TRIES = 5
_POST = SQLModel.metadata.tables[DailyPost.__tablename__]
_ANSWER = SQLModel.metadata.tables[DailyAnswer.__tablename__]


class SettleBlocked(Exception):
    """The server has an earlier post that is not settled: settle `earlier` first."""

    def __init__(self, post_id: int, earlier: int) -> None:
        super().__init__(f"daily post {post_id} waits for the earlier post {earlier}")
        self.post_id = post_id
        self.earlier = earlier


def _claim(post_id: int) -> object:
    """UPDATE ... SET settled WHERE the post is open and no earlier post of its server is."""
    earlier = aliased(DailyPost)
    this = DailyPost
    return (
        update(this)
        .where(
            col(this.id) == post_id,
            col(this.settled) == false(),
            ~exists().where(
                col(earlier.guild_id) == col(this.guild_id),
                col(earlier.settled) == false(),
                col(earlier.day) < col(this.day),
            ),
        )
        .values(settled=True, graded=False)
    )


async def settle_post(
    db: Database, post_id: int, now: datetime, grading_of: Grading
) -> tuple[DailyPost, RevealSummary]:
    """Settle a post once; a later call returns the stored summary unchanged. The review
    cards are left to `grade_post` (the post is not `graded` until then).

    What the settle needs is read and worked out first, outside any transaction; then
    one short transaction claims the post with a conditional UPDATE (exactly one caller
    settles, across processes, and only after the server's earlier posts: `SettleBlocked`
    otherwise) and writes. Nothing read can change in between: only a settle of this
    server moves its stats, and none can run while this post is open, since the earlier
    ones are settled (checked before the reads) and later ones wait for this one.
    `grading_of(post)` is (right choice, number of choices), None if it left the bank.
    """
    for _ in range(TRIES):
        async with db.engine.connect() as conn:
            post = await _post(conn, post_id)
            if post.settled:
                if post.summary is None:  # settled before summaries were stored
                    return post, await _settle_again(db, post, now, grading_of)
                return post, RevealSummary.from_json(post.summary)
            earlier = await _earlier_open(conn, post)
            if earlier is not None:
                raise SettleBlocked(post_id, earlier)
            answers, known = await _answers(conn, post)
        # The streak rule for every answering member (~10 ms for 2,000): in a thread, so
        # the event loop gets its turn every few ms instead of waiting for all of it.
        stats = await asyncio.to_thread(_stats, db.engine.dialect.name, post, answers, known, now)
        summary = _summary(post, answers, stats, grading_of)
        async with db.session() as session:
            claimed = await session.exec(_claim(post_id))  # type: ignore[call-overload]
            if claimed.rowcount == 0:
                continue  # settled meanwhile, or an answer came in: look again
            conn = await session.connection()
            if await _answer_count(conn, post_id) != len(answers):
                await session.rollback()
                continue
            await _write(session, post, stats, answers, summary, now)
        post.settled, post.graded, post.summary = True, False, summary.to_json()
        return post, summary
    raise RuntimeError(f"daily post {post_id} kept changing while it was settled")


async def _post(conn: AsyncConnection, post_id: int) -> DailyPost:
    row = (await conn.execute(select(_POST).where(_POST.c.id == post_id))).first()
    if row is None:
        raise LookupError(f"no daily post {post_id}")
    return DailyPost.model_validate(row._asdict())


async def _earlier_open(conn: AsyncConnection, post: DailyPost) -> int | None:
    """The server's first open post before `post`, if any."""
    found = await conn.execute(
        select(_POST.c.id)
        .where(
            _POST.c.guild_id == post.guild_id,
            _POST.c.settled == false(),
            _POST.c.day < post.day,
        )
        .order_by(_POST.c.day)
        .limit(1)
    )
    return found.scalar()


async def _answers(conn: AsyncConnection, post: DailyPost) -> tuple[list[Answer], dict[int, Any]]:
    """The post's answers, and what its answering members' stats were before it."""
    assert post.id is not None
    query = select(_ANSWER.c.user_id, _ANSWER.c.choice, _ANSWER.c.correct)
    rows = (await conn.execute(query.where(_ANSWER.c.post_id == post.id))).all()
    answers = [Answer(a.user_id, a.choice, a.correct) for a in rows]
    return answers, await answering_stats(conn, post.guild_id, post.id)


def _stats(
    dialect: str, post: DailyPost, answers: list[Answer], known: dict[int, Any], now: datetime
) -> DayStats:
    correct = {a.user_id: a.correct for a in answers}
    return day_stats(dialect, post.guild_id, post.day, correct, known, now)


def _summary(
    post: DailyPost, answers: list[Answer], stats: DayStats, grading_of: Grading
) -> RevealSummary:
    assert post.id is not None
    unclear = list(post.unclear_users or ())
    return reveal_summary(
        post.id,
        post.guild_id,
        post.day,
        post.question_id,
        answers,
        grading_of(post),
        stats.settled,
        unclear,
    )


async def _answer_count(conn: AsyncConnection, post_id: int) -> int:
    query = select(func.count()).select_from(_ANSWER).where(_ANSWER.c.post_id == post_id)
    return int((await conn.execute(query)).scalar_one())


async def _write(
    session: AsyncSession,
    post: DailyPost,
    stats: DayStats,
    answers: list[Answer],
    summary: RevealSummary,
    now: datetime,
) -> None:
    """The settle's writes, in the transaction of its claim."""
    assert post.id is not None
    conn = await session.connection()
    await write_day(conn, stats, now)
    await tallies_store.add_post(conn, post.guild_id, post.id, post.day, post.question_id, answers)
    await recall_store.join(conn, post.guild_id, post.id)
    await conn.execute(update(_POST).where(_POST.c.id == post.id).values(summary=summary.to_json()))
    if post.message_id is not None:
        # The reveal is owed with the settled day, in one transaction.
        owe(session, Owed.REVEAL, post, now)
        config = await session.get(GuildDailyConfig, post.guild_id)
        if config is not None and config.discussion:
            # So is its discussion thread, where the server asked for one.
            owe(session, Owed.DISCUSSION, post, now)
    await session.commit()


async def _settle_again(
    db: Database, post: DailyPost, now: datetime, grading_of: Grading
) -> RevealSummary:
    """A post marked settled without a summary (written by hand, or before summaries
    were kept): its day is applied now, as it always was."""
    assert post.id is not None
    async with db.session() as session:
        conn = await session.connection()
        await conn.execute(update(_POST).where(_POST.c.id == post.id).values(graded=False))
        answers, known = await _answers(conn, post)
        stats = _stats(conn.dialect.name, post, answers, known, now)
        summary = _summary(post, answers, stats, grading_of)
        await _write(session, post, stats, answers, summary, now)
    post.graded, post.summary = False, summary.to_json()
    return summary


async def grade_post(db: Database, post_id: int) -> None:
    """Apply a settled post's answers to the review cards, GRADE_CHUNK per transaction,
    then mark it graded. Each answer is applied once (`record_grades`), so running this
    again after a crash finishes the work without doubling any of it."""
    async with db.engine.connect() as conn:
        question_id, guild_id = (
            await conn.execute(
                select(col(DailyPost.question_id), col(DailyPost.guild_id)).where(
                    col(DailyPost.id) == post_id
                )
            )
        ).one()
        rules = await rules_on(conn, guild_id)  # the server's memory model
        rows = (
            await conn.execute(
                select(
                    col(DailyAnswer.user_id),
                    col(DailyAnswer.correct),
                    col(DailyAnswer.answered_at),
                )
                .where(col(DailyAnswer.post_id) == post_id)
                .order_by(col(DailyAnswer.user_id))
            )
        ).all()
    source = Source(DAILY, str(post_id))
    grades = [
        Grade(r.user_id, question_id, r.correct, r.answered_at, source, guild_id=guild_id)
        for r in rows
    ]
    parts = chunks(grades, GRADE_CHUNK) or [{}]
    for index, part in enumerate(parts):
        # The cards are read and worked out first; the transaction only writes them.
        async with db.engine.connect() as conn:
            prepared = await prepare_grades(conn, part, rules)
        async with db.priority.background(), db.session() as session:
            conn = await session.connection()
            await apply_grades(conn, prepared)
            if index == len(parts) - 1:
                await conn.execute(update(_POST).where(_POST.c.id == post_id).values(graded=True))
            await session.commit()


async def ungraded_posts(db: Database) -> list[int]:
    """Settled posts whose answers are not all on the review cards (a crash in between)."""
    async with db.engine.connect() as conn:
        rows = await conn.execute(
            select(col(DailyPost.id)).where(
                ~col(DailyPost.graded), col(DailyPost.settled) == true()
            )
        )
        return [row[0] for row in rows if row[0] is not None]
