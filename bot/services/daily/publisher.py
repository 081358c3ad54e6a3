"""What the daily driver needs from Discord (the daily cog implements it with discord.py)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Protocol

from bot.core.daily.types import RevealSummary
from bot.storage import (
    DailyPost,
    GuildDailyConfig,
)


class DailyPublisher(Protocol):
    """What the driver needs from Discord. Raise `PublishRefused` for 403/404."""

    async def post(self, config: GuildDailyConfig, question_id: str, day: date, nonce: str) -> int:
        """Send the question embed; return the message id. A resend with the same nonce
        returns the message already sent."""
        ...

    async def add_reactions(self, channel_id: int, message_id: int, question_id: str) -> None:
        """Add one answer reaction per choice (🇦 🇧 ...)."""
        ...

    async def reveal(self, post: DailyPost, summary: RevealSummary, locale: str, nonce: str) -> int:
        """Answer the post with the correct choice, distribution and records; the reply's id."""
        ...

    async def find_reveal(self, post: DailyPost, since: datetime) -> int | None:
        """The id of a reveal of `post` already in the channel, sent after `since` (a bounded
        look at the channel's messages from then on), or None."""
        ...

    async def fetch_reactions(self, post: DailyPost) -> list[tuple[int, int]]:
        """(user_id, choice) of the answer reactions on the post, the bot's own excluded."""
        ...
