"""The daily question on Discord (the extension `cogs.daily`).

* `publisher`: `DiscordPublisher`, the discord.py calls the driver needs (REST adapter).
* `events`: `DailyCog`, the driver of this process and the gateway listeners.
* `commands`: `DailyCommands`, the six `/daily` commands.
* `buttons`: the A-D buttons of a post in buttons mode (a persistent `DynamicItem`).

The decisions live in `bot.daily`; the embeds in `cogs.daily.embeds`.
"""

from __future__ import annotations

from discord.ext import commands

from cogs.daily.buttons import DailyAnswerButton
from cogs.daily.commands import DailyCommands
from cogs.daily.events import DailyCog


async def setup(bot: commands.Bot) -> None:
    bot.add_dynamic_items(DailyAnswerButton)
    events = DailyCog(bot)  # type: ignore[arg-type]
    await bot.add_cog(events)
    await bot.add_cog(DailyCommands(bot, events.jobs))  # type: ignore[arg-type]
