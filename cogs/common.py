"""Pieces every cog shares: the services, the member's and the server's language, the
topic autocomplete, the checks that a member may speak where the bot answers in public,
and per-bot cooldowns.

Replies, embeds and buttons are the presentation layer, `cogs.ui`.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable, Hashable
from functools import cache
from typing import TYPE_CHECKING, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.common.i18n import locale_for
from bot.quizbank import pick_locale

if TYPE_CHECKING:
    from bot.container import Services
    from bot.discord.client import QuizTutorBot

T = TypeVar("T")


def interaction_locale(interaction: discord.Interaction) -> str:
    """The member's language (their Discord client's)."""
    return locale_for(str(interaction.locale) if interaction.locale else None)


def guild_locale(interaction: discord.Interaction) -> str:
    """The server's language (its community setting)."""
    return locale_for(str(interaction.guild_locale) if interaction.guild_locale else None)


def services_of(interaction: discord.Interaction) -> Services:
    bot: QuizTutorBot = interaction.client  # type: ignore[assignment]
    return bot.services


async def topic_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Autocomplete of a quiz topic: the quizzes this server sees, titled in the member's language."""
    locale = interaction_locale(interaction)
    needle = current.lower()
    choices = []
    for quiz in services_of(interaction).bank.visible_quizzes(interaction.guild_id):
        title = pick_locale(quiz.title, locale)
        if needle in quiz.id or needle in title.lower():
            choices.append(app_commands.Choice(name=title[:100], value=quiz.id))
    return choices[:25]  # Discord shows at most 25


@cache
def _zones() -> list[str]:
    return sorted(zoneinfo.available_timezones())


def timezone_choices(current: str) -> list[app_commands.Choice[str]]:
    """IANA time zones containing what was typed (Discord shows at most 25)."""
    needle = current.lower().replace(" ", "_")
    return [app_commands.Choice(name=z, value=z) for z in _zones() if needle in z.lower()][:25]


def _in_guild(interaction: discord.Interaction) -> bool:
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    return True


_IN_GUILD = app_commands.check(_in_guild)
_MANAGES_SERVER = app_commands.checks.has_permissions(manage_guild=True)


def manage_server(command: T) -> T:
    """Checked on our side too: `default_permissions` only hides a command, and a client
    can still send it. In a server, with Manage Server (Administrator implies it)."""
    return _MANAGES_SERVER(_IN_GUILD(command))


async def require_manage_server(interaction: discord.Interaction) -> int:
    """The same check for a button press (buttons carry no command checks); the server's id."""
    _in_guild(interaction)
    if not interaction.permissions.manage_guild:
        raise app_commands.MissingPermissions(["manage_guild"])
    return guild_of(interaction)


def guild_of(interaction: discord.Interaction) -> int:
    """The server of a command or press that `manage_server` or `require_manage_server`
    let through (both refuse DMs)."""
    assert interaction.guild_id is not None
    return interaction.guild_id


def speaks_here(interaction: discord.Interaction, *, opens_thread: bool = False) -> None:
    """The member may post in this channel (in a thread: post in threads), and with
    `opens_thread` create a public thread there, or `MissingPermissions` names what they
    lack: the bot never speaks in public for a member where the member may not.

    `interaction.permissions` are the member's own in this channel, overwrites included
    (the parent channel's in a thread). A DM has no permissions to check."""
    if interaction.guild_id is None:
        return
    allowed = interaction.permissions
    in_thread = isinstance(interaction.channel, discord.Thread)
    needed = ["send_messages_in_threads" if in_thread else "send_messages"]
    if opens_thread:
        needed.append("create_public_threads")
    missing = [name for name in needed if not getattr(allowed, name)]
    if missing:
        raise app_commands.MissingPermissions(missing)


def _speaks(interaction: discord.Interaction) -> bool:
    speaks_here(interaction)
    return True


#: A command whose reply is public: only where the member may post themselves.
member_may_post = app_commands.check(_speaks)


Key = Callable[[discord.Interaction], Hashable]
Limit = commands.CooldownMapping  # discord.py's buckets of `app_commands.Cooldown`


def limit(rate: int, per: float, key: Key) -> Limit[discord.Interaction] | None:
    """`rate` uses per `per` seconds for each `key` (None when `per` is 0: no limit).

    discord.py's own cooldown buckets, one mapping per bot: the `checks.cooldown`
    decorator keeps one mapping per process, which every bot of a process (the tests'
    restarts) would share, and takes its numbers at import, before the settings."""
    return Limit.from_cooldown(rate, per, key) if per > 0 else None


def take_limits(
    interaction: discord.Interaction, *limits: Limit[discord.Interaction] | None
) -> None:
    """One use of each limit, or none and `CommandOnCooldown` when one of them is spent."""
    buckets = [m.get_bucket(interaction) for m in limits if m is not None]
    held = [b for b in buckets if b is not None and b.get_retry_after()]
    if held:
        longest = max(held, key=lambda b: b.get_retry_after())
        raise app_commands.CommandOnCooldown(longest, longest.get_retry_after())
    for bucket in buckets:
        if bucket is not None:
            bucket.update_rate_limit()
