"""What Learning II adds to embeds: `/me`'s habit, next review and true retention, and
`/daily stats`'s memory model and class retention curve."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import discord

from bot.common.i18n import t
from bot.db.tables.learning import MemoryModel
from bot.learning import memory_store
from bot.learning.activity_rules import Habit, run_days
from bot.learning.memory import ClassCurve
from bot.learning.memory_rules import MIN_MEMBERS, MIN_REVIEWS
from bot.stats.learning_charts import heatmap_data, heatmap_png, retention_png
from cogs.ui.style import BRAND_COLOUR, discord_time

if TYPE_CHECKING:
    from bot.container import Services

RETENTION_CHART = "retention.png"
HEATMAP_CHART = "habit.png"


def _pct(share: float) -> int:
    return round(100 * share)


def add_habit(embed: discord.Embed, habit: Habit, locale: str) -> discord.Embed:
    """`/me`: answers and runs over 26 weeks, the next review, true retention vs target."""
    current, longest = habit.runs
    embed.add_field(
        name=t("me.habit", locale),
        value=t(
            "me.habit_value",
            locale,
            answers=habit.answers,
            current=run_days(current),
            longest=run_days(longest),
        ),
        inline=False,
    )
    embed.add_field(
        name=t("me.next_review_title", locale),
        value=discord_time(habit.next_due)
        if habit.next_due is not None
        else t("me.next_review_none", locale),
    )
    actual = habit.true_retention
    embed.add_field(
        name=t("me.true_retention", locale),
        value=t(
            "me.true_retention_value",
            locale,
            actual=_pct(actual),
            n=habit.due_reviews,
            target=_pct(habit.target),
        )
        if actual is not None
        else t("me.true_retention_none", locale, target=_pct(habit.target)),
    )
    return embed


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def memory_text(model: MemoryModel | None, locale: str) -> str:
    """`/daily stats`: which parameters schedule this server and the last fit's figures."""
    limits = {"min_reviews": MIN_REVIEWS, "min_members": MIN_MEMBERS}
    if model is None or model.decision is None or model.fitted_at is None:
        return t("class.memory_none", locale, **limits)
    date = model.fitted_at.date().isoformat()
    figures = {
        "date": date,
        "n": model.held_out,
        "ll_fit": _figure(model.log_loss_fitted),
        "ll_def": _figure(model.log_loss_default),
        "rmse_fit": _figure(model.rmse_fitted),
        "rmse_def": _figure(model.rmse_default),
    }
    if model.parameters:
        return t("class.memory_fitted", locale, **figures)
    if model.decision == "too_little_history":
        return t("class.memory_too_little", locale, date=date, reviews=model.reviews, **limits)
    return t("class.memory_not_better", locale, **figures)


def curve_text(curve: ClassCurve, locale: str) -> str:
    if not curve.recall:
        return t("class.retention_none", locale)
    recall = curve.recall
    return t(
        "class.retention_value",
        locale,
        cards=curve.cards,
        now=_pct(recall[0]),
        week=_pct(recall[min(7, len(recall) - 1)]),
        month=_pct(recall[-1]),
        target=_pct(curve.target),
    )


def add_memory(
    embed: discord.Embed, model: MemoryModel | None, curve: ClassCurve, locale: str
) -> discord.Embed:
    embed.add_field(name=t("class.memory", locale), value=memory_text(model, locale), inline=False)
    embed.add_field(
        name=t("class.retention", locale), value=curve_text(curve, locale), inline=False
    )
    return embed


async def memory_embed(
    services: Services, guild_id: int, locale: str
) -> tuple[discord.Embed, list[discord.File]]:
    """`/daily stats`' second embed: the memory model, the class retention curve (a chart)."""
    model = await memory_store.model(services.db, guild_id)
    curve = await services.memory.class_curve(guild_id)
    embed = add_memory(discord.Embed(colour=BRAND_COLOUR), model, curve, locale)
    if not curve.recall:
        return embed, []
    png = await services.charts.draw(retention_png, curve.recall, curve.target, locale)
    embed.set_image(url=f"attachment://{RETENTION_CHART}")
    return embed, [discord.File(io.BytesIO(png), filename=RETENTION_CHART)]


async def habit_embed(
    services: Services, habit: Habit, locale: str
) -> tuple[discord.Embed, list[discord.File]]:
    """`/me`'s second embed: the calendar heatmap of the last 26 weeks."""
    embed = discord.Embed(colour=BRAND_COLOUR)
    png = await services.charts.draw(heatmap_png, heatmap_data(habit, locale))
    embed.set_image(url=f"attachment://{HEATMAP_CHART}")
    return embed, [discord.File(io.BytesIO(png), filename=HEATMAP_CHART)]
