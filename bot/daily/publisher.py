"""What the daily driver needs from Discord (the daily cog implements it with discord.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from bot.daily.types import RevealSummary
from bot.db.tables.daily import DailyPost, GuildDailyConfig
from bot.quizbank import Question


class DailyPublisher(Protocol):
    """What the driver needs from Discord. Raise `PublishRefused` for 403/404."""

    async def post(
        self, config: GuildDailyConfig, post: DailyPost, question: Question, nonce: str
    ) -> int:
        """Send the question embed (its choices in the post's `choice_order`; A-D buttons
        on a buttons post); return the message id. A resend with the same nonce returns
        the message already sent."""
        ...

    async def add_reactions(self, channel_id: int, message_id: int, n_choices: int) -> None:
        """Add one answer reaction per choice (🇦 🇧 ...)."""
        ...

    async def reveal(
        self,
        post: DailyPost,
        question: Question | None,
        summary: RevealSummary,
        locale: str,
        nonce: str,
    ) -> int:
        """Answer the post with the correct choice, distribution and records (`question`
        None: it left the bank); the reply's id. A buttons post's buttons are disabled."""
        ...

    async def find_reveal(self, post: DailyPost, since: datetime) -> int | None:
        """The id of a reveal of `post` already in the channel, sent after `since` (a bounded
        look at the channel's messages from then on), or None."""
        ...

    async def open_discussion(self, post: DailyPost, question: Question | None, locale: str) -> int:
        """Open the discussion thread on the post ("Discuss: ..."); the thread's id. One
        that exists already (a resend) counts as opened."""
        ...

    async def fetch_reactions(self, post: DailyPost, n_choices: int) -> list[tuple[int, int]]:
        """(user_id, shown position) of the answer reactions on the post, the bot's own
        excluded."""
        ...
