"""Settling a day: close the post in this process, write the answers still queued, then
settle it in the database (`bot.daily.settle_store`: streaks, tallies, the class, the
reveal's summary and the reveal owed, in one short transaction), the server's earlier
open posts first. The day's answers then go onto the review cards in the background
(`graded()` waits for them), one server's days in day order, and the day's new members
are folded into the class recall; the reveal does not wait for either."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime

from bot.daily.answers import DailyAnswers
from bot.daily.answers_store import AnswerWriter
from bot.daily.open_posts import OpenPosts
from bot.daily.settle_store import SettleBlocked, grade_post, settle_post, ungraded_posts
from bot.daily.types import RevealSummary
from bot.db.database import Database
from bot.db.retry import retry_transient
from bot.learning.recall_store import fold

log = logging.getLogger(__name__)
# A post whose earlier post was settled by someone else between two looks: try again
# (each try waits for that settle's commit, so a few are plenty).
TRIES = 20
# The fold after a day's cards counts that day's new members in; more than this (the
# thousands an upgrade leaves) is the background fold's (`bot.learning.recall_backfill`).
SETTLE_FOLD_S = 1.0


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
        # The last review-card task of each server (the next one waits for it).
        self._grading: dict[int, asyncio.Task[None]] = {}

    async def settle(self, post_id: int, now: datetime | None = None) -> RevealSummary:
        """Close a post, update every member's streak, and store the reveal; the review
        cards follow in the background (`graded`).

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
                async with self.db.priority.urgent():  # before background work's writes
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
        if not post.graded:
            self._grade_later(post_id, post.guild_id, now)
        return summary

    def _grade_later(self, post_id: int, guild_id: int, now: datetime) -> None:
        previous = self._grading.get(guild_id)
        task = asyncio.create_task(
            self._grade(previous, post_id, guild_id, now), name=f"grade-post:{post_id}"
        )
        self._grading[guild_id] = task
        task.add_done_callback(lambda done: self._forget(guild_id, done))

    def _forget(self, guild_id: int, task: asyncio.Task[None]) -> None:
        if self._grading.get(guild_id) is task:
            del self._grading[guild_id]

    async def _grade(
        self, previous: asyncio.Task[None] | None, post_id: int, guild_id: int, now: datetime
    ) -> None:
        if previous is not None:  # one server's days in day order
            await asyncio.gather(previous, return_exceptions=True)
        try:
            await retry_transient(
                lambda: grade_post(self.db, post_id), "applying a settled day to review cards"
            )
            await retry_transient(
                lambda: fold(self.db, guild_id, now, SETTLE_FOLD_S),
                "folding new members into the class",
            )
        except Exception:  # still owed: the next start-up finishes it (`finish_grading`)
            log.exception(
                "applying a settled day to the review cards failed",
                extra={"guild_id": guild_id, "post_id": post_id},
            )

    async def graded(self, guild_id: int | None = None, within_s: float | None = None) -> None:
        """Until the review cards (and class) of the days this process settled are done:
        of one server, or of all; with `within_s`, for at most that long (the work goes
        on in the background)."""
        deadline = None if within_s is None else asyncio.get_running_loop().time() + within_s
        while True:
            if guild_id is None:
                pending = list(self._grading.values())
            else:
                pending = [t for t in (self._grading.get(guild_id),) if t is not None]
            if not pending:
                return
            if deadline is None:
                await asyncio.gather(*pending, return_exceptions=True)
                continue
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                return
            await asyncio.wait(pending, timeout=left)

    async def finish_grading(self) -> int:
        """At start-up: apply to the review cards what a crash left out of a settled day."""
        posts = await ungraded_posts(self.db)
        for post_id in posts:
            await grade_post(self.db, post_id)
        return len(posts)
