"""`/streak` and `/leaderboard`: daily-question streaks of this server's members.

Both answer in public: streaks are meant to be shown off and compared, and nothing in
them is private (the leaderboard shows the same numbers). The leaderboard's page buttons
are persistent `DynamicItem`s whose custom_id carries the order, the page and the
message's language, so they keep working after a restart and anyone can page.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.errors import UserError
from bot.i18n import SUPPORTED_LOCALES, t
from bot.streaks import (
    LEADERBOARD_ORDERS,
    MIN_ANSWERED_FOR_ACCURACY,
    LeaderboardRow,
    MemberStreak,
)
from cogs.common import (
    BRAND_COLOUR,
    handle_interaction_error,
    interaction_locale,
    send_ephemeral,
    services_of,
)

PER_PAGE = 10
# Page numbers in custom ids are bounded so a forged id cannot ask for a huge OFFSET.
MAX_PAGE = 9999

ORDER_CHOICES = [
    app_commands.Choice(name=locale_str("current streak"), value="streak"),
    app_commands.Choice(name=locale_str("longest streak"), value="longest"),
    app_commands.Choice(name=locale_str("correct answers"), value="correct"),
    app_commands.Choice(name=locale_str("accuracy"), value="accuracy"),
]


def _percent(value: float) -> str:
    return f"{round(value * 100)}%"


def streak_embed(name: str, streak: MemberStreak, locale: str) -> discord.Embed:
    embed = discord.Embed(title=t("streak.title", locale, name=name), colour=BRAND_COLOUR)
    days = "streak.days"
    embed.add_field(name=t("streak.current", locale), value=t(days, locale, count=streak.current))
    embed.add_field(name=t("streak.longest", locale), value=t(days, locale, count=streak.longest))
    embed.add_field(name="\u200b", value="\u200b")  # ends the first row of inline fields
    embed.add_field(name=t("streak.answered", locale), value=str(streak.answered))
    embed.add_field(name=t("streak.correct", locale), value=str(streak.correct))
    accuracy = streak.accuracy
    embed.add_field(
        name=t("streak.accuracy", locale),
        value=_percent(accuracy) if accuracy is not None else t("streak.no_accuracy", locale),
    )
    if not streak.answered:
        embed.description = t("streak.no_answers", locale)
    return embed


def _row_value(row: LeaderboardRow, by: str, locale: str) -> str:
    if by == "accuracy":
        return f"{_percent(row.value)} ({row.correct}/{row.answered})"
    return t(f"leaderboard.value.{by}", locale, value=int(row.value))


def leaderboard_embed(
    rows: list[LeaderboardRow], by: str, page: int, pages: int, locale: str
) -> discord.Embed:
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    lines = [
        f"{medals.get(row.rank, f'**{row.rank}.**')} <@{row.user_id}> — {_row_value(row, by, locale)}"
        for row in rows
    ]
    embed = discord.Embed(
        title=t(f"leaderboard.title.{by}", locale),
        description="\n".join(lines),
        colour=BRAND_COLOUR,
    )
    embed.set_footer(
        text=t(
            "leaderboard.footer",
            locale,
            page=page,
            pages=pages,
            min_answered=MIN_ANSWERED_FOR_ACCURACY,
        )
    )
    return embed


def empty_text(by: str, locale: str) -> str:
    if by == "accuracy":
        return t("leaderboard.empty_accuracy", locale, min_answered=MIN_ANSWERED_FOR_ACCURACY)
    return t("leaderboard.empty", locale)


def leaderboard_view(by: str, page: int, pages: int, locale: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(PageButton(by, page - 1, locale, label="◀", disabled=page <= 1))
    view.add_item(PageButton(by, page + 1, locale, label="▶", disabled=page >= pages))
    return view


class PageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
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

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await show_page(interaction, self.by, self.page, self.locale)
        except Exception as exc:  # every failure becomes a clear message, never a dead button
            await handle_interaction_error(interaction, exc)


async def render_page(
    interaction: discord.Interaction, by: str, page: int, locale: str
) -> tuple[discord.Embed | None, discord.ui.View | None, str | None]:
    """The page to show, clamped into range: the board may have shrunk since it was posted."""
    if interaction.guild_id is None:
        raise UserError("perm.guild_only")
    streaks = services_of(interaction).streaks
    page = min(max(page, 1), MAX_PAGE)
    rows, pages = await streaks.leaderboard(interaction.guild_id, by, page, PER_PAGE)
    if pages == 0:
        return None, None, empty_text(by, locale)
    if page > pages:
        page = pages
        rows, pages = await streaks.leaderboard(interaction.guild_id, by, page, PER_PAGE)
    embed = leaderboard_embed(rows, by, page, pages, locale)
    return embed, leaderboard_view(by, page, pages, locale), None


async def show_page(interaction: discord.Interaction, by: str, page: int, locale: str) -> None:
    embed, view, text = await render_page(interaction, by, page, locale)
    # Editing the clicked message (callback type 7) keeps one board per command.
    await interaction.response.edit_message(content=text, embed=embed, view=view)


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
    bot.add_dynamic_items(PageButton)
    await bot.add_cog(StatsCog(bot))
