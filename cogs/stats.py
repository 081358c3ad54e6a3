"""`/streak` and `/leaderboard`: daily-question streaks of this server's members; `/me`,
a member's own progress, privately.

Both answer in public: streaks are meant to be shown off and compared, and nothing in
them is private (the leaderboard shows the same numbers). The leaderboard's page buttons
are persistent `DynamicItem`s whose custom_id carries the order, the page and the
message's language, so they keep working after a restart and anyone can page.
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.common.errors import UserError
from bot.common.i18n import SUPPORTED_LOCALES, t
from bot.daily import streaks_store
from bot.daily.streak_rules import LEADERBOARD_ORDERS
from bot.stats.charts import accuracy_png, progress_bars
from cogs.common import interaction_locale, limit, member_may_post, services_of, take_limits
from cogs.ui.buttons import PersistentButton, add_buttons
from cogs.ui.embeds import empty_text, leaderboard_embed, progress_embed, streak_embed
from cogs.ui.learning_embeds import add_habit, habit_embed
from cogs.ui.replies import send_ephemeral

if TYPE_CHECKING:
    from bot.discord.client import QuizTutorBot

PROGRESS_CHART = "progress.png"
PER_PAGE = 10
# Page numbers travel in custom ids (4 digits at most): a forged id cannot ask for a huge
# OFFSET, and a board this long is clamped.
MAX_PAGE = 9999

ORDER_CHOICES = [
    app_commands.Choice(name=locale_str("current streak"), value="streak"),
    app_commands.Choice(name=locale_str("longest streak"), value="longest"),
    app_commands.Choice(name=locale_str("correct answers"), value="correct"),
    app_commands.Choice(name=locale_str("accuracy"), value="accuracy"),
]


class PageButton(
    PersistentButton,
    template=(
        rf"lb:(?P<by>{'|'.join(LEADERBOARD_ORDERS)}):(?P<page>[0-9]{{1,4}})"
        rf":(?P<locale>{'|'.join(SUPPORTED_LOCALES)})"
    ),
):
    """Shows page `page` of the `by` leaderboard when clicked; the locale keeps the
    message in one language whoever pages it."""

    def __init__(
        self, by: str, page: int, locale: str, *, label: str = "▶", disabled: bool = False
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                disabled=disabled,
                custom_id=f"lb:{by}:{page}:{locale}",
            )
        )
        self.by = by
        self.page = page
        self.locale = locale

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PageButton:
        return cls(match["by"], int(match["page"]), match["locale"])

    async def pressed(self, interaction: discord.Interaction) -> None:
        await show_page(interaction, self.by, self.page, self.locale)


def leaderboard_view(by: str, page: int, pages: int, locale: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(PageButton(by, page - 1, locale, label="◀", disabled=page <= 1))
    view.add_item(PageButton(by, page + 1, locale, label="▶", disabled=page >= pages))
    return view


async def render_page(
    interaction: discord.Interaction, by: str, page: int, locale: str
) -> tuple[discord.Embed | None, discord.ui.View | None, str | None]:
    """The page to show, clamped into range: the board may have shrunk since it was posted."""
    if interaction.guild_id is None:
        raise UserError("perm.guild_only")
    db = services_of(interaction).db
    page = min(max(page, 1), MAX_PAGE)
    rows, pages = await streaks_store.leaderboard(db, interaction.guild_id, by, page, PER_PAGE)
    if pages == 0:
        return None, None, empty_text(by, locale)
    if page > pages:
        page = pages
        rows, pages = await streaks_store.leaderboard(db, interaction.guild_id, by, page, PER_PAGE)
    embed = leaderboard_embed(rows, by, page, pages, locale)
    return embed, leaderboard_view(by, page, pages, locale), None


async def show_page(interaction: discord.Interaction, by: str, page: int, locale: str) -> None:
    embed, view, text = await render_page(interaction, by, page, locale)
    # Editing the clicked message (callback type 7) keeps one board per command.
    await interaction.response.edit_message(content=text, embed=embed, view=view)


class StatsCog(commands.Cog):
    def __init__(self, bot: QuizTutorBot) -> None:
        self.bot = bot
        # /me draws its charts in the one chart process everyone's charts share.
        self.me_limit = limit(1, bot.settings.me_cooldown_s, lambda i: i.user.id)

    @app_commands.command(name="streak", description="Your daily-question streak")
    @app_commands.describe(member="Whose streak (default: yours)")
    @app_commands.guild_only()
    @member_may_post  # the streak is posted in the channel
    async def streak(
        self,
        interaction: discord.Interaction,
        member: discord.Member | discord.User | None = None,
    ) -> None:
        if interaction.guild_id is None:
            raise UserError("perm.guild_only")
        locale = interaction_locale(interaction)
        target = member or interaction.user
        stats = await streaks_store.member_streak(
            services_of(interaction).db, interaction.guild_id, target.id
        )
        embed = streak_embed(target.display_name, stats, locale)
        await interaction.response.send_message(embed=embed)

    @app_commands.command(name="me", description="Your own progress (only you see it)")
    async def me(self, interaction: discord.Interaction) -> None:
        take_limits(interaction, self.me_limit)
        locale = interaction_locale(interaction)
        services = services_of(interaction)
        user_id, guild_id = interaction.user.id, interaction.guild_id
        progress = await services.progress.of(user_id, guild_id)
        habit = await services.progress.habit(user_id, guild_id, progress.reviews.next_due)
        embed = progress_embed(interaction.user.display_name, progress, services.bank, locale)
        add_habit(embed, habit, locale)
        if not progress.topics and not habit.answers:
            # Nothing answered yet: no charts, and an answer at once.
            await send_ephemeral(interaction, embed=embed)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)  # charts take a while
        embeds, files = [embed], []
        if progress.topics:
            bars = progress_bars(progress, services.bank, locale)
            png = await services.charts.draw(accuracy_png, bars, t("me.chart_title", locale))
            embed.set_image(url=f"attachment://{PROGRESS_CHART}")
            files.append(discord.File(io.BytesIO(png), filename=PROGRESS_CHART))
        calendar, more = await habit_embed(services, habit, locale)
        await send_ephemeral(interaction, embeds=[*embeds, calendar], files=[*files, *more])

    @app_commands.command(name="leaderboard", description="The server's best")
    @app_commands.describe(by="Rank by")
    @app_commands.choices(by=ORDER_CHOICES)
    @app_commands.guild_only()
    @member_may_post  # the board is posted in the channel
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
    add_buttons(bot, PageButton)
    await bot.add_cog(StatsCog(bot))  # type: ignore[arg-type]
