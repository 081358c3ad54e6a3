"""Server admins on Discord (the extension `cogs.admin`): `/quizadmin` — the server's own
quizzes (`commands`), the review queue of suggestions (`suggestions`) and the reported
questions (`reports`), with their persistent buttons and forms."""

from __future__ import annotations

from discord.ext import commands

from cogs.admin.commands import AdminCog
from cogs.admin.reports import REPORTS_BUTTONS
from cogs.admin.suggestions import SUGGESTION_BUTTONS, EditModal, RejectModal
from cogs.ui.buttons import add_buttons
from cogs.ui.modals import add_modals


async def setup(bot: commands.Bot) -> None:
    add_buttons(bot, *SUGGESTION_BUTTONS, *REPORTS_BUTTONS)
    add_modals(bot, EditModal, RejectModal)
    await bot.add_cog(AdminCog(bot))
