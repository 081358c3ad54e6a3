"""The daily question's `DailyPublisher` over discord.py: posts, reactions, reveals.

Partial messageables need no guild cache, so this works during setup_hook and with
10,000 guilds; rate limits (429) are discord.py's job. 403/404 become `PublishRefused`.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

import discord

from bot.common.errors import PublishRefused, StopReason
from bot.common.i18n import t
from bot.common.text import clip
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.daily.types import BUTTONS, RevealSummary
from bot.db.tables.daily import DailyPost, GuildDailyConfig
from bot.quizbank import Question
from bot.quizbank.generated import GeneratedQuestion
from cogs.daily.buttons import answer_view
from cogs.ui.buttons import ShowDemoButton
from cogs.ui.lookback import find_own_reply
from cogs.ui.report import ReportButton

if TYPE_CHECKING:
    from bot.discord.client import QuizTutorBot


from cogs.daily.embeds import answer_unavailable_embed, daily_embed, records_text, reveal_embed

log = logging.getLogger("quiztutor.daily")

# A discussion thread archives after a day without messages (it stays readable).
DISCUSSION_ARCHIVE_MINUTES: Literal[1440] = 1440
# Discord's code for "a thread has already been created for this message".
THREAD_EXISTS = 160004


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

    async def post(
        self, config: GuildDailyConfig, post: DailyPost, question: Question, nonce: str
    ) -> int:
        bank = self.bot.services.bank
        embed = daily_embed(
            bank.quiz_of(question.id),
            question,
            config.locale,
            post.day.isoformat(),
            post.choice_order,
            post.answer_mode,
        )
        message: dict[str, Any] = {"embed": embed, "nonce": nonce}
        if post.answer_mode == BUTTONS:
            assert post.id is not None
            message["view"] = answer_view(post.id, question.n_choices)
        return await self._send(config.channel_id, config.guild_id, **message)

    async def add_reactions(self, channel_id: int, message_id: int, n_choices: int) -> None:
        message = self.bot.get_partial_messageable(channel_id).get_partial_message(message_id)
        try:
            for emoji in ANSWER_EMOJI[:n_choices]:
                await message.add_reaction(emoji)
        except discord.Forbidden as exc:
            raise PublishRefused(StopReason.REACTIONS_FORBIDDEN) from exc
        except discord.NotFound as exc:
            # The post was deleted meanwhile: nothing to react to; tomorrow's post still goes.
            raise PublishRefused(StopReason.NOT_FOUND) from exc

    async def reveal(
        self,
        post: DailyPost,
        question: Question | None,
        summary: RevealSummary,
        locale: str,
        nonce: str,
    ) -> int:
        assert post.message_id is not None
        if post.answer_mode == BUTTONS and question is not None:
            await self._close_buttons(post, question.n_choices)
        records = records_text(summary, locale)
        if question is None:
            embed = answer_unavailable_embed(post.day, summary, locale)
        else:
            embed = reveal_embed(
                question, locale, summary, records, post.choice_order, post.answer_mode
            )
        view = discord.utils.MISSING
        if question is not None:
            view = discord.ui.View(timeout=None)
            if question.demo:
                # The same persistent "Show me" button as in /quiz: anyone can see the proof.
                view.add_item(ShowDemoButton(question.demo, label=t("quiz.show_me", locale)))
            if not isinstance(question, GeneratedQuestion):
                # Anyone who answered can report the question (once); an instance has no
                # text of its own to fix.
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

    async def _close_buttons(self, post: DailyPost, n_choices: int) -> None:
        """The post's buttons disabled at the reveal (a press after it gets an answer
        anyway, so a failure here only leaves them looking open)."""
        assert post.id is not None and post.message_id is not None
        message = self._channel(post.channel_id, post.guild_id).get_partial_message(post.message_id)
        try:
            await message.edit(view=answer_view(post.id, n_choices, closed=True))
        except discord.HTTPException as exc:
            log.info("the daily post's buttons were not disabled: %s", exc)

    async def open_discussion(self, post: DailyPost, question: Question | None, locale: str) -> int:
        assert post.message_id is not None
        prompt = (
            question.text("prompt", locale)
            if question is not None
            else t("daily.discussion_day", locale, day=post.day.isoformat())
        )
        name = clip(t("daily.discussion_name", locale, prompt=" ".join(prompt.split())), 100)
        try:
            channel = self.bot.get_channel(post.channel_id) or await self.bot.fetch_channel(
                post.channel_id
            )
            if not isinstance(channel, discord.TextChannel):
                raise PublishRefused(StopReason.NOT_FOUND)  # no longer a text channel
            thread = await channel.get_partial_message(post.message_id).create_thread(
                name=name, auto_archive_duration=DISCUSSION_ARCHIVE_MINUTES
            )
        except discord.HTTPException as exc:
            if exc.code == THREAD_EXISTS:
                return post.message_id  # opened by an earlier try (a thread's id is its message's)
            refused = _refusal(exc)
            if refused is not None:
                raise refused from exc
            raise
        return thread.id

    async def fetch_reactions(self, post: DailyPost, n_choices: int) -> list[tuple[int, int]]:
        assert post.message_id is not None
        position_of = {emoji: position for position, emoji in enumerate(ANSWER_EMOJI[:n_choices])}
        channel = self._channel(post.channel_id, post.guild_id)
        found: list[tuple[int, int]] = []
        try:
            message = await channel.fetch_message(post.message_id)
            for reaction in message.reactions:
                position = position_of.get(str(reaction.emoji))
                if position is None:
                    continue
                # discord.py pages through the users 100 at a time.
                async for user in reaction.users(limit=None):
                    if not user.bot:
                        found.append((user.id, position))
        except discord.NotFound:
            pass  # the message (or channel) is gone: nothing (more) to recover
        return found
