"""`/quiz live start|stop|language`: the `live` group, added under `/quiz` when this
extension loads (discord.py lets a cog own only its own groups, so it is added through
the command tree, and the quiz cog knows nothing of it), and `LiveCog`, which drives
this process's rounds (started in `cog_load`, stopped in `cog_unload`: discord.py unloads
the cogs at shutdown before it closes the connection, so a message being sent is
recorded and the rounds are released for the next process) and hears of deleted
threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.common.errors import PublishRefused, UserError
from bot.common.i18n import t
from bot.live import steps_store, store
from bot.live.driver import LiveDriver
from bot.live.publisher import RoundView
from bot.live.rules import (
    LOBBY_S,
    MAX_QUESTIONS,
    MAX_SECONDS,
    MIN_QUESTIONS,
    MIN_SECONDS,
    EndReason,
)
from cogs.common import (
    interaction_locale,
    limit,
    manage_server,
    services_of,
    speaks_here,
    take_limits,
    topic_choices,
)
from cogs.live.embeds import topic_title
from cogs.live.publisher import DiscordLivePublisher
from cogs.ui.replies import error_text, log_context, send_ephemeral

if TYPE_CHECKING:
    from bot.discord.client import QuizTutorBot

log = logging.getLogger("quiztutor.live")

HOST_LANGUAGE = "host"
# Starts of live rounds within LIVE_START_LIMIT_S: each opens a thread and posts a lobby.
STARTS_PER_MEMBER = 2
STARTS_PER_SERVER = 5


class LiveCog(commands.Cog):
    """The driver of this process's live rounds and the gateway events they need."""

    def __init__(self, bot: QuizTutorBot) -> None:
        self.bot = bot
        self.publisher = DiscordLivePublisher(bot)
        self.driver: LiveDriver | None = None
        self._start: asyncio.Task[None] | None = None
        if bot.has_services:
            self.driver = LiveDriver(bot.services.live, self.publisher, owns_guild=bot.owns_guild)
        per = bot.settings.live_start_limit_s
        self.start_limits = (
            limit(STARTS_PER_MEMBER, per, lambda interaction: interaction.user.id),
            limit(STARTS_PER_SERVER, per, lambda interaction: interaction.guild_id),
        )

    async def cog_load(self) -> None:
        if self.driver is not None:
            self._start = asyncio.create_task(self._start_driver(self.driver), name="live-start")

    async def cog_unload(self) -> None:
        if self._start is not None and not self._start.done():
            self._start.cancel()
        if self.driver is not None:
            await self.driver.close()

    async def _start_driver(self, driver: LiveDriver) -> None:
        # Once per process, when every cog is loaded (not on_ready: it fires on reconnects).
        await self.bot.started.wait()
        await driver.start()

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        if self.driver is not None:
            await self.bot.services.live.thread_deleted(payload.thread_id)


def _in_guild(interaction: discord.Interaction) -> int:
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    return interaction.guild_id


def _manages_server(interaction: discord.Interaction) -> bool:
    return interaction.permissions.manage_guild


