"""Replies: private answers, the one error handler and its localized, clipped messages.

Every failure of a slash command (the command tree's error handler, installed by
`cogs.interactions`) or of a persistent button (`cogs.ui.buttons.PersistentButton`) ends
in `handle_interaction_error`.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable
from typing import Any, TypeVar

import discord
from discord import app_commands

from bot.common.errors import UserError
from bot.common.i18n import t
from bot.common.text import clip
from bot.db.retry import is_transient, outage
from cogs.common import interaction_locale

log = logging.getLogger("quiztutor.discord")

ERROR_PREFIX = "⚠️ "


async def send_ephemeral(
    interaction: discord.Interaction, content: str | None = None, **kwargs: Any
) -> None:
    """Reply privately, whether or not the interaction was answered or deferred already."""
    if interaction.response.is_done():
        await interaction.followup.send(content or "", ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(content, ephemeral=True, **kwargs)


T = TypeVar("T")

# Discord allows 3 s for the first answer to an interaction: past this, the reply is
# deferred ("thinking...") and sent as a follow-up once the work is done.
DEFER_AFTER_S = 1.0


async def in_time(
    interaction: discord.Interaction,
    work: Awaitable[T],
    *,
    after_s: float = DEFER_AFTER_S,
    update: bool = False,
) -> T:
    """`await work`, deferring the reply when it takes longer than `after_s` (a database
    that does not answer at once, or a bot busy with a crowd): a private "thinking..."
    reply, or with `update` the message the pressed button is on (then edited with
    `edit_response`)."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=after_s)
    if not done and not interaction.response.is_done():
        if update:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)
    return await task


async def edit_response(interaction: discord.Interaction, **kwargs: Any) -> None:
    """Edit the message of the pressed button, whether or not `in_time` deferred."""
    if interaction.response.is_done():
        await interaction.edit_original_response(**kwargs)
    else:
        await interaction.response.edit_message(**kwargs)


ECHO_MAX = 100

MESSAGE_MAX = 2000

# The member permissions a refusal names (`perm.<name>`), the first one missing.
PERMISSION_MESSAGES = (
    "manage_guild",
    "send_messages",
    "send_messages_in_threads",
    "create_public_threads",
)

# Parameters the bot itself fills (lists of what exists), never a member's typing.
NOT_ECHOED = frozenset({"problems", "available", "allowed"})


def error_text(key: str, locale: str, **params: Any) -> str:
    """The message of a refusal: values a member typed are clipped, and the whole stays
    under Discord's 2,000 characters (or the reply itself would fail)."""
    shown = {
        name: clip(value, ECHO_MAX + 1)
        if isinstance(value, str) and name not in NOT_ECHOED
        else value
        for name, value in params.items()
    }
    text = ERROR_PREFIX + t(key, locale, **shown)
    return clip(text, MESSAGE_MAX)


async def say_error(interaction: discord.Interaction, key: str, **params: Any) -> None:
    await send_ephemeral(interaction, error_text(key, interaction_locale(interaction), **params))


def log_context(interaction: discord.Interaction) -> dict[str, Any]:
    command = interaction.command.qualified_name if interaction.command else None
    return {
        "guild_id": interaction.guild_id,
        "channel_id": interaction.channel_id,
        "user_id": interaction.user.id,
        "interaction_id": interaction.id,
        "command": command,
    }


async def handle_interaction_error(interaction: discord.Interaction, error: Exception) -> None:
    """One place that turns any failure into a clear, localized message."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, UserError):
        await say_error(interaction, error.key, **error.params)
        return
    if isinstance(error, app_commands.NoPrivateMessage):
        await say_error(interaction, "perm.guild_only")
        return
    if isinstance(error, app_commands.MissingPermissions):
        # The member's own permission (their command's check), named in the message.
        named = [p for p in PERMISSION_MESSAGES if p in error.missing_permissions]
        await say_error(interaction, f"perm.{named[0] if named else 'manage_guild'}")
        return
    if isinstance(error, app_commands.CommandOnCooldown):
        await say_error(interaction, "cooldown", seconds=max(1, math.ceil(error.retry_after)))
        return
    if is_transient(error):
        # The database is away (retried for a while already): logged once for the whole
        # outage, and the member is asked to try again.
        outage.failed("answering an interaction", error)
        await say_error(interaction, "error.db_unavailable")
        return
    log.error("Unhandled error in interaction", exc_info=error, extra=log_context(interaction))
    try:
        await say_error(interaction, "error.internal")
    except discord.HTTPException:
        pass
