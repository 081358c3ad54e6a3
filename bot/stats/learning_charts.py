"""The charts of Learning II, drawn in the chart process (`bot.stats.charts.ChartRenderer`):
`/me`'s calendar heatmap of answers per day, and `/daily stats`'s class retention curve.

The bot sends plain data (`heatmap_data`, lists of numbers) and gets PNG bytes back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from bot.common.i18n import t
from bot.learning.activity_rules import HEATMAP_WEEKS, Habit, Run
from bot.stats.charts import BAR, MUTED, WEAK, _figure, _png

CURRENT = "#F0B232"  # the current run's outline
LONGEST = WEAK  # the longest run's outline


@dataclass(frozen=True)
class HeatmapData:
    start: date  # the Monday of the first column
    today: date
    counts: dict[date, int]
    current: Run | None
    longest: Run | None
    title: str
    current_label: str
    longest_label: str
    weekdays: list[str]  # Monday, Wednesday, Friday, Sunday
    months: list[str]  # January .. December


def heatmap_data(habit: Habit, locale: str) -> HeatmapData:
    current, longest = habit.runs
    return HeatmapData(
        habit.start,
        habit.today,
        dict(habit.counts),
        current,
        longest,
        t("me.heatmap_title", locale),
        t("me.run_current", locale),
        t("me.run_longest", locale),
        t("me.weekdays", locale).split(","),
        t("me.months", locale).split(","),
    )


def _cell(data: HeatmapData, day: date) -> tuple[int, int]:
    """(column, row) of a day: weeks left to right, Monday on top."""
    return (day - data.start).days // 7, day.weekday()


def _outline(ax: object, data: HeatmapData, run: Run | None, colour: str, label: str) -> None:
    """Each day of `run` outlined, as one collection: a patch per day costs ~1 ms to add
    and to draw, and a long run has up to 182 of them."""
    from matplotlib.collections import PolyCollection

    if run is None:
        return
    squares = []
    day = max(run[0], data.start)
    while day <= run[1]:
        x, y = _cell(data, day)
        squares.append(
            [(x - 0.5, y - 0.5), (x + 0.5, y - 0.5), (x + 0.5, y + 0.5), (x - 0.5, y + 0.5)]
        )
        day += timedelta(days=1)
    outlines = PolyCollection(
        squares, facecolors="none", edgecolors=colour, linewidths=1.6, label=label
    )
    ax.add_collection(outlines, autolim=False)  # type: ignore[attr-defined]


def heatmap_png(data: HeatmapData) -> bytes:
    """A GitHub-style calendar: 26 week columns, Monday to Sunday, darker = more answers."""
    import numpy as np

    grid = np.full((7, HEATMAP_WEEKS), np.nan)
    day = data.start
    while day <= data.today:
        x, y = _cell(data, day)
        grid[y, x] = data.counts.get(day, 0)
        day += timedelta(days=1)
    figure = _figure(2.6, 8.0)
    ax = figure.subplots()
    from matplotlib import colormaps

    cmap = colormaps["Greens"].with_extremes(bad="white")
    peak = max([1, *data.counts.values()])
    shown = np.where(np.isnan(grid), np.nan, np.where(grid > 0, 0.25 + 0.75 * grid / peak, 0.04))
    ax.imshow(shown, cmap=cmap, vmin=0, vmax=1, aspect="equal")
    _outline(ax, data, data.longest, LONGEST, f"{data.longest_label}")
    _outline(ax, data, data.current, CURRENT, f"{data.current_label}")
    months = []
    for column in range(HEATMAP_WEEKS):
        monday = data.start + timedelta(weeks=column)
        if column == 0 or monday.month != (monday - timedelta(weeks=1)).month:
            months.append((column, data.months[monday.month - 1]))
    ax.set_xticks([c for c, _ in months], [m for _, m in months], fontsize=8)
    ax.set_yticks([0, 2, 4, 6], data.weekdays, fontsize=7)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title(data.title, loc="left", fontsize=11)
    if data.current or data.longest:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    return _png(figure)


def retention_png(recall: list[float], target: float, locale: str) -> bytes:
    """The class's predicted recall, today and on each of the next days, against the target."""
    figure = _figure(3.0)
    ax = figure.subplots()
    days = list(range(len(recall)))
    ax.plot(days, [100 * r for r in recall], color=BAR, linewidth=2)
    ax.axhline(100 * target, color=MUTED, linestyle="--", linewidth=1)
    ax.text(len(recall) - 1, 100 * target + 1, t("class.target", locale), ha="right", fontsize=8)
    ax.set_xlim(0, max(1, len(recall) - 1))
    ax.set_ylim(0, 100)
    ax.set_xlabel(t("class.days_ahead", locale))
    ax.set_ylabel("%")
    ax.set_title(t("class.retention_chart", locale), loc="left", fontsize=11)
    ax.grid(alpha=0.3)
    return _png(figure)
