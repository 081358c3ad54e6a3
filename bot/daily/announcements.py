"""What the outbox sends for the daily question: a post's answer reactions, its reveal
and its discussion thread.

A refusal for good (403/404) gives the item up; a 403 on the reactions also stops the
server's schedule, as a refused post does; a 403 on the thread turns the server's
discussion off (posting goes on) and the next admin command says why. Other failures
are retried by the outbox.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from bot.common.errors import PublishRefused, StopReason
from bot.common.i18n import DEFAULT_LOCALE
from bot.daily import configs_store, posts_store
from bot.daily.publisher import DailyPublisher
from bot.daily.questions import post_question
from bot.daily.service import DailyService
from bot.daily.types import RevealSummary
from bot.db.tables.daily import DailyPost
from bot.db.tables.outbox import Outbox
from bot.outbox.rules import nonce

log = logging.getLogger("quiztutor.daily")


class Announcements:
    """The outbox's senders for the daily question."""

    def __init__(
        self,
        daily: DailyService,
        publisher: DailyPublisher,
        stop_schedule: Callable[[int], None],
    ) -> None:
        self.daily = daily
        self.publisher = publisher
        self.stop_schedule = stop_schedule  # a guild's schedule, once Discord refused for good

    async def _owed_post(self, item: Outbox) -> DailyPost:
        post = None if item.post_id is None else await posts_store.get(self.daily.db, item.post_id)
        if post is None or post.message_id is None:
            # Deleted with its guild's data: nothing to say.
            raise PublishRefused(StopReason.NOT_FOUND)
        return post

    async def send_reactions(self, item: Outbox) -> int | None:
        post = await self._owed_post(item)
        assert post.message_id is not None
        question = post_question(self.daily.bank, post.question_id, post.instance)
        if question is None:
            raise PublishRefused(StopReason.NOT_FOUND)  # the question left the bank meanwhile
        try:
            await self.publisher.add_reactions(post.channel_id, post.message_id, question.n_choices)
        except PublishRefused as refused:
            if refused.reason is StopReason.REACTIONS_FORBIDDEN:
                # Today's question stays open (members can add the reactions themselves),
                # but a channel where the bot may not react is not a working setup: stop
                # the schedule and let the next admin command say how to fix it.
                await configs_store.disable(
                    self.daily.db, post.guild_id, refused.reason, self.daily.clock()
                )
                self.stop_schedule(post.guild_id)
                log.warning(
                    "Discord refused the answer reactions; schedule disabled",
                    extra={"guild_id": post.guild_id, "message_id": post.message_id},
                )
            raise  # a deleted post (404) is given up too; tomorrow's post still goes out
        return None

    async def send_reveal(self, item: Outbox) -> int | None:
        assert item.id is not None
        post = await self._owed_post(item)
        if post.summary is None:
            raise PublishRefused(StopReason.NOT_FOUND)
        locale = await self._locale(post.guild_id)
        summary = RevealSummary.from_json(post.summary)
        question = post_question(self.daily.bank, post.question_id, post.instance)
        return await self.publisher.reveal(
            post, question, summary, locale, nonce(item.kind, item.id)
        )

    async def find_reveal(self, item: Outbox, since: datetime) -> int | None:
        """The reveal an attempt of unknown outcome may have left: the bot's reply to the
        post, sent after `since` (the outbox asks before sending the reveal again)."""
        post = await self._owed_post(item)
        return await self.publisher.find_reveal(post, since)

    async def send_discussion(self, item: Outbox) -> int | None:
        post = await self._owed_post(item)
        locale = await self._locale(post.guild_id)
        try:
            return await self.publisher.open_discussion(
                post, post_question(self.daily.bank, post.question_id, post.instance), locale
            )
        except PublishRefused as refused:
            if refused.reason is StopReason.FORBIDDEN:
                # No permission to open threads there: no more discussions until an admin
                # grants it and turns them on again; the daily question itself goes on.
                await configs_store.refuse_discussion(
                    self.daily.db, post.guild_id, self.daily.clock()
                )
                log.warning(
                    "Discord refused the discussion thread; discussion turned off",
                    extra={"guild_id": post.guild_id, "message_id": post.message_id},
                )
            raise

    # No finder for the thread: resending is harmless (Discord refuses a second thread
    # on a message with 160004, which `open_discussion` counts as opened).

    async def _locale(self, guild_id: int) -> str:
        config = await configs_store.get(self.daily.db, guild_id)
        return config.locale if config is not None else DEFAULT_LOCALE
