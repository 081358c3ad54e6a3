"""What the outbox sends for the daily question: a post's answer reactions and its reveal.

A refusal for good (403/404) gives the item up; a 403 on the reactions also stops the
server's schedule, as a refused post does. Other failures are retried by the outbox.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.core.errors import PublishRefused, StopReason
from bot.services.daily.publisher import DailyPublisher
from bot.services.daily.service import DailyService
from bot.services.daily.settling import RevealSummary
from bot.services.outbox import OutboxService, nonce
from bot.storage import (
    DailyPost,
    Outbox,
)

log = logging.getLogger("quiztutor.daily")


class Announcements:
    """The outbox's senders (a part of `DailyJobs`)."""

    daily: DailyService
    publisher: DailyPublisher
    outbox: OutboxService
    owns_guild: Callable[[int], bool]

    def unschedule_guild(self, guild_id: int) -> None:
        raise NotImplementedError  # DailyJobs

    async def _owed_post(self, item: Outbox) -> DailyPost:
        async with self.daily.db.session() as session:
            post = await session.get(DailyPost, item.post_id)
        if post is None or post.message_id is None:
            raise PublishRefused(
                StopReason.NOT_FOUND
            )  # deleted with its guild's data: nothing to say
        return post

    async def _send_reactions(self, item: Outbox) -> int | None:
        assert item.id is not None
        post = await self._owed_post(item)
        assert post.message_id is not None
        try:
            await self.publisher.add_reactions(post.channel_id, post.message_id, post.question_id)
        except PublishRefused as refused:
            if refused.reason is StopReason.REACTIONS_FORBIDDEN:
                # Today's question stays open (members can add the reactions themselves),
                # but a channel where the bot may not react is not a working setup: stop
                # the schedule and let the next admin command say how to fix it.
                await self.daily.disable(post.guild_id, reason=refused.reason)
                self.unschedule_guild(post.guild_id)
                log.warning(
                    "Discord refused the answer reactions; schedule disabled",
                    extra={"guild_id": post.guild_id, "message_id": post.message_id},
                )
            raise  # a deleted post (404) is given up too; tomorrow's post still goes out
        return None

    async def _send_reveal(self, item: Outbox) -> int | None:
        assert item.id is not None
        post = await self._owed_post(item)
        if post.summary is None:
            raise PublishRefused(StopReason.NOT_FOUND)
        config = await self.daily.config(post.guild_id)
        locale = config.locale if config is not None else "id"
        summary = RevealSummary.from_json(post.summary)
        return await self.publisher.reveal(post, summary, locale, nonce(item.kind, item.id))

    async def run_outbox_job(self) -> int:
        try:
            return await self.outbox.pump(self.owns_guild)
        except Exception:
            log.exception("outbox delivery failed")
            return 0
