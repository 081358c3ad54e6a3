"""Pieces every cog shares: the services, the member's and the server's language, the
topic autocomplete.

Replies, embeds and buttons are the presentation layer, `cogs.ui`.
"""

from __future__ import annotations

import zoneinfo
from functools import cache
from typing import TYPE_CHECKING, TypeVar

import discord
from discord import app_commands

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


async def require_manage_server(interaction: discord.Interaction) -> None:
    """The same check for a button press (buttons carry no command checks)."""
    _in_guild(interaction)
    if not interaction.permissions.manage_guild:
        raise app_commands.MissingPermissions(["manage_guild"])
