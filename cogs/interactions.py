"""What every feature's interactions share, set up first: the command tree's one error
handler (a localized message for any failure, never a traceback) and the "Show me"
button, which quizzes, live rounds and daily reveals all carry."""

from __future__ import annotations

from discord.ext import commands

from cogs.ui.buttons import ShowDemoButton
from cogs.ui.replies import on_tree_error


async def setup(bot: commands.Bot) -> None:
    bot.tree.on_error = on_tree_error  # type: ignore[method-assign]
    bot.add_dynamic_items(ShowDemoButton)
