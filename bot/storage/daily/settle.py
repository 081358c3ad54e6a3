"""Settling a day in one short transaction: close the post, apply the answering members'
streaks (and end the others'), apply every answer to its review card, add the post to
the tallies and its answerers to the class, store the reveal's summary and owe the
reveal to the channel.

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

from sqlalchemy import exists, false, select, update
from sqlalchemy.orm import aliased
from sqlmodel import col

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
        .values(settled=True)
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
        if claimed.rowcount == 0:
            if post.settled and post.summary is not None:
                return post, RevealSummary.from_json(post.summary)
            if not post.settled:
                earlier = (
                    await session.exec(
                        select(DailyPost.id)  # type: ignore[call-overload]
                        .where(
                            col(DailyPost.guild_id) == post.guild_id,
                            col(DailyPost.settled) == false(),
                            col(DailyPost.day) < post.day,
                        )
                        .order_by(col(DailyPost.day))
                        .limit(1)
                    )
                ).first()
                # None: the earlier post was settled meanwhile; the caller tries again.
                raise SettleBlocked(post_id, earlier[0] if earlier else post_id)
        conn = await session.connection()
        rows = (
            await conn.execute(
                select(
                    col(DailyAnswer.user_id),
                    col(DailyAnswer.choice),
                    col(DailyAnswer.correct),
                    col(DailyAnswer.answered_at),
                ).where(col(DailyAnswer.post_id) == post_id)
            )
        ).all()
        answers = [Answer(a.user_id, a.choice, a.correct) for a in rows]
        settled = await settle_day(
            session, post.guild_id, post.day, {a.user_id: a.correct for a in answers}, now
        )
        # Every answer of the day updates its member's review card, once: only the settler
        # that closed the post gets here, in the transaction that closes it.
        source = Source(DAILY, str(post_id))
        await record_grades(
            session,
            [Grade(a.user_id, post.question_id, a.correct, a.answered_at, source) for a in rows],
        )
        await tallies.add_post(conn, post.guild_id, post_id, post.day, post.question_id, answers)
        await class_recall.join(conn, post.guild_id, post_id)
        summary = reveal_summary(
            post_id,
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
    return post, summary
