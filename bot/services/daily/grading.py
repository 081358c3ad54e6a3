"""Grading reactions: the in-memory cache of open posts (a reaction on any other message
costs no query), live answers (first answer counts) and answers read back after downtime.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime

from sqlmodel import col, select

from bot.services.daily.base import MAX_CLOSED_REMEMBERED
from bot.services.daily.grading_types import AnswerStatus, DailyAnswerOutcome, OpenPost, _open_post
from bot.services.daily.posts import DailyPosts
from bot.storage import (
    DailyPost,
    GuildDailyConfig,
)


class DailyGrading(DailyPosts):
    async def refresh_cache(self) -> None:
        posts = await self.open_posts()
        self._open = {p.message_id: _open_post(p) for p in posts if p.message_id is not None}
        async with self.db.session() as session:
            configs = (await session.exec(select(GuildDailyConfig))).all()
        self._daily_channels = {c.channel_id for c in configs} | {p.channel_id for p in posts}

    async def post_by_message(
        self, message_id: int, channel_id: int | None = None
    ) -> OpenPost | None:
        """The open post behind a message, for the raw reaction handler.

        Answered from memory for posts this process knows. Pass `channel_id` so a
        reaction outside every daily channel is dismissed without a query; otherwise a
        miss costs one indexed lookup (the post may come from another bot process).
        """
        known = self._open.get(message_id)
        if known is not None:
            return known
        if channel_id is not None and channel_id not in self._daily_channels:
            return None
        async with self.db.session() as session:
            query = select(DailyPost).where(
                DailyPost.message_id == message_id, col(DailyPost.settled).is_(False)
            )
            post = (await session.exec(query)).first()
        if post is None:
            return None
        self._open[message_id] = _open_post(post)
        return self._open[message_id]

    def open_post_in_memory(self, message_id: int) -> OpenPost | None:
        """The open post of a message if this process knows it (no query)."""
        return self._open.get(message_id)

    def _grading(self, question_id: str) -> tuple[int, int] | None:
        """(correct index as written, number of choices), or None if the question is gone."""
        try:
            question = self.bank.question(question_id)
        except KeyError:
            return None
        return question.answer, question.n_choices

    async def record_answer(
        self, post: OpenPost, user_id: int, choice: int, now: datetime | None = None
    ) -> DailyAnswerOutcome:
        """Grade one reaction; only a member's first answer counts (choice as written)."""
        queued = self.record_answer_nowait(post, user_id, choice, now)
        if isinstance(queued, DailyAnswerOutcome):
            return queued
        correct, written = queued
        if not await written:
            return DailyAnswerOutcome(AnswerStatus.DUPLICATE)
        return DailyAnswerOutcome(AnswerStatus.RECORDED, correct)

    def record_answer_nowait(
        self, post: OpenPost, user_id: int, choice: int, now: datetime | None = None
    ) -> DailyAnswerOutcome | tuple[bool, asyncio.Future[bool]]:
        """Grade and queue without awaiting the commit (the gateway hot path).

        Returns the outcome when nothing is written (closed, invalid), else whether the
        answer is correct and the writer's future: True once committed as the member's
        first answer, False for a duplicate.
        """
        now = now or self.clock()
        grading = self._grading(post.question_id)
        if post.post_id in self._closed or now >= post.reveal_at or grading is None:
            return DailyAnswerOutcome(AnswerStatus.CLOSED)
        answer, n_choices = grading
        if not 0 <= choice < n_choices:
            return DailyAnswerOutcome(AnswerStatus.INVALID)
        correct = choice == answer
        return correct, self.writer.enqueue(post.post_id, user_id, choice, correct, now)

    async def recover_answers(
        self,
        post: OpenPost | DailyPost,
        reactions: Sequence[tuple[int, int]],
        now: datetime | None = None,
    ) -> int:
        """Store reactions made while the bot was away, in reaction order; idempotent.

        Unlike live answers this ignores the reveal time (the reactions came earlier),
        but a settled post is never changed. Returns how many answers were new.
        """
        post_id = post.post_id if isinstance(post, OpenPost) else post.id
        assert post_id is not None
        grading = self._grading(post.question_id)
        if post_id in self._closed or grading is None or getattr(post, "settled", False):
            return 0
        answer, n_choices = grading
        now = now or self.clock()
        valid = [(user, choice) for user, choice in reactions if 0 <= choice < n_choices]
        # Submitted together, they reach the writer's queue (and the INSERT) in order.
        results = await asyncio.gather(
            *(
                self.writer.submit(post_id, user, choice, choice == answer, now)
                for user, choice in valid
            )
        )
        return sum(results)

    async def note_unclear(self, post_id: int, users: Sequence[int]) -> None:
        """Remember members whose offline reactions named several letters (not counted)."""
        if not users:
            return
        async with self.db.session() as session:
            post = await session.get(DailyPost, post_id)
            if post is None or post.settled:
                return
            post.unclear_users = sorted(set(post.unclear_users or ()) | set(users))
            await session.commit()

    def _forget(self, post: DailyPost) -> None:
        if post.message_id is not None:
            self._open.pop(post.message_id, None)

    def _close(self, post_id: int) -> None:
        """No more answers for this post in this process (bounded: old ids are dropped)."""
        self._closed[post_id] = None
        if len(self._closed) > MAX_CLOSED_REMEMBERED:
            del self._closed[next(iter(self._closed))]
