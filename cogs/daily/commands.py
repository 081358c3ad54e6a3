"""/daily (Manage Server): setup, status, now, reveal, off, stats."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.common.i18n import t
from bot.daily import analytics_store, configs_store
from bot.daily.analytics import class_report
from bot.daily.jobs import DailyJobs
from bot.daily.types import BUTTONS, REACTIONS
from bot.outbox.rules import Owed
from bot.outbox.store import item
from bot.stats.charts import class_chart
from cogs.common import (
    guild_locale,
    guild_of,
    interaction_locale,
    manage_server,
    services_of,
    timezone_choices,
    topic_choices,
)
from cogs.daily.owed import owed_text, retry_reveals_text
from cogs.ui.learning_embeds import memory_embed
from cogs.ui.replies import send_ephemeral
from cogs.ui.style import discord_time, message_link

if TYPE_CHECKING:
    from bot.discord.client import QuizTutorBot


from cogs.daily.embeds import (
    STATS_CHART,
    add_class_analytics,
    disabled_notice,
    stats_embed,
    status_embed,
)

log = logging.getLogger("quiztutor.daily")


class DailyCommands(commands.Cog):
    daily = app_commands.Group(
        name="daily",
        description="The daily question of this server",
        # Hides the commands from non-admins; Discord ignores it on subcommands, and a
        # client can still send them, so every subcommand checks again on our side.
        default_permissions=discord.Permissions(manage_guild=True),
        guild_only=True,
    )

    def __init__(self, bot: QuizTutorBot, jobs: DailyJobs | None) -> None:
        self.bot = bot
        self.jobs = jobs  # the daily cog's driver; None in `quiztutor sync`

    def _jobs(self) -> DailyJobs:
        if self.jobs is None:
            raise RuntimeError("the daily cog runs without services (sync only)")
        return self.jobs

    async def _admin(self, interaction: discord.Interaction) -> tuple[int, str, str | None]:
        """Checks Manage Server; returns (guild_id, locale, a pending "posting stopped" notice)."""
        guild_id = guild_of(interaction)
        locale = interaction_locale(interaction)
        daily = services_of(interaction).daily
        config = await configs_store.get(daily.db, guild_id)
        notice = None
        # Posting stopped, or (the daily question still on) its discussion thread refused.
        if config is not None and config.disabled_reason and not config.admin_notified:
            notice = disabled_notice(config, locale)
            await configs_store.mark_admin_notified(daily.db, guild_id)
        return guild_id, locale, notice

    @staticmethod
    async def _reply(
        interaction: discord.Interaction,
        notice: str | None,
        content: str | None = None,
        **kwargs: Any,
    ) -> None:
        text = "\n\n".join(part for part in (notice, content) if part) or None
        await send_ephemeral(interaction, text, **kwargs)

    @manage_server
    @daily.command(name="setup", description="Post a daily question in a channel")
    @app_commands.describe(
        channel="Where to post",
        time="Local time of the post, HH:MM (24h)",
        timezone="IANA time zone, e.g. Asia/Jakarta",
        topic="Which quiz (default: all)",
        reveal_after="Reveal the answer after this many hours (default: before the next post)",
        language="Language of the posts",
        repeat_after="No question is posted again within this many days (default: 30)",
        retention="Target share of reviews remembered, 0.80-0.97 (default: 0.90)",
        discussion="Open a thread to discuss each answer at its reveal (default: off)",
        answers=(
            "How members answer: reactions (counts visible) or buttons (private until the reveal)"
        ),
    )
    @app_commands.choices(
        language=[
            app_commands.Choice(name="Bahasa Indonesia", value="id"),
            app_commands.Choice(name="English", value="en"),
        ],
        discussion=[
            app_commands.Choice(name="on", value="on"),
            app_commands.Choice(name="off", value="off"),
        ],
        answers=[
            app_commands.Choice(name="reactions", value=REACTIONS),
            app_commands.Choice(name="buttons", value=BUTTONS),
        ],
    )
    async def setup_daily(
        self,
        interaction: discord.Interaction,
        channel: discord.TextChannel,
        time: str,
        timezone: str,
        topic: str | None = None,
        reveal_after: app_commands.Range[int, 1, 23] | None = None,
        language: str | None = None,
        repeat_after: app_commands.Range[int, 1, 365] | None = None,
        retention: app_commands.Range[float, 0.8, 0.97] | None = None,
        discussion: str | None = None,
        answers: str | None = None,
    ) -> None:
        guild_id, locale, notice = await self._admin(interaction)
        services = services_of(interaction)
        config = await services.daily.configs.configure(
            guild_id,
            channel.id,
            time,
            timezone,
            topic=topic,
            reveal_after=reveal_after,
            locale=language or guild_locale(interaction),
            repeat_after=repeat_after,
            retention=retention,
            answer_mode=answers,
            discussion=None if discussion is None else discussion == "on",
        )
        self._jobs().schedule_guild(config)
        status = await services.daily.configs.status(guild_id)
        assert status is not None and status.next_post_at is not None
        reveal = (
            t("daily.reveal_hours", locale, hours=config.reveal_after_hours)
            if config.reveal_after_hours
            else t("daily.reveal_default", locale)
        )
        log.info(
            "daily configured",
            extra={"guild_id": guild_id, "channel_id": channel.id, "timezone": config.timezone},
        )
        await self._reply(
            interaction,
            notice,
            t(
                "daily.setup_done",
                locale,
                channel=f"<#{channel.id}>",
                time=config.post_time,
                timezone=config.timezone,
                next=discord_time(status.next_post_at),
                reveal=reveal,
            ),
        )

    @setup_daily.autocomplete("topic")
    async def topic_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await topic_choices(interaction, current)

    @setup_daily.autocomplete("timezone")
    async def timezone_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return timezone_choices(current)

    @manage_server
    @daily.command(name="status", description="Show the daily question settings")
    async def status(self, interaction: discord.Interaction) -> None:
        guild_id, locale, notice = await self._admin(interaction)
        status = await services_of(interaction).daily.configs.status(guild_id)
        if status is None:
            await self._reply(interaction, notice, t("daily.not_configured", locale))
            return
        owed = await owed_text(self._jobs(), guild_id, locale, self._jobs().clock())
        await self._reply(interaction, notice, embed=status_embed(status, locale, owed))

    @manage_server
    @daily.command(name="off", description="Stop the daily question")
    async def off(self, interaction: discord.Interaction) -> None:
        guild_id, locale, notice = await self._admin(interaction)
        services = services_of(interaction)
        if not await configs_store.disable(services.db, guild_id, None, services.clock()):
            await self._reply(interaction, notice, t("daily.not_configured", locale))
            return
        self._jobs().unschedule_guild(guild_id)
        log.info("daily turned off", extra={"guild_id": guild_id})
        await self._reply(interaction, notice, t("daily.off_done", locale))

    @manage_server
    @daily.command(name="now", description="Post today's question now")
    async def now(self, interaction: discord.Interaction) -> None:
        guild_id, locale, notice = await self._admin(interaction)
        daily = services_of(interaction).daily
        config = await configs_store.get(daily.db, guild_id)
        if config is None:
            await self._reply(interaction, notice, t("daily.not_configured", locale))
            return
        if not config.enabled:
            # Off (by /daily off or after Discord refused a post): setup turns it on again.
            await self._reply(interaction, notice, t("daily.is_off", locale))
            return
        # Posting and adding reactions can outlast Discord's 3 s to answer.
        await interaction.response.defer(ephemeral=True, thinking=True)
        result = await self._jobs().post_today(guild_id)
        post = result.post
        if result.refused is not None:
            config = await configs_store.get(daily.db, guild_id)
            assert config is not None
            await configs_store.mark_admin_notified(daily.db, guild_id)
            await self._reply(interaction, notice, disabled_notice(config, locale))
        elif post is None:
            await self._reply(interaction, notice, t("daily.not_posted", locale))
        else:
            key = "daily.posted" if result.created else "daily.already_posted"
            link = message_link(guild_id, post.channel_id, post.message_id)
            await self._reply(interaction, notice, t(key, locale, link=link))

    @manage_server
    @daily.command(name="reveal", description="Close the open question and reveal the answer")
    async def reveal(self, interaction: discord.Interaction) -> None:
        guild_id, locale, notice = await self._admin(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        summary = await self._jobs().reveal_open(guild_id)
        if summary is None:
            # Settled already; its announcement may still be owed: an explicit retry.
            retried = await retry_reveals_text(self._jobs(), guild_id, locale)
            await self._reply(interaction, notice, retried or t("daily.nothing_open", locale))
            return
        text = t("daily.revealed", locale, correct=summary.correct, answered=summary.answered)
        owed = await item(self._jobs().db, Owed.REVEAL, summary.post_id)
        if owed is not None and owed.delivered_at is None and owed.gave_up is None:
            text += "\n" + t("daily.reveal_owed", locale, next=discord_time(owed.due_at))
        # Discord may have refused the discussion thread just now: say so at once.
        _, _, refused = await self._admin(interaction)
        await self._reply(interaction, notice or refused, text)

    @manage_server
    @daily.command(name="stats", description="How this server is doing")
    async def stats(self, interaction: discord.Interaction) -> None:
        guild_id, locale, notice = await self._admin(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)  # the chart takes a while
        services = services_of(interaction)
        overview = await analytics_store.guild_overview(services.db, guild_id, 14)
        if not overview.days:
            await self._reply(interaction, notice, t("daily.stats_empty", locale))
            return
        analytics = await class_report(services.db, guild_id, services.clock())
        png = await services.charts.draw(class_chart, analytics, locale)
        embed = add_class_analytics(
            stats_embed(overview, locale), analytics, services.bank, locale, chart=True
        )
        chart = discord.File(io.BytesIO(png), filename=STATS_CHART)
        # Learning II: the memory model and the class's retention curve, in a second embed.
        memory, files = await memory_embed(services, guild_id, locale)
        await self._reply(interaction, notice, embeds=[embed, memory], files=[chart, *files])
