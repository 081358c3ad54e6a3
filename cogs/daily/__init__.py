"""The daily question on Discord (the extension `cogs.daily`).

* `publisher`: `DiscordPublisher`, the discord.py calls the driver needs (REST adapter).
* `events`: `DailyCog`, the driver of this process and the gateway listeners.
* `commands`: `DailyCommands`, the six `/daily` commands.
* `buttons`: the A-D buttons of a post in buttons mode (a persistent `DynamicItem`).

The decisions live in `bot.daily`; the embeds in `cogs.daily.embeds`.
"""

from __future__ import annotations

from discord.ext import commands

from cogs.daily.buttons import PREFIX, DailyAnswerButton
from cogs.daily.commands import DailyCommands
from cogs.daily.events import DailyCog
from cogs.ui.buttons import add_buttons


async def setup(bot: commands.Bot) -> None:
    add_buttons(bot, DailyAnswerButton, unknown=(PREFIX, "daily.answers_closed"))
    events = DailyCog(bot)  # type: ignore[arg-type]
    await bot.add_cog(events)
    await bot.add_cog(DailyCommands(bot, events.jobs))  # type: ignore[arg-type]
