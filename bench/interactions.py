"""Budget 3: first-response latency of `/quiz start` and of an answer button.

Through the stand-in: `fake.slash` / `fake.click` dispatch INTERACTION_CREATE on its
websocket and time until the bot's callback POST arrives (`first_response_s`).
Measured idle, while demos run back to back in the worker, and while the reaction
load of `grading_latency` (2,000/s) is applied. Baseline (same run): the stand-in +
discord.py floor, the `/daily setup timezone` autocomplete (no database, no work).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from bench.common import (
    DemoBot,
    Row,
    demo_bot,
    ms,
    new_members,
    open_daily_post,
    percentile,
)
from bench.grading_latency import Load

NAME = "interactions"


async def sample(env: DemoBot, count: int, tag: str) -> tuple[list[float], list[float]]:
    """(`/quiz start` ms, answer-button ms) for `count` fresh members, one after another."""
    fake = env.fake
    starts: list[float] = []
    clicks: list[float] = []
    for member in new_members(fake, count, tag):
        res = await fake.slash(member, "quiz start", topic="gradient-accumulation", questions=2)
        starts.append(ms(res.first_response_s))
        assert res.message is not None, res.text
        answered = await fake.click(res.message, res.message.custom_ids()[0], member)
        clicks.append(ms(answered.first_response_s))
    return starts, clicks


@contextlib.asynccontextmanager
async def demos_running(env: DemoBot) -> AsyncIterator[list[int]]:
    """Keep the worker busy with `/demo accumulation` until the block ends."""
    done: list[int] = [0]
    stop = asyncio.Event()

    async def loop() -> None:
        for member in new_members(env.fake, 500, "demoload"):
            if stop.is_set():
                return
            res = await env.fake.slash(member, "demo", name="accumulation")
            await res.wait_original(lambda m: bool(m.attachments), timeout=120)
            done[0] += 1

    task = asyncio.create_task(loop())
    await asyncio.sleep(0.3)  # the first demo is running in the worker
    try:
        yield done
    finally:
        stop.set()
        await asyncio.wait_for(task, 180)


async def run(quick: bool) -> list[Row]:
    count = 2 if quick else 200  # a p99 of 200 samples is its 3rd-highest value, not the max
    env = await demo_bot()
    fake = env.fake
    floor: list[float] = []
    await fake.autocomplete(fake.admin, "daily setup", "timezone", "Asia/J")  # zone list cache
    for _ in range(count):
        shown = await fake.autocomplete(fake.admin, "daily setup", "timezone", "Asia/J")
        assert shown, "no autocomplete choices"
        last = max(fake.interactions.values(), key=lambda i: i.id)
        assert last.callback_at is not None
        floor.append(ms(last.callback_at - last.dispatched_at))
    idle = await sample(env, count, "idle")
    async with demos_running(env) as demos:
        during_demo = await sample(env, count, "demo")
    post, n = await open_daily_post(env.bot, fake.guild.id, fake.channel2.id)
    load = Load(env.bot, post, n, 7 * 10**15)
    rate = 200.0 if quick else 2000.0
    try:
        offer = asyncio.create_task(load.offer(rate, 1.0 if quick else 10.0))
        await asyncio.sleep(0.2)
        during_load = await sample(env, count, "load")
        await offer
        await load.settle()
    finally:
        load.restore()
    floor_p99 = percentile(floor, 99)
    rows = []
    for phase, (starts, clicks), note in (
        ("idle", idle, ""),
        ("during demos", during_demo, f"{demos[0]} demos finished meanwhile"),
        (f"during {rate:,.0f} reactions/s", during_load, f"{len(load.done):,} reactions graded"),
    ):
        for what, values in (("/quiz start", starts), ("answer button", clicks)):
            p99 = percentile(values, 99)
            rows.append(
                Row(
                    NAME,
                    f"{what} p99, {phase}",
                    p99,
                    "ms",
                    "<=100 ms",
                    p99 <= 100,
                    baseline=floor_p99,
                    baseline_what="autocomplete floor p99",
                    n=len(values),
                    n_what="samples",
                    spread=(min(values), max(values)),
                    note=f"p50 {percentile(values, 50):.1f} ms" + (f"; {note}" if note else ""),
                )
            )
    return rows
