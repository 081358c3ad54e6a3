"""Settling a day: close the post in this process, write the answers still queued, then
settle it in the database (`bot.storage.daily.settle`: streaks, review cards, tallies,
the reveal's summary and the reveal owed, in one transaction), the server's earlier open
posts first; then fold the day's new members into the class recall."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from bot.core.daily.types import RevealSummary
from bot.services.daily.answers import DailyAnswers
from bot.services.daily.open_posts import OpenPosts
from bot.storage import AnswerWriter, Database
from bot.storage.class_recall import fold
from bot.storage.daily.settle import SettleBlocked, grade_post, settle_post, ungraded_posts

log = logging.getLogger(__name__)
# A post whose earlier post was settled by someone else between two looks: try again
# (each try waits for that settle's commit, so a few are plenty).
TRIES = 20


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
        for _ in range(TRIES):
            try:
                post, summary = await settle_post(self.db, post_id, now, self.answers.grading)
                break
            except SettleBlocked as blocked:
                # A later day never overtakes an earlier open one: that one first (its
                # reveal is owed with it and goes out through the outbox).
                if blocked.earlier != post_id:
                    await self.settle(blocked.earlier, now)
        else:
            raise RuntimeError(f"daily post {post_id}: earlier posts kept changing")
        self.open_posts.forget(post)
        try:
            await fold(self.db, post.guild_id, now)
        except Exception:  # the next choice folds them in
            log.exception(
                "folding new members into the class failed", extra={"guild_id": post.guild_id}
            )
        return summary

    async def finish_grading(self) -> int:
        """At start-up: apply to the review cards what a crash left out of a settled day."""
        posts = await ungraded_posts(self.db)
        for post_id in posts:
            await grade_post(self.db, post_id)
        return len(posts)
