"""Answer reactions: which emoji is which choice, what a reaction list read back from
Discord means, and the driver's live path (graded on the gateway, counted for tests).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence

from bot.services.daily.grading_types import AnswerStatus
from bot.services.daily.publisher import DailyPublisher
from bot.services.daily.service import DailyService
from bot.storage import (
    DailyPost,
)

# Regional indicator letters 🇦 🇧 🇨 ...: reaction emoji -> choice index (as written).
ANSWER_EMOJI: tuple[str, ...] = tuple(chr(0x1F1E6 + i) for i in range(6))
EMOJI_CHOICE: dict[str, int] = {emoji: index for index, emoji in enumerate(ANSWER_EMOJI)}

log = logging.getLogger("quiztutor.daily")

# Startup reaction reads at once (REST, rate-limited per channel by discord.py).
MAX_CONCURRENT_RECOVERIES = 8


def one_answer_each(reactions: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Reactions read back from Discord carry no time: a member with several answer
    emoji is ambiguous (and could be hedging), so only single answers are kept."""
    choices: dict[int, set[int]] = {}
    order: list[int] = []
    for user_id, choice in reactions:
        if user_id not in choices:
            choices[user_id] = set()
            order.append(user_id)
        choices[user_id].add(choice)
    return [(u, next(iter(choices[u]))) for u in order if len(choices[u]) == 1]


def several_answers(reactions: Sequence[tuple[int, int]]) -> list[int]:
    """The members `one_answer_each` leaves out: two or more different letters."""
    choices: dict[int, set[int]] = {}
    for user_id, choice in reactions:
        choices.setdefault(user_id, set()).add(choice)
    return sorted(u for u, c in choices.items() if len(c) > 1)


class AwaitableCount:
    """A counter that can be awaited until it reaches a value (no polling, no sleeps)."""

    def __init__(self) -> None:
        self.count = 0
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []

    def bump(self) -> None:
        self.count += 1
        if self._waiters:
            still = []
            for target, future in self._waiters:
                if self.count >= target:
                    if not future.done():
                        future.set_result(None)
                else:
                    still.append((target, future))
            self._waiters = still

    async def reached(self, target: int) -> None:
        if self.count >= target:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((target, future))
        await future


class LiveReactions:
    """The driver's reaction events (a part of `DailyJobs`)."""

    daily: DailyService
    publisher: DailyPublisher
    owns_guild: Callable[[int], bool]
    bot_user_id: int | None
    recoveries: AwaitableCount
    _reactions_seen: AwaitableCount

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

        posts = [p for p in await self.daily.open_posts() if self.owns_guild(p.guild_id)]
        try:
            return sum(await asyncio.gather(*(one(p) for p in posts)))
        finally:
            self.recoveries.bump()

    async def recover(self, post: DailyPost) -> int:
        reactions = await self.publisher.fetch_reactions(post)
        if self.bot_user_id is not None:
            reactions = [(u, c) for u, c in reactions if u != self.bot_user_id]
        counted = await self.daily.recover_answers(post, one_answer_each(reactions))
        assert post.id is not None
        await self.daily.note_unclear(post.id, several_answers(reactions))
        return counted

    async def on_reaction(
        self, message_id: int, channel_id: int, user_id: int, emoji: str
    ) -> AnswerStatus | None:
        """One raw reaction event; None when it is not an answer to an open daily post.

        The hot path: a dict lookup dismisses the bot's own and foreign emoji, and
        `post_by_message` dismisses other channels from memory.
        """
        try:
            choice = EMOJI_CHOICE.get(emoji)
            if choice is None or user_id == self.bot_user_id:
                return None
            post = await self.daily.post_by_message(message_id, channel_id)
            if post is None:
                return None
            outcome = await self.daily.record_answer(post, user_id, choice)
            return outcome.status
        finally:
            self._reactions_seen.bump()

    def grade_and_queue(self, message_id: int, user_id: int, choice: int) -> bool:
        """The fast path: grade a reaction on a post this process holds open.

        Synchronous (the listener's task ends without awaiting the commit); False when
        the post is not in memory, so the caller takes the awaited path (`on_reaction`). The answer is counted
        as seen once its commit is done, like `on_reaction`.
        """
        post = self.daily.open_post_in_memory(message_id)
        if post is None:
            return False
        if user_id == self.bot_user_id:
            self._reactions_seen.bump()
            return True
        queued = self.daily.record_answer_nowait(post, user_id, choice)
        if isinstance(queued, tuple):
            queued[1].add_done_callback(self._answer_written)
        else:
            self._reactions_seen.bump()
        return True

    def _answer_written(self, future: asyncio.Future[bool]) -> None:
        if not future.cancelled() and future.exception() is not None:
            log.error("writing a daily answer failed", exc_info=future.exception())
        self._reactions_seen.bump()

    @property
    def reactions_seen(self) -> int:
        return self._reactions_seen.count

    async def wait_reactions_seen(self, count: int) -> None:
        """Until `on_reaction` has finished `count` events (tests and benchmarks)."""
        await self._reactions_seen.reached(count)
