"""The daily question's `DailyPublisher` over discord.py: posts, reactions, reveals.

Partial messageables need no guild cache, so this works during setup_hook and with
10,000 guilds; rate limits (429) are discord.py's job. 403/404 become `PublishRefused`.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING, Any

import discord

from bot.core.daily.reactions import ANSWER_EMOJI
from bot.core.daily.types import RevealSummary
from bot.core.errors import PublishRefused, StopReason
from bot.core.i18n import t
from bot.core.quizbank import Question
from bot.storage import DailyPost, GuildDailyConfig
from cogs.ui.buttons import ShowDemoButton
from cogs.ui.lookback import find_own_reply
from cogs.ui.report import ReportButton

if TYPE_CHECKING:
    from bot.discord.client import QuizTutorBot


from cogs.ui.daily_embeds import answer_unavailable_embed, daily_embed, records_text, reveal_embed


def _refusal(error: discord.HTTPException) -> PublishRefused | None:
    """403/404 mean "not here, not now, not later": the caller stops posting there."""
    if isinstance(error, discord.Forbidden):
        return PublishRefused(StopReason.FORBIDDEN)
    if isinstance(error, discord.NotFound):
        return PublishRefused(StopReason.NOT_FOUND)
    return None


class DiscordPublisher:
    """`DailyPublisher` over discord.py. Partial messageables need no guild cache, so
    this works during setup_hook and with 10,000 guilds; rate limits (429) are
    discord.py's job."""

    def __init__(self, bot: QuizTutorBot) -> None:
        self.bot = bot

    def _channel(self, channel_id: int, guild_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id, guild_id=guild_id)

    async def _send(self, channel_id: int, guild_id: int, **message: Any) -> int:
        """Send to a daily channel; 403/404 become `PublishRefused` (stop posting there)."""
        try:
            sent = await self._channel(channel_id, guild_id).send(**message)
        except discord.HTTPException as exc:
            refused = _refusal(exc)
            if refused is not None:
                raise refused from exc
            raise
        return sent.id

    async def post(self, config: GuildDailyConfig, question_id: str, day: date, nonce: str) -> int:
        bank = self.bot.services.bank
        embed = daily_embed(
            bank.quiz_of(question_id), bank.question(question_id), config.locale, day.isoformat()
        )
        return await self._send(config.channel_id, config.guild_id, embed=embed, nonce=nonce)

    async def add_reactions(self, channel_id: int, message_id: int, question_id: str) -> None:
        question = self.bot.services.bank.question(question_id)
        n_choices = question.n_choices
        message = self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)
        try:
            for emoji in ANSWER_EMOJI[:n_choices]:
                await message.add_reaction(emoji)
        except discord.Forbidden as exc:
            raise PublishRefused(StopReason.REACTIONS_FORBIDDEN) from exc
        except discord.NotFound as exc:
            # The post was deleted meanwhile: nothing to react to; tomorrow's post still goes.
            raise PublishRefused(StopReason.NOT_FOUND) from exc

    async def reveal(self, post: DailyPost, summary: RevealSummary, locale: str, nonce: str) -> int:
        assert post.message_id is not None
        records = records_text(summary, locale)
        question: Question | None
        try:
            question = self.bot.services.bank.question(post.question_id)
        except KeyError:
            question = None
            embed = answer_unavailable_embed(post.day, summary, locale)
        else:
            embed = reveal_embed(question, locale, summary, records)
        view = discord.utils.MISSING
        if question is not None:
            view = discord.ui.View(timeout=None)
            if question.demo:
                # The same persistent "Show me" button as in /quiz: anyone can see the proof.
                view.add_item(ShowDemoButton(question.demo, label=t("quiz.show_me", locale)))
            # Anyone who answered can report the question (once).
            view.add_item(ReportButton(question.id, label=t("report.button", locale)))
        reference = discord.MessageReference(
            message_id=post.message_id,
            channel_id=post.channel_id,
            guild_id=post.guild_id,
            fail_if_not_exists=False,
        )
        return await self._send(
            post.channel_id, post.guild_id, embed=embed, reference=reference, view=view, nonce=nonce
        )

    async def find_reveal(self, post: DailyPost, since: datetime) -> int | None:
        assert post.message_id is not None
        return await find_own_reply(
            self.bot, post.channel_id, post.guild_id, post.message_id, since
        )

    async def fetch_reactions(self, post: DailyPost) -> list[tuple[int, int]]:
        assert post.message_id is not None
        try:
            n_choices = self.bot.services.bank.question(post.question_id).n_choices
        except KeyError:
            n_choices = len(ANSWER_EMOJI)
        choice_of = {emoji: choice for choice, emoji in enumerate(ANSWER_EMOJI[:n_choices])}
        channel = self._channel(post.channel_id, post.guild_id)
        found: list[tuple[int, int]] = []
        try:
            message = await channel.fetch_message(post.message_id)
            for reaction in message.reactions:
                choice = choice_of.get(str(reaction.emoji))
                if choice is None:
                    continue
                # discord.py pages through the users 100 at a time.
                async for user in reaction.users(limit=None):
                    if not user.bot:
                        found.append((user.id, choice))
        except discord.NotFound:
            pass  # the message (or channel) is gone: nothing (more) to recover
        return found
