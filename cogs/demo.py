"""`/demo`: run a torch experiment in the worker process (the "Show me" button, in
`cogs.ui.buttons`, runs the same way).

The interaction is deferred at once (Discord allows 3 s for the first response);
the demo runs in the worker, never in the bot process; the answer is a follow-up
with the numbers, the snippet that ran and the plot.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from cogs.common import member_may_post
from cogs.ui.buttons import run_demo_for
from experiments.catalog import CATALOG, widest_range

log = logging.getLogger("quiztutor.demo")

# Discord enforces these (min_value/max_value); each demo's own bounds are checked after.
MB_MIN, MB_MAX = widest_range("micro_batches") or (1, 16)
MBS_MIN, MBS_MAX = widest_range("micro_batch_size") or (1, 256)

DEMO_CHOICES = [
    app_commands.Choice(name=info.title("en"), value=name) for name, info in CATALOG.items()
]


class DemoCog(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(
        name="demo", description="Run a small torch experiment that shows the point"
    )
    @app_commands.describe(
        name="Which experiment",
        micro_batches="Number of micro-batches (1-16)",
        micro_batch_size="Samples per micro-batch (1-256)",
    )
    @app_commands.choices(name=DEMO_CHOICES)
    @member_may_post  # the result is posted in the channel
    async def demo(
        self,
        interaction: discord.Interaction,
        name: app_commands.Choice[str],
        micro_batches: app_commands.Range[int, MB_MIN, MB_MAX] | None = None,
        micro_batch_size: app_commands.Range[int, MBS_MIN, MBS_MAX] | None = None,
    ) -> None:
        # Bounds are checked against the catalog so the message names the allowed range.
        params = {
            k: v
            for k, v in {
                "micro_batches": micro_batches,
                "micro_batch_size": micro_batch_size,
            }.items()
            if v is not None
        }
        await run_demo_for(interaction, name.value, params, ephemeral=False)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(DemoCog(bot))
