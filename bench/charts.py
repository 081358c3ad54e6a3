"""The charts of `/daily stats` and `/me`: what matplotlib costs in the bot process.

- import: `bot.stats.charts` plus matplotlib's Figure and Agg canvas, in a fresh interpreter
  (what the bot pays once, on its first chart; matplotlib is not imported at start-up);
- first chart: the first `class_chart` in that interpreter (font cache, first figure);
- warm chart: a `class_chart` of 12 questions and 8 weeks once warm, through the chart
  worker process (`ChartRenderer`, what the bot uses) and through a thread;
- loop stall: the longest gap of a 1 ms ticker on the event loop while charts render in
  the worker process, in a thread (matplotlib holds the GIL for long stretches), and on
  the loop itself.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

from bench.common import Row, summary
from bot.daily.analytics_rules import ClassAnalytics, QuestionStat, WeekParticipation
from bot.stats.charts import ChartRenderer, class_chart

ROOT = Path(__file__).resolve().parents[1]
COLD = """
import json, time
from datetime import date
t0 = time.perf_counter()
import bot.stats.charts
from matplotlib.figure import Figure
from matplotlib.backends.backend_agg import FigureCanvasAgg
t1 = time.perf_counter()
from bench.charts import sample
bot.stats.charts.class_chart(sample(), "en")
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_s": t2 - t1}))
"""


def sample() -> ClassAnalytics:
    questions = [
        QuestionStat(f"mp-{i:02d}", 2, 20, i, 1, 20 - i) for i in range(1, 13)
    ]  # 12 questions
    monday = date(2026, 5, 18)
    weeks = [
        WeekParticipation(monday - timedelta(weeks=k), 10 + k, 30 + k, 7) for k in range(7, -1, -1)
    ]
    return ClassAnalytics(1, questions, weeks, total_posts=60)


def _cold() -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", COLD],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


async def _max_stall(charts: int, renderer: ChartRenderer | None) -> tuple[float, float]:
    """(longest ticker gap, wall time) while `charts` charts render."""
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    start = time.perf_counter()
    data = sample()
    for _ in range(charts):
        if renderer is not None:
            await renderer.draw(class_chart, data, "en")
        else:
            class_chart(data, "en")
            await asyncio.sleep(0)
    wall = time.perf_counter() - start
    done.set()
    await task
    return max(gaps), wall


async def run(quick: bool) -> list[Row]:
    repeats = 1 if quick else 3
    colds = [_cold() for _ in range(repeats)]
    imp, n_imp, imp_spread = summary([c["import_s"] * 1000 for c in colds])
    first, _, first_spread = summary([c["first_s"] * 1000 for c in colds])
    process, thread = ChartRenderer(), ChartRenderer(in_thread=True)
    try:
        return await _warm_rows(
            quick, repeats, process, thread, imp, n_imp, imp_spread, first, first_spread
        )
    finally:
        await process.close()


async def _warm_rows(
    quick: bool,
    repeats: int,
    process: ChartRenderer,
    thread: ChartRenderer,
    imp: float,
    n_imp: int,
    imp_spread: tuple[float, float],
    first: float,
    first_spread: tuple[float, float],
) -> list[Row]:
    class_chart(sample(), "en")  # warm this process (the thread and inline cases)
    await process.draw(class_chart, sample(), "en")  # start and warm the worker
    n_warm = 3 if quick else 20
    warm: dict[str, tuple[float, int, tuple[float, float]]] = {}
    for name, renderer in (("process", process), ("thread", thread)):
        times = []
        for _ in range(n_warm):
            t0 = time.perf_counter()
            await renderer.draw(class_chart, sample(), "en")
            times.append((time.perf_counter() - t0) * 1000)
        warm[name] = summary(times)
    charts = 2 if quick else 10
    stalls: dict[str, tuple[float, int, tuple[float, float]]] = {}
    for name, maybe in (("process", process), ("thread", thread), ("loop", None)):
        stalls[name] = summary(
            [(await _max_stall(charts, maybe))[0] * 1000 for _ in range(repeats)]
        )
    pw, pn, ps = warm["process"]
    tw, tn, ts = warm["thread"]
    stall, n_stall, stall_spread = stalls["process"]
    tstall, tn_stall, tstall_spread = stalls["thread"]
    return [
        Row(
            "charts",
            "matplotlib import (cold)",
            imp,
            "ms",
            "(info)",
            None,
            n=n_imp,
            spread=imp_spread,
        ),
        Row(
            "charts",
            "first chart (cold)",
            first,
            "ms",
            "(info)",
            None,
            n=n_imp,
            spread=first_spread,
        ),
        Row(
            "charts",
            "chart in the worker process (warm)",
            pw,
            "ms",
            "<= 500 ms",
            pw <= 500,
            baseline=tw,
            baseline_what="in a thread",
            n=pn,
            spread=ps,
        ),
        Row("charts", "chart in a thread (warm)", tw, "ms", "(info)", None, n=tn, spread=ts),
        Row(
            "charts",
            f"longest loop stall, {charts} charts in the worker process",
            stall,
            "ms",
            "<= 30 ms",
            stall <= 30,
            baseline=tstall,
            baseline_what="in a thread",
            n=n_stall,
            spread=stall_spread,
        ),
        Row(
            "charts",
            f"longest loop stall, {charts} charts in a thread",
            tstall,
            "ms",
            "(info)",
            None,
            baseline=stalls["loop"][0],
            baseline_what="drawn on the loop",
            n=tn_stall,
            spread=tstall_spread,
        ),
    ]
