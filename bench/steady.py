"""CPU per reaction at a steady rate, against the in-process burst, in the same run.

A real server sees answers trickle in at a steady moderate rate far more often than in
bursts, and the cost per answer depends on the rate: the writer's transaction costs far
more than a row, so at a trickle the rows per transaction decide. Frames are paced
into discord.py's websocket parser (`bench.grading_latency.Load`, one wake-up per frame,
frames built beforehand) at 200, 500 and 2,000/s; CPU is the process's CPU time
(`time.process_time`, CLOCK_PROCESS_CPUTIME_ID: every thread, aiosqlite's included, the
figure `/proc/self/stat` counts in ticks) from the first frame until the last answer
is committed, divided by the reactions. The process also holds the stand-in, idle
meanwhile; its floor (CPU per second with no load) is in the notes.

The same rates on the path Discord takes (the bot as its own process, frames over a
zlib-stream websocket, CPU from /proc) are `bench.steady_wire`'s rows, in the same run.

Same-run comparisons: the burst (frames back to back, `bench.reactions.feed`), the
writer without gathering (`gather_s = 0`, every batch written as it comes, as before
issue 14; it keeps the writer's own connection, which issue 14 also added) at 500/s,
and the awaited path (a task per reaction awaits its commit instead of
queueing the answer synchronously) at 2,000/s.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

from bench import steady_wire
from bench.common import (
    WAIT_S,
    Row,
    awaited_path,
    gateway_ws,
    jobs_of,
    ms,
    open_daily_post,
    percentile,
    running_bot,
    stand_in,
    summary,
    workdir,
)
from bench.grading_latency import Load
from bench.reactions import burst_frames, feed
from bot.daily.types import OpenPost
from bot.discord.client import QuizTutorBot

NAME = "steady"
RATES = (200.0, 500.0, 2000.0)
REPEATS = 3
BUDGET_RATE = 500.0
CPU_BUDGET_MS = 0.25
P50_BUDGET_MS = 10.0


class Sample:
    """One measured stretch: CPU ms per reaction, grading p50 ms, rows per transaction."""

    def __init__(self, cpu_ms: float, p50_ms: float, rows_per_tx: float) -> None:
        self.cpu_ms, self.p50_ms, self.rows_per_tx = cpu_ms, p50_ms, rows_per_tx


async def paced(
    bot: QuizTutorBot, post: OpenPost, n: int, rate: float, seconds: float, base: int
) -> Sample:
    writer = bot.services.daily.writer
    load = Load(bot, post, n, base)
    marks: dict[str, float] = {}

    def start() -> None:
        marks.update(cpu=time.process_time(), tx=writer.transactions, rows=writer.rows)

    try:
        await load.offer(rate, seconds, paced=True, on_start=start)
        await load.settle()
    finally:
        load.restore()
    cpu = time.process_time() - marks["cpu"]
    tx = writer.transactions - marks["tx"]
    rows = writer.rows - marks["rows"]
    return Sample(ms(cpu) / len(load.fed), percentile(load.latencies_ms(), 50), rows / max(1, tx))


async def burst(bot: QuizTutorBot, post: OpenPost, n: int, events: int, base: int) -> Sample:
    jobs = jobs_of(bot)
    writer = bot.services.daily.writer
    frames, _ = burst_frames(post, n, events, base, 3 * 10**8 + base % 10**6)
    seen, tx0, rows0 = jobs.reactions.seen.count, writer.transactions, writer.rows
    cpu0 = time.process_time()
    await feed(gateway_ws(bot), frames)
    await asyncio.wait_for(jobs.reactions.wait_seen(seen + events), WAIT_S * 3)
    cpu = time.process_time() - cpu0
    tx = writer.transactions - tx0
    return Sample(ms(cpu) / events, float("nan"), (writer.rows - rows0) / max(1, tx))


def _bases() -> Iterator[int]:
    base = 10**15
    while True:
        base += 10**7
        yield base


async def run(quick: bool) -> list[Row]:
    seconds = {200.0: 5.0, 500.0: 4.0, 2000.0: 2.0} if not quick else dict.fromkeys(RATES, 0.25)
    events = 500 if quick else 20_000
    got: dict[str, list[Sample]] = {}
    bases = _bases()
    async with stand_in() as fake:
        with workdir() as tmp:
            async with running_bot(fake, tmp) as bot:
                post, n = await open_daily_post(bot, fake.guild.id, fake.channel2.id)
                writer = bot.services.daily.writer
                await burst(bot, post, n, 200, next(bases))  # warm-up
                cpu0 = time.process_time()
                await asyncio.sleep(0.25 if quick else 1.0)
                floor = (time.process_time() - cpu0) / (0.25 if quick else 1.0)
                for _ in range(REPEATS):  # interleaved, so noise hits every variant alike
                    for rate in RATES:
                        sample = await paced(bot, post, n, rate, seconds[rate], next(bases))
                        got.setdefault(f"{rate:g}", []).append(sample)
                    gather_s, writer.gather_s = writer.gather_s, 0.0
                    try:
                        sample = await paced(bot, post, n, 500.0, seconds[500.0], next(bases))
                    finally:
                        writer.gather_s = gather_s
                    got.setdefault("no gathering", []).append(sample)
                    with awaited_path(bot):
                        sample = await paced(bot, post, n, 2000.0, seconds[2000.0], next(bases))
                    got.setdefault("awaited", []).append(sample)
                    got.setdefault("burst", []).append(
                        await burst(bot, post, n, events, next(bases))
                    )
    in_process = rows(got, events, floor)
    # The path Discord takes: the bot as its own process, frames over a zlib-stream
    # websocket (`bench.steady_wire`), beside the in-process figures of this run.
    baselines = {rate: _stats(got[f"{rate:g}"])["cpu"] for rate in RATES}
    return in_process + await steady_wire.run(quick, baselines)


def _stats(samples: list[Sample]) -> dict[str, Any]:
    cpu, reps, spread = summary([s.cpu_ms for s in samples])
    p50, _, p50_spread = summary([s.p50_ms for s in samples])
    rows_tx = summary([s.rows_per_tx for s in samples])[0]
    return {
        "cpu": cpu,
        "n": reps,
        "spread": spread,
        "p50": p50,
        "p50_spread": p50_spread,
        "rows_tx": rows_tx,
    }


def rows(got: dict[str, list[Sample]], events: int, floor: float) -> list[Row]:
    burst_s = _stats(got["burst"])
    out: list[Row] = []
    for rate in RATES:
        s = _stats(got[f"{rate:g}"])
        budgeted = rate == BUDGET_RATE
        out.append(
            Row(
                NAME,
                f"CPU per reaction, steady {rate:,.0f}/s",
                s["cpu"],
                "ms",
                f"<={CPU_BUDGET_MS} ms, p50 <={P50_BUDGET_MS:g} ms" if budgeted else "(info)",
                s["cpu"] <= CPU_BUDGET_MS and s["p50"] <= P50_BUDGET_MS if budgeted else None,
                baseline=burst_s["cpu"],
                baseline_what=f"burst of {events:,}",
                n=s["n"],
                spread=s["spread"],
                note=_note(s)
                + (
                    f"; burst {burst_s['rows_tx']:.0f} rows/transaction; idle"
                    f" process floor {ms(floor):.1f} ms CPU per s"
                    if budgeted
                    else ""
                ),
            )
        )
    # Same-run variants, each against the bot's own path at the same rate.
    variants = [
        ("no gathering", "500", "500/s, writer without gathering", "gathering", ""),
        ("awaited", "2000", "2,000/s, awaited path", "queued synchronously", ""),
    ]
    for key, against, metric, baseline_what, extra in variants:
        variant, ours = _stats(got[key]), _stats(got[against])
        out.append(
            Row(
                NAME,
                f"CPU per reaction, {metric}",
                variant["cpu"],
                "ms",
                "(info)",
                None,
                baseline=ours["cpu"],
                baseline_what=f"{baseline_what}, same run",
                n=variant["n"],
                spread=variant["spread"],
                note=_note(variant) + extra,
            )
        )
    return out


def _note(s: dict[str, Any]) -> str:
    lo, hi = s["p50_spread"]
    return (
        f"grading p50 {s['p50']:.1f} ms ({lo:.1f}\u2013{hi:.1f});"
        f" {s['rows_tx']:.1f} rows/transaction"
    )
