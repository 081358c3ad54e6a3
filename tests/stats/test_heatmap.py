"""`/me`'s calendar heatmap: a long run is outlined day by day, and cheaply.

`/me` answers within 500 ms with its charts (the scale benchmark's wire rows); the chart
process draws them one after another, so a chart's CPU is the member's wait.
"""

from __future__ import annotations

import io
import time
from datetime import date, timedelta

from PIL import Image

from bot.learning.activity_rules import HEATMAP_WEEKS
from bot.stats.learning_charts import CURRENT, HeatmapData, heatmap_png

TODAY = date(2026, 1, 5)  # a Monday: the last column holds one day
START = TODAY - timedelta(weeks=HEATMAP_WEEKS - 1)


def half_year_streak() -> HeatmapData:
    """A member who answered every day of the calendar (and the month before it)."""
    counts = {START + timedelta(days=k): 1 + k % 3 for k in range((TODAY - START).days + 1)}
    run = (START - timedelta(days=30), TODAY)
    return HeatmapData(
        START,
        TODAY,
        counts,
        run,
        run,
        "Answers per day",
        "current run",
        "longest run",
        ["Mon", "Wed", "Fri", "Sun"],
        [f"M{m}" for m in range(1, 13)],
    )


def test_every_day_of_a_half_year_run_is_outlined_in_the_runs_colour() -> None:
    image = Image.open(io.BytesIO(heatmap_png(half_year_streak()))).convert("RGB")
    colour = tuple(int(CURRENT[i : i + 2], 16) for i in (1, 3, 5))
    counts = {pixel: n for n, pixel in image.getcolors(image.width * image.height) or []}
    outlined = counts.get(colour, 0)
    # 183 cells with a 1.6 pt (2 px) border each, shared edges drawn over: thousands of
    # pixels; the legend's sample alone is a few dozen.
    assert outlined > 183 * 10


def test_a_half_year_run_draws_in_under_150_ms_of_cpu() -> None:
    data = half_year_streak()
    heatmap_png(data)  # matplotlib's first-use imports and font cache
    cpu = []
    for _ in range(3):
        start = time.process_time()
        heatmap_png(data)
        cpu.append(time.process_time() - start)
    # A patch per outlined day took ~330 ms here (2 busy cores); one collection ~95 ms.
    assert min(cpu) < 0.150, f"{min(cpu) * 1000:.0f} ms of CPU"
