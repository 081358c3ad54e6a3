"""`LivePublisher` over discord.py: the round's thread and lobby, its questions (sent
with nonces, edited for the live count), reveals and the scoreboard.

Partial messageables need no cache, so this works for a round taken over after a
restart. Rate limits (429) are discord.py's: it waits what Discord says and retries.
403/404 become `PublishRefused`: the round ends, its scores kept.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import discord

from bot.common.errors import PublishRefused, StopReason
from bot.common.i18n import t
from bot.live.publisher import QuestionView, Reveal, RoundView, Scoreboard
from bot.live.rules import EndReason
from bot.quizbank.generated import GeneratedQuestion, asked_question
from cogs.live.buttons import answer_and_skip_view, lobby_view, reveal_view, scoreboard_view
from cogs.live.embeds import (
    lobby_embed,
    question_embed,
    reveal_embed,
    scoreboard_embed,
    thread_name,
)
from cogs.ui.lookback import find_own_reply

if TYPE_CHECKING:
    from bot.discord.client import QuizTutorBot

T = TypeVar("T")
THREAD_ARCHIVE_MINUTES: Literal[1440] = 1440  # a day idle (Discord: 60, 1440, 4320, 10080)


def _refusal(error: discord.HTTPException) -> PublishRefused | None:
    if isinstance(error, discord.Forbidden):
        return PublishRefused(StopReason.FORBIDDEN)
    if isinstance(error, discord.NotFound):
        return PublishRefused(StopReason.NOT_FOUND)
    return None


async def refused_as(call: Callable[[], Awaitable[T]]) -> T:
    """`call()`, with Discord's 403/404 as `PublishRefused`."""
    try:
        return await call()
    except discord.HTTPException as exc:
        refused = _refusal(exc)
        if refused is not None:
            raise refused from exc
        raise


class DiscordLivePublisher:
    def __init__(self, bot: QuizTutorBot) -> None:
        self.bot = bot

    def _channel(self, channel_id: int, guild_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id, guild_id=guild_id)

    def _message(self, view: RoundView, message_id: int) -> discord.PartialMessage:
        return self._channel(view.thread_id, view.guild_id).get_partial_message(message_id)

    async def open_thread(
        self, view: RoundView, channel: discord.TextChannel, can_thread: bool
    ) -> discord.TextChannel | discord.Thread:
        """The round's public thread, or `channel` itself without the permission."""
        if not can_thread:
            return channel
        try:
            return await channel.create_thread(
                name=thread_name(self.bot.services.bank, view),
                type=discord.ChannelType.public_thread,
                auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            )
        except discord.Forbidden:
            return channel  # the permission was missing after all: play in the channel

    async def post_lobby(
        self, view: RoundView, target: discord.abc.Messageable, starts_at: datetime
    ) -> int:
        bank = self.bot.services.bank
        lobby = await refused_as(
            lambda: target.send(
                embed=lobby_embed(bank, view, starts_at, started=False),
                view=lobby_view(view.round_id, view.locale, started=False),
            )
        )
        return lobby.id

    async def post_question(self, view: QuestionView, nonce: str) -> int:
        embed = question_embed(self.bot.services.bank, view)
        buttons = answer_and_skip_view(
            view.round.round_id, view.number, len(view.order), view.round.locale, closed=False
        )
        channel = self._channel(view.round.thread_id, view.round.guild_id)
        sent = await refused_as(lambda: channel.send(embed=embed, view=buttons, nonce=nonce))
        return sent.id

    async def edit_question(self, view: QuestionView, message_id: int) -> None:
        embed = question_embed(self.bot.services.bank, view)
        buttons = answer_and_skip_view(
            view.round.round_id, view.number, len(view.order), view.round.locale, closed=view.closed
        )
        message = self._message(view.round, message_id)
        await refused_as(lambda: message.edit(embed=embed, view=buttons))

    async def edit_lobby(self, round: RoundView, message_id: int, started: bool) -> None:
        embed = lobby_embed(self.bot.services.bank, round, None, started=started)
        buttons = lobby_view(round.round_id, round.locale, started=started)
        message = self._message(round, message_id)
        await refused_as(lambda: message.edit(embed=embed, view=buttons))

    async def post_reveal(self, reveal: Reveal, nonce: str) -> int:
        bank = self.bot.services.bank
        question = asked_question(bank, reveal.question_id, reveal.instance)
        report = not isinstance(question, GeneratedQuestion)  # an instance has no text to fix
        extra: dict[str, Any] = {
            "view": reveal_view(question.id, question.demo, reveal.round.locale, report=report)
        }
        if reveal.message_id is not None:
            extra["reference"] = discord.MessageReference(
                message_id=reveal.message_id,
                channel_id=reveal.round.thread_id,
                guild_id=reveal.round.guild_id,
                fail_if_not_exists=False,
            )
        channel = self._channel(reveal.round.thread_id, reveal.round.guild_id)
        embed = reveal_embed(question, reveal)
        sent = await refused_as(lambda: channel.send(embed=embed, nonce=nonce, **extra))
        return sent.id

    async def find_reveal(
        self, round: RoundView, question_message_id: int, since: datetime
    ) -> int | None:
        return await find_own_reply(
            self.bot, round.thread_id, round.guild_id, question_message_id, since
        )

    async def post_scoreboard(self, board: Scoreboard, nonce: str, in_channel: bool) -> int:
        view = board.round
        where = view.channel_id if in_channel else view.thread_id
        channel = self._channel(where, view.guild_id)
        embed = scoreboard_embed(self.bot.services.bank, board)
        buttons = scoreboard_view(view.round_id, view.locale)
        # In the channel (the thread is gone): say why, unless the embed says it already.
        said = board.reason in (EndReason.GONE, EndReason.FORBIDDEN)
        content = t("live.board_in_channel", view.locale) if in_channel and not said else None
        sent = await refused_as(
            lambda: channel.send(content=content, embed=embed, view=buttons, nonce=nonce)
        )
        return sent.id
