"""`/streak` and `/leaderboard`: daily-question streaks of this server's members; `/me`,
a member's own progress, privately.

Both answer in public: streaks are meant to be shown off and compared, and nothing in
them is private (the leaderboard shows the same numbers). The leaderboard's page buttons
are persistent `DynamicItem`s whose custom_id carries the order, the page and the
message's language, so they keep working after a restart and anyone can page.
"""

from __future__ import annotations

import io

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.core.errors import UserError
from bot.core.i18n import t
from bot.services.charts import accuracy_png, progress_bars
from cogs.common import services_of
from cogs.ui.buttons import render_page
from cogs.ui.embeds import progress_embed, streak_embed
from cogs.ui.replies import interaction_locale, send_ephemeral

PROGRESS_CHART = "progress.png"

# Page numbers in custom ids are bounded so a forged id cannot ask for a huge OFFSET.

ORDER_CHOICES = [
    app_commands.Choice(name=locale_str("current streak"), value="streak"),
    app_commands.Choice(name=locale_str("longest streak"), value="longest"),
    app_commands.Choice(name=locale_str("correct answers"), value="correct"),
    app_commands.Choice(name=locale_str("accuracy"), value="accuracy"),
]


class StatsCog(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="streak", description="Your daily-question streak")
    @app_commands.describe(member="Whose streak (default: yours)")
    @app_commands.guild_only()
    async def streak(
        self,
        interaction: discord.Interaction,
        member: discord.Member | discord.User | None = None,
    ) -> None:
        if interaction.guild_id is None:
            raise UserError("perm.guild_only")
        locale = interaction_locale(interaction)
        target = member or interaction.user
        stats = await services_of(interaction).streaks.streak(interaction.guild_id, target.id)
        embed = streak_embed(target.display_name, stats, locale)
        await interaction.response.send_message(embed=embed)

    @app_commands.command(name="me", description="Your own progress (only you see it)")
    async def me(self, interaction: discord.Interaction) -> None:
        locale = interaction_locale(interaction)
        services = services_of(interaction)
        progress = await services.progress.of(interaction.user.id, interaction.guild_id)
        embed = progress_embed(interaction.user.display_name, progress, services.bank, locale)
        if not progress.topics:  # nothing answered yet: no chart, and an answer at once
            await send_ephemeral(interaction, embed=embed)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)  # the chart takes a while
        bars = progress_bars(progress, services.bank, locale)
        png = await services.charts.draw(accuracy_png, bars, t("me.chart_title", locale))
        embed.set_image(url=f"attachment://{PROGRESS_CHART}")
        chart = discord.File(io.BytesIO(png), filename=PROGRESS_CHART)
        await send_ephemeral(interaction, embed=embed, file=chart)

    @app_commands.command(name="leaderboard", description="The server's best")
    @app_commands.describe(by="Rank by")
    @app_commands.choices(by=ORDER_CHOICES)
    @app_commands.guild_only()
    async def leaderboard(
        self, interaction: discord.Interaction, by: app_commands.Choice[str] | None = None
    ) -> None:
        locale = interaction_locale(interaction)
        order = by.value if by is not None else "streak"
        embed, view, text = await render_page(interaction, order, 1, locale)
        if embed is None or view is None:
            # Nothing to rank: tell the caller privately instead of posting an empty board.
            await send_ephemeral(interaction, text)
            return
        await interaction.response.send_message(embed=embed, view=view)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(StatsCog(bot))
