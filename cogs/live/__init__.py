"""Live rounds on Discord (the extension `cogs.live`): `/quiz live start|stop|language`,
the round's buttons, and the discord.py calls its driver makes.

* `commands`: `LiveCommands` (the `live` group, added under `/quiz` through the command
  tree, so this cog and the quiz cog stay independent) and `LiveCog` (the driver of this
  process's rounds, deleted threads).
* `buttons`: the persistent buttons of live rounds (one per action) and what a press does.
* `publisher`: `DiscordLivePublisher`, the REST adapter the driver uses.

The decisions live in `bot.live`; the embeds in `cogs.live.embeds`.
Load after `cogs.quiz` (the `/quiz` group must exist).
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from cogs.live.buttons import BUTTONS, PREFIX
from cogs.live.commands import LiveCog, LiveCommands
from cogs.ui.buttons import add_buttons


def _quiz_group(bot: commands.Bot) -> app_commands.Group:
    quiz = bot.tree.get_command("quiz")
    if not isinstance(quiz, app_commands.Group):
        raise RuntimeError("cogs.live adds /quiz live: load cogs.quiz before it")
    return quiz


async def setup(bot: commands.Bot) -> None:
    quiz = _quiz_group(bot)
    cog = LiveCog(bot)  # type: ignore[arg-type]
    await bot.add_cog(cog)
    add_buttons(bot, *BUTTONS, unknown=(PREFIX, "live.unknown_round"))
    quiz.add_command(LiveCommands(cog))


async def teardown(bot: commands.Bot) -> None:
    quiz = bot.tree.get_command("quiz")
    if isinstance(quiz, app_commands.Group):
        quiz.remove_command("live")
