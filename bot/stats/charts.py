"""PNG charts of `/daily stats` and `/me`, drawn with matplotlib's object API.

No pyplot: each chart is its own `Figure` on an Agg canvas, with no global state.
matplotlib is imported by the function that draws, inside the chart worker process
(`ChartRenderer`), never by the bot process itself; the bot sends plain data (dataclasses)
and gets PNG bytes back. What that costs is in the README (Performance). No torch here.
"""

from __future__ import annotations

import asyncio
import functools
import io
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from bot.common.errors import UserError
from bot.common.i18n import t
from bot.quizbank import pick_locale
from experiments.lifeline import die_with

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from bot.daily.analytics_rules import ClassAnalytics
    from bot.quizbank import QuizBank
    from bot.stats.progress_rules import Progress

P = ParamSpec("P")
R = TypeVar("R")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
BAR = "#5865F2"  # the brand colour of the embeds
WEAK = "#ED4245"
MUTED = "#99AAB5"
MAX_BARS = 12  # more questions than this: the weakest ones are drawn
#: Charts drawing or waiting at most (a /me is 2, a /daily stats 2): the next is refused,
#: so the wait behind the queue stays about a second or two, whoever asks.
MAX_QUEUE = 8


class ChartsBusy(UserError):
    """The chart process has MAX_QUEUE charts to draw already: try again in a moment."""

    def __init__(self) -> None:
        super().__init__("charts.busy")


def _literal(text: str) -> str:
    """Text drawn as written: matplotlib reads the text between two `$` as mathtext (a quiz
    title with two prices, or a stray `^` between them, fails to draw); `\\$` is a plain `$`."""
    return text.replace("$", r"\$")


@dataclass(frozen=True)
class Bar:
    label: str
    value: float  # 0..1 for accuracies
    note: str = ""  # drawn at the bar's end, e.g. "3/7"


def _figure(height: float, width: float = 7.0) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _png(figure: Figure) -> bytes:
    out = io.BytesIO()
    figure.savefig(out, format="png")
    return out.getvalue()


def _accuracy_bars(ax: Axes, bars: Sequence[Bar], title: str) -> None:
    shown = list(bars)[:MAX_BARS][::-1]  # the first bar on top
    labels = [_literal(b.label) for b in shown]
    values = [100 * b.value for b in shown]
    colours = [WEAK if b.value < 0.5 else BAR for b in shown]
    ax.barh(labels, values, color=colours)
    for y, bar in enumerate(shown):
        if bar.note:
            ax.text(100 * bar.value + 1, y, _literal(bar.note), va="center", fontsize=8)
    ax.set_xlim(0, 112)  # room for the last note
    ax.set_xticks(range(0, 101, 20))
    ax.set_xlabel("%")
    ax.set_title(_literal(title), loc="left", fontsize=11)
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(axis="x", alpha=0.3)


def accuracy_png(bars: Sequence[Bar], title: str) -> bytes:
    """Horizontal bars, one per topic or question, in the given order (top first)."""
    n = min(len(bars), MAX_BARS)
    figure = _figure(1.2 + 0.35 * max(n, 1))
    _accuracy_bars(figure.subplots(), bars, title)
    return _png(figure)


def class_png(
    questions: Sequence[Bar],
    questions_title: str,
    weeks: Sequence[tuple[str, int]],
    weeks_title: str,
) -> bytes:
    """`/daily stats`: accuracy of the weakest questions above, members per week below."""
    n = min(len(questions), MAX_BARS)
    figure = _figure(3.0 + 0.35 * max(n, 1))
    top, bottom = figure.subplots(2, 1, height_ratios=[max(n, 1) * 0.35 + 0.8, 2.2])
    if questions:
        _accuracy_bars(top, questions, questions_title)
    else:
        top.set_axis_off()
        top.set_title(_literal(questions_title), loc="left", fontsize=11)
    labels = [_literal(label) for label, _ in weeks]
    counts = [count for _, count in weeks]
    bottom.bar(labels, counts, color=[BAR if c else MUTED for c in counts])
    bottom.set_title(_literal(weeks_title), loc="left", fontsize=11)
    bottom.tick_params(axis="x", labelsize=8)
    bottom.yaxis.get_major_locator().set_params(integer=True)
    bottom.grid(axis="y", alpha=0.3)
    return _png(figure)


# -- the charts of /daily stats and /me ------------------------------------------------------


def class_chart(analytics: ClassAnalytics, locale: str) -> bytes:
    """`/daily stats`: the weakest questions' accuracy and the members per week."""
    questions = [
        Bar(q.question_id, q.accuracy or 0.0, f"{q.correct}/{q.answered}")
        for q in analytics.worst(MAX_BARS)
    ]
    weeks = [(w.week_start.strftime("%m-%d"), w.members) for w in analytics.weeks]
    return class_png(
        questions, t("class.chart_questions", locale), weeks, t("class.chart_weeks", locale)
    )


def progress_bars(progress: Progress, bank: QuizBank, locale: str) -> list[Bar]:
    """`/me`'s chart data (`accuracy_png`): accuracy per topic, weakest on top."""
    return [
        Bar(
            pick_locale(bank.quiz(topic.quiz_id).title, locale)[:40],
            topic.accuracy,
            f"{topic.correct}/{topic.answered}",
        )
        for topic in progress.topics
    ]


class ChartRenderer:
    """Draws charts in one spawned worker process, so the bot process never imports
    matplotlib and its event loop never waits on a render: matplotlib holds the GIL for
    tens of milliseconds at a time, so a thread would still stall the loop (bench/charts.py
    measures both). The worker starts with the first chart and is reused; a worker that
    died is replaced on the next chart. `in_thread=True` draws in a thread instead.

    At most `max_queue` charts are drawing or waiting: one more raises `ChartsBusy` at
    once (the member is asked to try again in a moment), so nobody waits behind a crowd.
    """

    def __init__(self, *, in_thread: bool = False, max_queue: int = MAX_QUEUE) -> None:
        self.in_thread = in_thread
        self.max_queue = max_queue
        self.pending = 0  # charts drawing or waiting
        self._pool: ProcessPoolExecutor | None = None

    async def draw(self, chart: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """`chart(*args, **kwargs)` drawn in the chart process; `ChartsBusy` when full."""
        if self.pending >= self.max_queue:
            raise ChartsBusy()
        self.pending += 1
        try:
            return await self._draw(chart, *args, **kwargs)
        finally:
            self.pending -= 1

    async def _draw(self, chart: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        if self.in_thread:
            return await asyncio.to_thread(chart, *args, **kwargs)
        if self._pool is None:
            # The worker blocks on its call queue and would outlive a killed bot: it ends
            # itself when the bot is gone (experiments.lifeline).
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=get_context("spawn"),
                initializer=die_with,
                initargs=(os.getpid(),),
            )
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool, functools.partial(chart, *args, **kwargs))
        except BrokenProcessPool:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
            raise

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)


__all__ = [
    "PNG_MAGIC",
    "Bar",
    "ChartRenderer",
    "ChartsBusy",
    "accuracy_png",
    "class_chart",
    "class_png",
    "progress_bars",
]
