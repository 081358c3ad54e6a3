"""/daily (Manage Server) and the daily question on Discord: posts, reactions, reveals.

The decisions (when to post, reveal, catch up, recover) live in `bot.daily.jobs`; this
cog is the `DailyPublisher` it talks to (discord.py calls) plus the commands and the
raw reaction listener.
"""

from __future__ import annotations

import logging
import zoneinfo
from datetime import date, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.daily import ANSWER_EMOJI, EMOJI_CHOICE, DailyJobs, RevealSummary
from bot.errors import PublishRefused, StopReason
from bot.i18n import t
from bot.outbox import Owed
from bot.quizbank import Question
from bot.storage import DailyPost, GuildDailyConfig
from cogs.common import (
    BRAND_COLOUR,
    guild_locale,
    interaction_locale,
    require_manage_guild,
    send_ephemeral,
    services_of,
    topic_choices,
)
from cogs.demo import ShowDemoButton
from cogs.discord_internals import ReactionParserHook
from cogs.render import EMBED_FIELD_MAX, clip, daily_embed, reveal_embed

if TYPE_CHECKING:
    from bot.app import QuizTutorBot

log = logging.getLogger("quiztutor.daily")


def message_link(guild_id: int, channel_id: int, message_id: int | None) -> str:
    if message_id is None:
        return f"<#{channel_id}>"
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


def discord_time(when: datetime) -> str:
    stamp = int(when.timestamp())
    return f"<t:{stamp}:F> (<t:{stamp}:R>)"


def _refusal(error: discord.HTTPException) -> PublishRefused | None:
    """403/404 mean "not here, not now, not later": the caller stops posting there."""
    if isinstance(error, discord.Forbidden):
        return PublishRefused(StopReason.FORBIDDEN)
    if isinstance(error, discord.NotFound):
        return PublishRefused(StopReason.NOT_FOUND)
    return None


def disabled_notice(config: GuildDailyConfig, locale: str) -> str:
    channel = f"<#{config.channel_id}>"
    try:
        reason = StopReason(config.disabled_reason or "")
    except ValueError:
        return t("daily.disabled_other", locale, channel=channel, reason=config.disabled_reason)
    return t(reason.message_key, locale, channel=channel)


@cache
def _zones() -> list[str]:
    return sorted(zoneinfo.available_timezones())


class DiscordPublisher:
    """`DailyPublisher` over discord.py. Partial messageables need no guild cache, so
    this works during setup_hook and with 10,000 guilds; rate limits (429) are
    discord.py's job."""

    def __init__(self, bot: QuizTutorBot) -> None:
        self.bot = bot

    def _channel(self, channel_id: int, guild_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id, guild_id=guild_id)

    async def post(self, config: GuildDailyConfig, question_id: str, day: date, nonce: str) -> int:
        bank = self.bot.services.bank
        embed = daily_embed(
            bank.quiz_of(question_id), bank.question(question_id), config.locale, day.isoformat()
        )
        try:
            message = await self._channel(config.channel_id, config.guild_id).send(
                embed=embed, nonce=nonce
            )
        except discord.HTTPException as exc:
            refused = _refusal(exc)
            if refused is not None:
                raise refused from exc
            raise
        return message.id

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
        records = self._records(summary, locale)
        question: Question | None
        try:
            question = self.bot.services.bank.question(post.question_id)
        except KeyError:
            question = None
            embed = discord.Embed(
                description=t(
                    "daily.answer_unavailable",
                    locale,
                    day=post.day.isoformat(),
                    correct=summary.correct,
                    answered=summary.answered,
                ),
                colour=BRAND_COLOUR,
            )
        else:
            embed = reveal_embed(question, locale, summary, records)
        view = discord.utils.MISSING
        if question is not None and question.demo:
            # The same persistent "Show me" button as in /quiz: anyone can see the proof.
            view = discord.ui.View(timeout=None)
            view.add_item(ShowDemoButton(question.demo, label=t("quiz.show_me", locale)))
        reference = discord.MessageReference(
            message_id=post.message_id,
            channel_id=post.channel_id,
            guild_id=post.guild_id,
            fail_if_not_exists=False,
        )
        try:
            message = await self._channel(post.channel_id, post.guild_id).send(
                embed=embed, reference=reference, view=view, nonce=nonce
            )
        except discord.HTTPException as exc:
            refused = _refusal(exc)
            if refused is not None:
                raise refused from exc
            raise
        return message.id

    @staticmethod
    def _records(summary: RevealSummary, locale: str) -> str:
        # Mentions render as names; allowed_mentions is none bot-wide, so nobody is pinged.
        lines = [
            t("daily.milestone", locale, user=f"<@{u}>", days=d) for u, d in summary.milestones
        ]
        lines += [t("daily.new_best", locale, user=f"<@{u}>", days=d) for u, d in summary.new_bests]
        return clip("\n".join(lines), EMBED_FIELD_MAX)

    async def fetch_reactions(self, post: DailyPost) -> list[tuple[int, int]]:
        assert post.message_id is not None
        try:
            question = self.bot.services.bank.question(post.question_id)
            n_choices = question.n_choices
        except KeyError:
            n_choices = len(ANSWER_EMOJI)
        found: list[tuple[int, int]] = []
        for choice, emoji in enumerate(ANSWER_EMOJI[:n_choices]):
            after: int | None = None
            while True:
                try:
                    users = await self.bot.http.get_reaction_users(
                        post.channel_id, post.message_id, emoji, limit=100, after=after
                    )
                except discord.NotFound:
                    # The message (or channel) is gone: nothing to recover. An emoji
                    # nobody used is an empty list, not a 404.
                    return found
                found += [(int(u["id"]), choice) for u in users if not u.get("bot")]
                if len(users) < 100:
                    break
                after = int(users[-1]["id"])
        return found


