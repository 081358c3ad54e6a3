"""Review reminders on Discord: `/quiz remind on|off` (the subcommands live in `QuizCog`),
the DM the outbox sends (`ReminderSender`), and its persistent "Review now" button.

A DM has no server: the button reviews the questions of the server the member set the
reminder in (stored with the reminder), whatever DM it is pressed in. When Discord refuses
the DM (403, closed DMs), reminders are turned off and the member is told with the reply
to their next command (a notice). A member who left that server is told so when they
press the button, and its reminders are turned off.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord

from bot.common.errors import PublishRefused, StopReason, UserError
from bot.common.i18n import t
from bot.db.tables.outbox import Outbox
from bot.learning import reminders_store
from bot.learning.reminder_rules import user_of_ref
from bot.outbox.rules import nonce
from cogs.common import interaction_locale, services_of
from cogs.quiz.review import DEFAULT_REVIEW, NotMember, begin_review
from cogs.ui.buttons import PersistentButton
from cogs.ui.replies import send_ephemeral
from cogs.ui.style import discord_time

if TYPE_CHECKING:
    from bot.discord.client import QuizTutorBot

log = logging.getLogger("quiztutor.reminders")


class ReviewNowButton(PersistentButton, template=r"remind:review"):
    """In a reminder's DM: starts `/quiz review` of the reminder's server for the member."""

    def __init__(self, *, label: str = "Review now") -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                emoji="📚",
                style=discord.ButtonStyle.primary,
                custom_id="remind:review",
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReviewNowButton:
        return cls()

    async def pressed(self, interaction: discord.Interaction) -> None:
        services = services_of(interaction)
        reminder = await reminders_store.get(services.db, interaction.user.id)
        if reminder is None:
            raise UserError("remind.no_reminder")
        try:
            await begin_review(interaction, reminder.guild_id, DEFAULT_REVIEW)
        except NotMember:
            # They left that server: no review of it, and no more reminders of it.
            await services.reminders.turn_off(interaction.user.id)
            raise UserError("remind.left_server") from None


class ReminderSender:
    """What the outbox calls for an owed reminder: the DM, or nothing when there is no
    longer a reason (reminders turned off, reviews done meanwhile)."""

    def __init__(self, bot: QuizTutorBot) -> None:
        self.bot = bot

    async def __call__(self, item: Outbox) -> int | None:
        assert item.ref is not None and item.id is not None
        reminders = self.bot.services.reminders
        reminder = await reminders_store.get(self.bot.services.db, user_of_ref(item.ref))
        if reminder is None or not reminder.enabled:
            return None
        count = await reminders.due_count(reminder)
        if count < reminder.min_due:
            return None
        locale = reminder.locale
        guild = self.bot.get_guild(reminder.guild_id)
        server = guild.name if guild is not None else t("remind.a_server", locale)
        view = discord.ui.View(timeout=None)
        view.add_item(ReviewNowButton(label=t("remind.button", locale)))
        footer = t("remind.dm_footer", locale, time=reminder.remind_at, timezone=reminder.timezone)
        try:
            channel = await self.bot.create_dm(discord.Object(id=reminder.user_id))
            sent = await channel.send(
                f"{t('remind.dm', locale, count=count, server=server)}\n-# {footer}",
                view=view,
                nonce=nonce(item.kind, item.id),
            )
        except discord.Forbidden as exc:
            # 50007 "Cannot send messages to this user": DMs closed, or the bot blocked.
            await reminders.dms_closed(reminder)
            raise PublishRefused(StopReason.FORBIDDEN) from exc
        return sent.id


async def turn_on(
    interaction: discord.Interaction, time: str | None, min_due: int | None, timezone: str | None
) -> None:
    locale = interaction_locale(interaction)
    reminder = await services_of(interaction).reminders.turn_on(
        interaction.user.id, interaction.guild_id, locale, time, min_due, timezone
    )
    text = t(
        "remind.on",
        locale,
        time=reminder.remind_at,
        timezone=reminder.timezone,
        min_due=reminder.min_due,
        next=discord_time(reminder.next_at),
    )
    log.info("reminders on", extra={"user_id": interaction.user.id})
    await send_ephemeral(interaction, text)


async def turn_off(interaction: discord.Interaction) -> None:
    locale = interaction_locale(interaction)
    done = await services_of(interaction).reminders.turn_off(interaction.user.id)
    await send_ephemeral(interaction, t("remind.off" if done else "remind.was_off", locale))