class LiveCommands(app_commands.Group):
    def __init__(self, cog: LiveCog) -> None:
        super().__init__(name="live", description="A quiz the whole channel plays together")
        self.cog = cog

    @app_commands.command(name="start", description="Start a live round here: everyone plays")
    @app_commands.describe(
        topic="Which quiz (default: all)",
        questions="How many questions (1-30, default 10)",
        seconds="Seconds per question (10-120, default 20)",
    )
    async def start(
        self,
        interaction: discord.Interaction,
        topic: str | None = None,
        questions: app_commands.Range[int, MIN_QUESTIONS, MAX_QUESTIONS] | None = None,
        seconds: app_commands.Range[int, MIN_SECONDS, MAX_SECONDS] | None = None,
    ) -> None:
        guild_id = _in_guild(interaction)
        services = services_of(interaction)
        live, db = services.live, services.db
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            running = await store.running_in(db, interaction.channel_id or 0)
            if running is not None:
                raise live.busy(running)
            raise UserError("live.text_channel_only")
        mention = channel.mention
        allowed = interaction.app_permissions
        if not (allowed.view_channel and allowed.send_messages):
            raise UserError("live.cannot_post", channel=mention)
        can_thread = allowed.create_public_threads and allowed.send_messages_in_threads
        # The member's own permissions too: a round speaks for its host.
        speaks_here(interaction, opens_thread=can_thread)
        take_limits(interaction, *self.cog.start_limits)
        row = await live.open(
            guild_id,
            channel.id,
            interaction.user.id,
            interaction_locale(interaction),
            topic,
            questions,
            seconds,
        )
        assert row.id is not None
        await interaction.response.defer(thinking=True)
        view = RoundView.of(row)
        publisher = self.cog.publisher
        try:
            target = await publisher.open_thread(view, channel, can_thread)
            where, in_thread = target.id, isinstance(target, discord.Thread)
            await store.place(db, row.id, where, in_thread)  # before its lobby is posted there
            starts_at = await steps_store.lobby_clock(db, LOBBY_S)
            lobby_id = await publisher.post_lobby(view, target, starts_at)
        except (PublishRefused, discord.HTTPException):
            # Discord refused: the round's channel and the server's slot are freed.
            await steps_store.end(db, row.id, EndReason.ABANDONED, scoreboard=False)
            log.info("a live round could not be opened", extra=log_context(interaction))
            with contextlib.suppress(discord.HTTPException):
                await interaction.delete_original_response()
            reason = error_text(
                "live.cannot_post", interaction_locale(interaction), channel=mention
            )
            await interaction.followup.send(reason, ephemeral=True)
            return
        await live.set_up(row.id, lobby_id)
        if self.cog.driver is not None:
            await self.cog.driver.take(row.id)
        locale = row.locale
        title = topic_title(services.bank, row.topic, locale)
        params = {"title": title, "questions": view.total, "seconds": view.seconds}
        text = (
            t("live.opened", locale, link=f"<#{where}>", **params)
            if in_thread
            else t("live.opened_here", locale, **params)
        )
        await interaction.edit_original_response(content=text)
        log.info("live round opened", extra={**log_context(interaction), "round_id": row.id})

    @start.autocomplete("topic")
    async def topic_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await topic_choices(interaction, current)

    @app_commands.command(
        name="stop", description="End the live round in this channel (host or Manage Server)"
    )
    async def stop(self, interaction: discord.Interaction) -> None:
        _in_guild(interaction)
        live = services_of(interaction).live
        row = await live.stop(
            interaction.channel_id or 0, interaction.user.id, _manages_server(interaction)
        )
        link = f"<#{row.thread_id or row.channel_id}>"
        await send_ephemeral(
            interaction, t("live.stopping", interaction_locale(interaction), link=link)
        )

    @manage_server
    # Discord applies default permissions to top-level commands only: /help reads it.
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.command(
        name="language", description="The language of this server's live rounds (Manage Server)"
    )
    @app_commands.describe(language="Indonesian, English, or each round's host's language")
    @app_commands.choices(
        language=[
            app_commands.Choice(name="Bahasa Indonesia", value="id"),
            app_commands.Choice(name="English", value="en"),
            app_commands.Choice(name="The host's language", value=HOST_LANGUAGE),
        ]
    )
    async def language(
        self, interaction: discord.Interaction, language: app_commands.Choice[str]
    ) -> None:
        guild_id = _in_guild(interaction)
        locale = interaction_locale(interaction)
        chosen = None if language.value == HOST_LANGUAGE else language.value
        await store.set_config_locale(services_of(interaction).db, guild_id, chosen)
        if chosen is None:
            text = t("live.language_host", locale)
        else:
            text = t("live.language_set", locale, language=t(f"live.language_{chosen}", locale))
        await send_ephemeral(interaction, text)
