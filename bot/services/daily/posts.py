"""The post lifecycle and its SQL: the day's question, the claim that decides who posts
(UNIQUE(guild_id, day), also across processes), the message id, and the queries the
scheduler driver needs.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import delete, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from bot.services.daily.base import DailyBase
from bot.services.daily.choice import (
    REPEAT_AFTER_DEFAULT,
    Choice,
    choose,
    history_of,
    recent_questions,
    signals_of,
    window_days,
)
from bot.services.daily.grading_types import _open_post
from bot.services.outbox import Owed, owe
from bot.storage import (
    DailyPost,
)


class DailyPosts(DailyBase):
    async def pick_question(
        self,
        guild_id: int,
        day: date,
        topic: str | None,
        repeat_after: int = REPEAT_AFTER_DEFAULT,
    ) -> str:
        """The day's question id (see `choose_daily`)."""
        return (await self.choose_daily(guild_id, day, topic, repeat_after)).question_id

    async def choose_daily(
        self,
        guild_id: int,
        day: date,
        topic: str | None,
        repeat_after: int = REPEAT_AFTER_DEFAULT,
    ) -> Choice:
        """The day's question and why: not posted within K days, the one the server's
        active members are weakest at, ties by the seeded rotation (`bot.services.daily.choice`)."""
        # All quizzes this server may see: shipped ones and its own, never another's.
        questions = sorted({q.id for q in self.bank.visible_questions(guild_id, topic)})
        async with self.db.session() as session:
            history = await history_of(session, guild_id, day)
            window = window_days(repeat_after, len(questions))
            recent = recent_questions(history, day, window)
            candidates = [q for q in questions if q not in recent]
            members, signals = await signals_of(session, guild_id, candidates, self.clock())
        return choose(guild_id, day, questions, history, signals, repeat_after, members)

    async def claim_post(
        self,
        guild_id: int,
        day: date,
        question_id: str,
        channel_id: int,
        reveal_at: datetime,
        choice: dict[str, Any] | None = None,
    ) -> DailyPost | None:
        """Reserve (guild, day); None when that day's post exists already (maybe in another process)."""
        post = DailyPost(
            guild_id=guild_id,
            day=day,
            question_id=question_id,
            channel_id=channel_id,
            reveal_at=reveal_at,
            claimed_at=self.clock(),
            choice=choice,
        )
        async with self.db.session() as session:
            session.add(post)
            try:
                await session.commit()
            except IntegrityError:
                await session.rollback()
                return None
        return post

    async def release_claim(self, post_id: int) -> None:
        """Give a claim back when posting failed before any message existed (retry later)."""
        async with self.db.session() as session:
            await session.exec(
                delete(DailyPost).where(
                    col(DailyPost.id) == post_id, col(DailyPost.message_id).is_(None)
                )
            )
            await session.commit()

    async def set_message(
        self, post_id: int, message_id: int, posted_at: datetime | None = None
    ) -> DailyPost:
        async with self.db.session() as session:
            post = await session.get(DailyPost, post_id)
            if post is None:
                raise LookupError(f"no daily post {post_id}")
            first = post.message_id is None
            post.message_id = message_id
            post.posted_at = posted_at or self.clock()
            if first:
                # The answer reactions are owed with the message id, in one transaction.
                owe(session, Owed.REACTIONS, post, post.posted_at)
            await session.commit()
        if not post.settled:
            self._open[message_id] = _open_post(post)
            self._daily_channels.add(post.channel_id)
        return post

    async def post(self, post_id: int) -> DailyPost | None:
        async with self.db.session() as session:
            return await session.get(DailyPost, post_id)

    async def open_posts(self) -> list[DailyPost]:
        """Posted and not yet settled."""
        async with self.db.session() as session:
            query = select(DailyPost).where(
                col(DailyPost.settled).is_(False), col(DailyPost.message_id).is_not(None)
            )
            return list((await session.exec(query)).all())

    async def due_reveals(self, now: datetime) -> list[DailyPost]:
        """Unsettled posts whose reveal time has come (claimed-but-unposted ones too)."""
        async with self.db.session() as session:
            query = select(DailyPost).where(
                col(DailyPost.settled).is_(False), col(DailyPost.reveal_at) <= now
            )
            return list((await session.exec(query)).all())

    async def post_for_day(self, guild_id: int, day: date) -> DailyPost | None:
        async with self.db.session() as session:
            query = select(DailyPost).where(DailyPost.guild_id == guild_id, DailyPost.day == day)
            return (await session.exec(query)).first()

    async def unsettled(self, guild_id: int) -> list[DailyPost]:
        """The guild's posts not yet settled, oldest first (`/daily reveal`)."""
        async with self.db.session() as session:
            query = (
                select(DailyPost)
                .where(DailyPost.guild_id == guild_id, col(DailyPost.settled).is_(False))
                .order_by(col(DailyPost.day))
            )
            return list((await session.exec(query)).all())

    async def unsettled_before(self, guild_id: int, today: date, now: datetime) -> list[DailyPost]:
        """Earlier days' open posts and any whose reveal time has come (before a new post)."""
        async with self.db.session() as session:
            query = select(DailyPost).where(
                DailyPost.guild_id == guild_id,
                col(DailyPost.settled).is_(False),
                (col(DailyPost.day) < today) | (col(DailyPost.reveal_at) <= now),
            )
            return list((await session.exec(query)).all())

    async def last_post_days(self) -> dict[int, date]:
        """Each guild's latest post day, in one query (10,000 guilds at start-up)."""
        async with self.db.session() as session:
            rows = await session.exec(
                select(DailyPost.guild_id, func.max(DailyPost.day)).group_by(
                    col(DailyPost.guild_id)
                )
            )
            return {guild_id: day for guild_id, day in rows.all()}
