"""Settling a day in one transaction: close the post, apply every member's streak and review
card, store the reveal's summary and owe the reveal to the channel."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import update
from sqlmodel import col, select

from bot.core.daily.types import Answer, RevealSummary, reveal_summary
from bot.core.outbox import Owed
from bot.core.review import DAILY, Grade, Source
from bot.storage.database import Database
from bot.storage.memory import rules_on
from bot.storage.models import DailyAnswer, DailyPost, GuildDailyConfig
from bot.storage.outbox import owe
from bot.storage.review_cards import record_grades
from bot.storage.streaks import settle_day

Grading = Callable[[DailyPost], "tuple[int, int] | None"]


async def settle_post(
    db: Database, post_id: int, now: datetime, grading_of: Grading
) -> tuple[DailyPost, RevealSummary]:
    """Settle a post once; a later call returns the stored summary unchanged.

    The conditional UPDATE lets exactly one caller settle, across processes.
    `grading_of(post)` is (right choice, number of choices), None if it left the bank.
    """
    async with db.session() as session:
        claimed = await session.exec(
            update(DailyPost)
            .where(col(DailyPost.id) == post_id, col(DailyPost.settled).is_(False))
            .values(settled=True)
        )
        post = await session.get(DailyPost, post_id)
        if post is None:
            raise LookupError(f"no daily post {post_id}")
        if claimed.rowcount == 0 and post.summary is not None:
            return post, RevealSummary.from_json(post.summary)
        rows = (await session.exec(select(DailyAnswer).where(DailyAnswer.post_id == post_id))).all()
        answers = [Answer(a.user_id, a.choice, a.correct) for a in rows]
        settled = await settle_day(
            session, post.guild_id, post.day, {a.user_id: a.correct for a in answers}, now
        )
        # Every answer of the day updates its member's review card, once: only the settler
        # that closed the post gets here, in the transaction that closes it.
        source = Source(DAILY, str(post_id))
        guild = post.guild_id
        await record_grades(
            session,
            [
                Grade(a.user_id, post.question_id, a.correct, a.answered_at, source, guild_id=guild)
                for a in rows
            ],
            await rules_on(await session.connection(), guild),  # the server's memory model
        )
        summary = reveal_summary(
            post_id,
            post.guild_id,
            post.day,
            post.question_id,
            answers,
            grading_of(post),
            settled,
            list(post.unclear_users or ()),
        )
        post.summary = summary.to_json()
        if post.message_id is not None:
            # The reveal is owed with the settled day, in one transaction.
            owe(session, Owed.REVEAL, post, now)
            config = await session.get(GuildDailyConfig, post.guild_id)
            if config is not None and config.discussion:
                # So is its discussion thread, where the server asked for one.
                owe(session, Owed.DISCUSSION, post, now)
        await session.commit()
    return post, summary
