"""`/help`: a private summary of the commands this member can use.

The list is read from the command tree itself (names, options and descriptions as
registered, in the member's language), so it cannot drift from the real commands.
Admin commands (those whose group needs Manage Server) are shown only to members who
have that permission.
"""

from __future__ import annotations

from collections.abc import Iterator

import discord
from discord import app_commands
from discord.ext import commands

from bot.common.i18n import t
from bot.discord.translator import CommandTranslator
from cogs.common import interaction_locale
from cogs.ui.replies import send_ephemeral
from cogs.ui.style import BRAND_COLOUR

Command = app_commands.Command | app_commands.Group


def _leaves(commands_: list[Command]) -> Iterator[tuple[app_commands.Command, bool]]:
    """Every runnable command, with whether it needs Manage Server."""
    for command in sorted(commands_, key=lambda c: c.name):
        admin = bool(command.default_permissions and command.default_permissions.manage_guild)
        if isinstance(command, app_commands.Group):
            for sub, sub_admin in _leaves(list(command.commands)):
                yield sub, admin or sub_admin
        else:
            yield command, admin


class HelpCog(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.texts_id = CommandTranslator().texts_id

    def _word(self, text: str, locale: str) -> str:
        return self.texts_id.get(text, text) if locale == "id" else text

    def line(self, command: app_commands.Command, locale: str) -> str:
        name = " ".join(self._word(part, locale) for part in command.qualified_name.split())
        options = " ".join(
            (f"{self._word(p.name, locale)}" if p.required else f"[{self._word(p.name, locale)}]")
            for p in command.parameters
        )
        usage = f"/{name} {options}".strip()
        return f"`{usage}` — {self._word(command.description, locale)}"

    def embed(self, locale: str, is_admin: bool) -> discord.Embed:
        member_lines: list[str] = []
        admin_lines: list[str] = []
        slash = [
            c
            for c in self.bot.tree.get_commands()
            if isinstance(c, app_commands.Command | app_commands.Group)
        ]
        for command, admin in _leaves(slash):
            (admin_lines if admin else member_lines).append(self.line(command, locale))
        parts = [
            t("help.intro", locale),
            f"**{t('help.members', locale)}**",
            *member_lines,
            t("help.reactions", locale),
        ]
        if is_admin:
            parts += [
                f"**{t('help.admins', locale)}**",
                *admin_lines,
                t("help.first_daily", locale),
            ]
        parts.append(t("help.terminal", locale))
        return discord.Embed(
            title=t("help.title", locale), description="\n".join(parts), colour=BRAND_COLOUR
        )

    @app_commands.command(name="help", description="What this bot can do for you")
    async def help(self, interaction: discord.Interaction) -> None:
        permissions = interaction.permissions
        is_admin = interaction.guild_id is not None and (
            permissions.manage_guild or permissions.administrator
        )
        await send_ephemeral(
            interaction, embed=self.embed(interaction_locale(interaction), bool(is_admin))
        )


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(HelpCog(bot))
