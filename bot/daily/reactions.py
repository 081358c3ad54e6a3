"""Answer reactions as they arrive (graded on the gateway) and as read back after downtime."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from bot.common.awaitable import AwaitableCount
from bot.daily import posts_store
from bot.daily.publisher import DailyPublisher
from bot.daily.reaction_rules import EMOJI_CHOICE, one_answer_each, several_answers
from bot.daily.service import DailyService
from bot.daily.types import BUTTONS, AnswerStatus
from bot.db.tables.daily import DailyPost

log = logging.getLogger("quiztutor.daily")

# Startup reaction reads at once (REST, rate-limited per channel by discord.py).
MAX_CONCURRENT_RECOVERIES = 8


class ReactionHandler:
    """`on_reaction` and `grade_and_queue` for live events, `recover_all` for what came
    while the bot was away. `seen` and `recoveries` count for tests and benchmarks."""

    def __init__(
        self,
        daily: DailyService,
        publisher: DailyPublisher,
        owns_guild: Callable[[int], bool] = lambda guild_id: True,
        own_user_id: Callable[[], int | None] = lambda: None,
    ) -> None:
        self.daily = daily
        self.publisher = publisher
        self.owns_guild = owns_guild
        # The bot's own user id (its A-D reactions are never an answer): asked at each
        # reaction, so it holds from the first gateway event on (discord.py sets the
        # client's user from READY, before it dispatches any event of that session).
        self.own_user_id = own_user_id
        # Reaction events seen by `on_reaction` (counted or ignored).
        self.seen = AwaitableCount()
        # Completed passes of reading open posts' reactions (start-up and new sessions).
        self.recoveries = AwaitableCount()

    async def recover_all(self) -> int:
        """Count the reactions made on open posts while the bot was offline (idempotent)."""
        slots = asyncio.Semaphore(MAX_CONCURRENT_RECOVERIES)

        async def one(post: DailyPost) -> int:
            async with slots:
                try:
                    return await self.recover(post)
                except Exception:
                    log.exception(
                        "reading daily reactions failed",
                        extra={"guild_id": post.guild_id, "post_id": post.id},
                    )
                    return 0

        posts = [
            p for p in await posts_store.open_posts(self.daily.db) if self.owns_guild(p.guild_id)
        ]
        try:
            return sum(await asyncio.gather(*(one(p) for p in posts)))
        finally:
            self.recoveries.bump()

    async def recover(self, post: DailyPost) -> int:
        if post.answer_mode == BUTTONS:
            return 0  # its answers came by button presses: nothing to read back
        grading = self.daily.answers.grading(post)
        if grading is None:
            return 0  # the question left the bank: the post is revealed without it
        reactions = await self.publisher.fetch_reactions(post, grading[1])
        own = self.own_user_id()
        reactions = [(u, c) for u, c in reactions if u != own]
        counted = await self.daily.answers.recover(post, one_answer_each(reactions))
        assert post.id is not None
        await posts_store.note_unclear(self.daily.db, post.id, several_answers(reactions))
        return counted

    async def on_reaction(
        self, message_id: int, channel_id: int, user_id: int, emoji: str
    ) -> AnswerStatus | None:
        """One raw reaction event; None when it is not an answer to an open daily post.

        A dict lookup dismisses the bot's own and foreign emoji, and `post_by_message`
        dismisses other channels from memory.
        """
        try:
            position = EMOJI_CHOICE.get(emoji)
            if position is None or user_id == self.own_user_id():
                return None
            post = await self.daily.answers.post_by_message(message_id, channel_id)
            if post is None or post.answer_mode == BUTTONS:
                return None  # a reaction on a buttons post is no answer
            outcome = await self.daily.answers.record(post, user_id, position)
            return outcome.status
        finally:
            self.seen.bump()

    def grade_and_queue(self, message_id: int, user_id: int, position: int) -> bool:
        """The fast path: grade a reaction (the letter at `position`) on a post this
        process holds open.

        Synchronous (the listener's task ends without awaiting the commit); False when
        the post is not in memory, so the caller takes the awaited path (`on_reaction`).
        The answer is counted as seen once its commit is done, like `on_reaction`.
        """
        post = self.daily.open_posts.get(message_id)
        if post is None:
            return False
        if user_id == self.own_user_id() or post.answer_mode == BUTTONS:
            self.seen.bump()
            return True
        queued = self.daily.answers.record_nowait(post, user_id, position)
        if isinstance(queued, tuple):
            queued[1].add_done_callback(self._answer_written)
        else:
            self.seen.bump()
        return True

    def _answer_written(self, future: asyncio.Future[bool]) -> None:
        if not future.cancelled() and future.exception() is not None:
            log.error("writing a daily answer failed", exc_info=future.exception())
        self.seen.bump()

    async def wait_seen(self, count: int) -> None:
        """Until `count` reaction events were handled (tests and benchmarks)."""
        await self.seen.reached(count)
