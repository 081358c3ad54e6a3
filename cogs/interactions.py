"""What every feature's interactions share, set up first: the command tree's one error
handler (a localized message for any failure, never a traceback), the persistent modals'
router, the answer to a button press that no button's template takes, the buttons any
question can carry ("Show me" and "Report"), and the notices owed to a member, delivered
with the reply to their next command."""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.db.retry import is_transient, outage
from cogs.ui.buttons import ShowDemoButton, UnclaimedButtons, add_buttons
from cogs.ui.modals import ModalRouter, add_modals
from cogs.ui.notices import deliver_pending
from cogs.ui.replies import handle_interaction_error, log_context
from cogs.ui.report import ReportButton, ReportModal

log = logging.getLogger("quiztutor.community")


class OwedNotices(commands.Cog):
    @commands.Cog.listener()
    async def on_app_command_completion(
        self,
        interaction: discord.Interaction,
        command: app_commands.Command | app_commands.ContextMenu,
    ) -> None:
        try:
            await deliver_pending(interaction)
        except Exception as exc:  # the command itself succeeded: never spoil it
            if is_transient(exc):
                # The database is away: logged once for the whole outage; the notices
                # stay owed and go out with a later command.
                outage.failed("delivering owed notices", exc)
                return
            log.exception("owed notices not delivered", extra=log_context(interaction))


async def setup(bot: commands.Bot) -> None:
    bot.tree.on_error = handle_interaction_error  # type: ignore[method-assign]
    await bot.add_cog(ModalRouter())
    await bot.add_cog(UnclaimedButtons())
    await bot.add_cog(OwedNotices())
    add_buttons(bot, ShowDemoButton, ReportButton)
    add_modals(bot, ReportModal)