class DailyCog(commands.Cog):
    daily = app_commands.Group(
        name="daily",
        description="The daily question of this server",
        # Hides the commands from non-admins; Discord ignores it on subcommands, and a
        # client can still send them, so every subcommand checks again on our side.
        default_permissions=discord.Permissions(manage_guild=True),
        guild_only=True,
    )

    def __init__(self, bot: QuizTutorBot) -> None:
        self.bot = bot
        self.publisher = DiscordPublisher(bot)
        self.jobs: DailyJobs | None = None
        self._shards_seen: set[int] = set()
        self.reaction_hook: ReactionParserHook | None = None
        if not bot.sync_only:
            services = bot.services
            self.jobs = DailyJobs(
                services.daily, self.publisher, services.scheduler, owns_guild=bot.owns_guild
            )
            if bot.user is not None:
                self.jobs.bot_user_id = bot.user.id
            self.reaction_hook = ReactionParserHook(bot, self._fast_reaction)

    def _jobs(self) -> DailyJobs:
        if self.jobs is None:
            raise RuntimeError("the daily cog runs without services (sync only)")
        return self.jobs

    # -- events -------------------------------------------------------------------

    async def cog_load(self) -> None:
        if self.reaction_hook is not None:
            self.reaction_hook.install()

    async def cog_unload(self) -> None:
        if self.reaction_hook is not None:
            self.reaction_hook.uninstall()

    def _fast_reaction(self, message_id: int, user_id: int, emoji_name: str) -> bool:
        """Grade an answer reaction on a known open post from the gateway payload.

        discord.py builds a Member and a raw event and starts a task for every reaction;
        at thousands per second that is most of the cost. Reactions this does not take
        (other emoji, posts from another process) reach `on_raw_reaction_add` as usual.
        """
        choice = EMOJI_CHOICE.get(emoji_name)
        return choice is not None and self._jobs().grade_and_queue(message_id, user_id, choice)

    @commands.Cog.listener()
    async def on_services_ready(self) -> None:
        # Once per process (setup_hook), unlike on_ready which fires on every reconnect.
        jobs = self._jobs()
        if self.bot.user is not None:
            jobs.bot_user_id = self.bot.user.id
        try:
            await jobs.start()
        except Exception:
            log.exception("daily start-up failed")

    @commands.Cog.listener()
    async def on_shard_ready(self, shard_id: int) -> None:
        # READY after a fresh IDENTIFY (not a RESUME): the events Discord sent to the lost
        # session are gone, so read the open posts' reactions again (idempotent). The
        # first READY of each shard is covered by the start-up recovery.
        if shard_id not in self._shards_seen:
            self._shards_seen.add(shard_id)
            return
        jobs = self.jobs
        if jobs is None:
            return
        await jobs.started.wait()
        try:
            recovered = await jobs.recover_all()
        except Exception:
            log.exception("re-reading daily reactions after a new gateway session failed")
            return
        if recovered:
            log.info("graded %d reactions missed during a gateway outage", recovered)

    @commands.Cog.listener()
    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        # Hot path (thousands per second): no cache, no replies; custom emoji are never answers.
        jobs = self.jobs
        if jobs is None or payload.emoji.id is not None or payload.emoji.name is None:
            return
        await jobs.on_reaction(
            payload.message_id, payload.channel_id, payload.user_id, payload.emoji.name
        )

    # -- helpers ------------------------------------------------------------------

    async def _admin(self, interaction: discord.Interaction) -> tuple[int, str, str | None]:
        """Checks Manage Server; returns (guild_id, locale, a pending "posting stopped" notice)."""
        require_manage_guild(interaction)
        assert interaction.guild_id is not None
        guild_id = interaction.guild_id
        locale = interaction_locale(interaction)
        daily = services_of(interaction).daily
        config = await daily.config(guild_id)
        notice = None
        if (
            config is not None
            and not config.enabled
            and config.disabled_reason
            and not config.admin_notified
        ):
            notice = disabled_notice(config, locale)
            await daily.mark_admin_notified(guild_id)
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

    # -- commands -----------------------------------------------------------------

    @daily.command(name="setup", description="Post a daily question in a channel")
    @app_commands.describe(
        channel="Where to post",
        time="Local time of the post, HH:MM (24h)",
        timezone="IANA time zone, e.g. Asia/Jakarta",
        topic="Which quiz (default: all)",
        reveal_after="Reveal the answer after this many hours (default: before the next post)",
        language="Language of the posts",
    )
    @app_commands.choices(
        language=[
            app_commands.Choice(name="Bahasa Indonesia", value="id"),
            app_commands.Choice(name="English", value="en"),
        ]
    )
    async def setup(
        self,
        interaction: discord.Interaction,
        channel: discord.TextChannel,
        time: str,
        timezone: str,
        topic: str | None = None,
        reveal_after: app_commands.Range[int, 1, 23] | None = None,
        language: str | None = None,
    ) -> None:
        guild_id, locale, notice = await self._admin(interaction)
        services = services_of(interaction)
        config = await services.daily.configure(
            guild_id,
            channel.id,
            time,
            timezone,
            topic=topic,
            reveal_after=reveal_after,
            locale=language or guild_locale(interaction),
        )
        self._jobs().schedule_guild(config)
        status = await services.daily.status(guild_id)
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

    @setup.autocomplete("topic")
    async def topic_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await topic_choices(interaction, current)

    @setup.autocomplete("timezone")
    async def timezone_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        needle = current.lower().replace(" ", "_")
        return [app_commands.Choice(name=z, value=z) for z in _zones() if needle in z.lower()][:25]

    @daily.command(name="status", description="Show the daily question settings")
    async def status(self, interaction: discord.Interaction) -> None:
        guild_id, locale, notice = await self._admin(interaction)
        services = services_of(interaction)
        status = await services.daily.status(guild_id)
        if status is None:
            await self._reply(interaction, notice, t("daily.not_configured", locale))
            return
        config = status.config
        embed = discord.Embed(title=t("daily.status_title", locale), colour=BRAND_COLOUR)
        embed.add_field(name=t("daily.status_channel", locale), value=f"<#{config.channel_id}>")
        embed.add_field(
            name=t("daily.status_time", locale), value=f"{config.post_time} ({config.timezone})"
        )
        embed.add_field(
            name=t("daily.status_topic", locale),
            value=config.topic or t("daily.status_all_topics", locale),
        )
        embed.add_field(
            name=t("daily.status_reveal", locale),
            value=t("daily.reveal_hours", locale, hours=config.reveal_after_hours)
            if config.reveal_after_hours
            else t("daily.reveal_default", locale),
        )
        embed.add_field(name=t("daily.status_language", locale), value=config.locale)
        embed.add_field(
            name=t("daily.status_next", locale),
            value=discord_time(status.next_post_at)
            if status.next_post_at
            else t("daily.status_off", locale),
            inline=False,
        )
        last = status.last_post
        open_text = t("daily.status_none_open", locale)
        if last is not None and not last.settled and last.message_id is not None:
            open_text = t(
                "daily.status_open_value",
                locale,
                day=last.day.isoformat(),
                link=message_link(guild_id, last.channel_id, last.message_id),
                reveal=discord_time(last.reveal_at),
            )
        embed.add_field(name=t("daily.status_open", locale), value=open_text, inline=False)
        owed = await self._owed_text(guild_id, locale)
        if owed:
            embed.add_field(name=t("daily.owed_title", locale), value=owed, inline=False)
        await self._reply(interaction, notice, embed=embed)

    async def _owed_text(self, guild_id: int, locale: str) -> str:
        """What the outbox still owes this server's channel (after failed sends)."""
        lines = []
        for item in await self._jobs().outbox.pending(guild_id):
            if item.attempts == 0:
                continue  # being sent right now
            post = await self._jobs().daily.post(item.post_id)
            if post is None:
                continue
            lines.append(
                t(
                    "daily.owed_value",
                    locale,
                    what=t(f"daily.owed_{item.kind}", locale),
                    day=post.day.isoformat(),
                    link=message_link(guild_id, post.channel_id, post.message_id),
                    attempts=item.attempts,
                    next=discord_time(item.due_at),
                    error=clip(item.last_error or "?", 200),
                )
            )
        return clip("\n".join(lines), EMBED_FIELD_MAX)

    @daily.command(name="off", description="Stop the daily question")
    async def off(self, interaction: discord.Interaction) -> None:
        guild_id, locale, notice = await self._admin(interaction)
        if not await services_of(interaction).daily.disable(guild_id):
            await self._reply(interaction, notice, t("daily.not_configured", locale))
            return
        self._jobs().unschedule_guild(guild_id)
        log.info("daily turned off", extra={"guild_id": guild_id})
        await self._reply(interaction, notice, t("daily.off_done", locale))

    @daily.command(name="now", description="Post today's question now")
    async def now(self, interaction: discord.Interaction) -> None:
        guild_id, locale, notice = await self._admin(interaction)
        daily = services_of(interaction).daily
        config = await daily.config(guild_id)
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
            config = await daily.config(guild_id)
            assert config is not None
            await daily.mark_admin_notified(guild_id)
            await self._reply(interaction, notice, disabled_notice(config, locale))
        elif post is None:
            await self._reply(interaction, notice, t("daily.not_posted", locale))
        else:
            key = "daily.posted" if result.created else "daily.already_posted"
            link = message_link(guild_id, post.channel_id, post.message_id)
            await self._reply(interaction, notice, t(key, locale, link=link))

    @daily.command(name="reveal", description="Close the open question and reveal the answer")
    async def reveal(self, interaction: discord.Interaction) -> None:
        guild_id, locale, notice = await self._admin(interaction)
        await interaction.response.defer(ephemeral=True, thinking=True)
        summary = await self._jobs().reveal_open(guild_id)
        if summary is None:
            await self._reply(interaction, notice, t("daily.nothing_open", locale))
            return
        text = t("daily.revealed", locale, correct=summary.correct, answered=summary.answered)
        owed = await self._jobs().outbox.item(Owed.REVEAL, summary.post_id)
        if owed is not None and owed.delivered_at is None and owed.gave_up is None:
            text += "\n" + t("daily.reveal_owed", locale, next=discord_time(owed.due_at))
        await self._reply(interaction, notice, text)

    @daily.command(name="stats", description="How this server is doing")
    async def stats(self, interaction: discord.Interaction) -> None:
        guild_id, locale, notice = await self._admin(interaction)
        overview = await services_of(interaction).daily.guild_overview(guild_id)
        if not overview.days:
            await self._reply(interaction, notice, t("daily.stats_empty", locale))
            return
        lines = [
            t(
                "daily.stats_day",
                locale,
                day=d.day.isoformat(),
                question=d.question_id,
                answered=d.answered,
                correct=d.correct,
                percent=f" ({round(100 * d.correct / d.answered)}%)" if d.answered else "",
            )
            for d in overview.days
        ]
        accuracy = overview.accuracy
        totals = t(
            "daily.stats_totals",
            locale,
            members=overview.members,
            answered=overview.answered,
            correct=overview.correct,
            percent=f"{round(100 * accuracy)}%" if accuracy is not None else "–",
        )
        embed = discord.Embed(
            title=t("daily.stats_title", locale),
            description=clip("\n".join(lines), 4000),
            colour=BRAND_COLOUR,
        )
        embed.add_field(name="Σ", value=totals, inline=False)
        await self._reply(interaction, notice, embed=embed)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(DailyCog(bot))  # type: ignore[arg-type]
