"""Telling a member something the bot owes them (a decision on their suggestion): by DM
when they accept DMs, else with the reply to their next command (any command, anywhere).

A notice is claimed in the database before it is sent and given back when sending fails,
so it is delivered once: by DM, or later, never both.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.common.i18n import t
from bot.common.text import clip
from bot.community import notices_store
from bot.db.tables.community import MemberNotice
from bot.quizbank.links import unmask
from cogs.common import interaction_locale, services_of

if TYPE_CHECKING:
    from bot.discord.client import QuizTutorBot

log = logging.getLogger("quiztutor.community")


def notice_text(notice: MemberNotice, locale: str) -> str:
    """A notice in `locale`; the texts in it (a suggestion's start, an admin's reason, the
    server's name) with their links visible."""
    params: dict[str, Any] = {
        name: unmask(value) if isinstance(value, str) else value
        for name, value in notice.params.items()
    }
    return t(notice.key, locale, **params)


async def tell_member(bot: QuizTutorBot, notice_id: int) -> bool:
    """Send a notice by DM; False when the member does not accept DMs (owed for later)."""
    services = bot.services
    notice = await notices_store.claim(services.db, notice_id, services.clock(), "dm")
    if notice is None:
        return True  # delivered already
    try:
        channel = await bot.create_dm(discord.Object(id=notice.user_id))
        await channel.send(clip(notice_text(notice, notice.locale), 2000))
    except discord.HTTPException as exc:
        # 50007 "Cannot send messages to this user" (closed DMs), or Discord is down.
        log.info("notice %s not sent by DM (%s): kept for the next command", notice_id, exc)
        await notices_store.release(services.db, notice_id)
        return False
    return True


async def deliver_pending(interaction: discord.Interaction) -> None:
    """After a command: what is owed to this member, as a private follow-up."""
    if interaction.response.type is discord.InteractionResponseType.modal:
        return  # a form is open: no follow-up possible yet; the next command brings it
    services = services_of(interaction)
    owed = await services.notices.claim_pending(interaction.user.id)
    if not owed:
        return
    locale = interaction_locale(interaction)
    text = "\n\n".join(notice_text(notice, locale) for notice in owed)
    try:
        await interaction.followup.send(clip(text, 2000), ephemeral=True)
    except discord.HTTPException:
        for notice in owed:
            assert notice.id is not None
            await notices_store.release(services.db, notice.id)
        raise
