"""Settling a day: close the post in this process, write the answers still queued, then
settle it in the database (`bot.storage.daily.settle`: streaks, review cards, the reveal's
summary and the reveal owed, in one transaction)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from bot.core.daily.types import RevealSummary
from bot.services.daily.answers import DailyAnswers
from bot.services.daily.open_posts import OpenPosts
from bot.storage import AnswerWriter, Database
from bot.storage.daily.settle import settle_post


class DailySettling:
    def __init__(
        self,
        db: Database,
        clock: Callable[[], datetime],
        open_posts: OpenPosts,
        writer: AnswerWriter,
        answers: DailyAnswers,
    ) -> None:
        self.db = db
        self.clock = clock
        self.open_posts = open_posts
        self.writer = writer
        self.answers = answers

    async def settle(self, post_id: int, now: datetime | None = None) -> RevealSummary:
        """Close a post, update every member's streak, and store the reveal.

        Idempotent and safe across processes: exactly one caller settles; any later call
        returns the stored summary unchanged.
        """
        now = now or self.clock()
        self.open_posts.close(post_id)
        # Answers graded before the close may still sit in the writer's queue: they
        # must count in this reveal and in the streaks it settles.
        await self.writer.flush()
        post, summary = await settle_post(self.db, post_id, now, self.answers.grading)
        self.open_posts.forget(post)
        return summary
