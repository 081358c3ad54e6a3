"""Settling a day: one short transaction closes the post, applies the answering members'
streaks (and ends the others'), adds the post to the tallies and its answerers to the
class, stores the reveal's summary and owes the reveal to the channel; then the answers
go onto the members' review cards, GRADE_CHUNK per transaction (`grade_post`), so that no
transaction holds SQLite's write lock for long. The post is `graded` once the last chunk
commits; each answer is applied once whatever happens (`review_log`), and what a crash
left undone is finished by the next settle call or at start-up (`ungraded_posts`).

A server's days settle one at a time and in day order, on SQLite and PostgreSQL alike:
the post is claimed by one conditional UPDATE that also requires every earlier post of
the server to be settled (`ix_daily_post_guild_open`). A settle whose server has an
earlier post still open claims nothing and raises `SettleBlocked` naming it: the caller
settles that one first (`bot.services.daily.settling`). Two settles of one server can
therefore never interleave: the later day's claim only succeeds once the earlier day's
transaction has committed, claim and streaks together. The work is set-based and
bounded by the day's answers, not by the server's size or history.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import exists, false, select, true, update
from sqlalchemy.orm import aliased
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.core.daily.types import Answer, RevealSummary, reveal_summary
from bot.core.outbox import Owed
from bot.core.review import DAILY, Grade, Source
from bot.storage import class_recall
from bot.storage.daily import tallies
from bot.storage.database import Database
from bot.storage.models import DailyAnswer, DailyPost
from bot.storage.outbox import owe
from bot.storage.review_cards import record_grades
from bot.storage.streaks import settle_day

Grading = Callable[[str], "tuple[int, int] | None"]
# Answers applied to review cards per transaction (a few tens of ms of the write lock).
GRADE_CHUNK = 250


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
    """Settle a post once; a later call returns the stored summary unchanged.

    The conditional UPDATE lets exactly one caller settle, across processes, and only
    after the server's earlier posts (`SettleBlocked` otherwise).
    `grading_of(question_id)` is (right choice, number of choices), None if it left the bank.
    """
    async with db.session() as session:
        claimed = await session.exec(_claim(post_id))  # type: ignore[call-overload]
        post = await session.get(DailyPost, post_id)
        if post is None:
            raise LookupError(f"no daily post {post_id}")
        if claimed.rowcount == 0 and not post.settled:
            raise SettleBlocked(post_id, await _earlier_open(session, post))
        if claimed.rowcount == 0 and post.summary is not None:
            stored = RevealSummary.from_json(post.summary)
            unfinished = not post.graded  # a crash between the settle and its cards
        else:
            stored, unfinished = await _settle_claimed(session, post, now, grading_of), True
    if unfinished:
        await grade_post(db, post_id)
    return post, stored


async def _earlier_open(session: AsyncSession, post: DailyPost) -> int:
    """The server's first open post before `post`; `post`'s own id when it was settled
    meanwhile (the caller tries again)."""
    conn = await session.connection()
    earlier = (
        await conn.execute(
            select(col(DailyPost.id))
            .where(
                col(DailyPost.guild_id) == post.guild_id,
                col(DailyPost.settled) == false(),
                col(DailyPost.day) < post.day,
            )
            .order_by(col(DailyPost.day))
            .limit(1)
        )
    ).scalar()
    assert post.id is not None
    return earlier if earlier is not None else post.id


async def _settle_claimed(
    session: AsyncSession, post: DailyPost, now: datetime, grading_of: Grading
) -> RevealSummary:
    """The settle's own transaction, once the post is claimed (the caller's session)."""
    assert post.id is not None
    conn = await session.connection()
    rows = (
        await conn.execute(
            select(
                col(DailyAnswer.user_id),
                col(DailyAnswer.choice),
                col(DailyAnswer.correct),
            ).where(col(DailyAnswer.post_id) == post.id)
        )
    ).all()
    answers = [Answer(a.user_id, a.choice, a.correct) for a in rows]
    settled = await settle_day(
        session, post.guild_id, post.day, {a.user_id: a.correct for a in answers}, now
    )
    await tallies.add_post(conn, post.guild_id, post.id, post.day, post.question_id, answers)
    await class_recall.join(conn, post.guild_id, post.id)
    summary = reveal_summary(
        post.id,
        post.guild_id,
        post.day,
        post.question_id,
        answers,
        grading_of(post.question_id),
        settled,
        list(post.unclear_users or ()),
    )
    post.summary = summary.to_json()
    if post.message_id is not None:
        # The reveal is owed with the settled day, in one transaction.
        owe(session, Owed.REVEAL, post, now)
    await session.commit()
    return summary


async def grade_post(db: Database, post_id: int) -> None:
    """Apply a settled post's answers to the review cards, GRADE_CHUNK per transaction,
    then mark it graded. Each answer is applied once (`record_grades`), so running this
    again after a crash finishes the work without doubling any of it."""
    async with db.engine.connect() as conn:
        question_id = (
            await conn.execute(
                select(col(DailyPost.question_id)).where(col(DailyPost.id) == post_id)
            )
        ).scalar_one()
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
    grades = [Grade(r.user_id, question_id, r.correct, r.answered_at, source) for r in rows]
    for start in range(0, max(1, len(grades)), GRADE_CHUNK):
        async with db.session() as session:
            await record_grades(session, grades[start : start + GRADE_CHUNK])
            if start + GRADE_CHUNK >= len(grades):
                await session.exec(
                    update(DailyPost).where(col(DailyPost.id) == post_id).values(graded=True)
                )
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
