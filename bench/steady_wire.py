"""Steady reactions on the path Discord takes (issue 27.3), beside `bench.steady`'s
in-process figure.

The bot runs as its own process (`testkit.processes.BotProcess`, exactly `quiztutor
run`); the stand-in runs in this one and sends each MESSAGE_REACTION_ADD over its
websocket as Discord does when asked for `compress=zlib-stream` (a BINARY piece of one
zlib stream per connection: `testkit.standin.gateway.Wire`). The daily question is
posted by the bot itself (its start-up catch-up), its slash commands registered by
`quiztutor sync`. Members react at a steady rate (paced every 2 ms, as spread out as they come); CPU is the bot
process's utime + stime from /proc/<pid>/stat (every thread of it), from the first
reaction until the last answer is committed (polled in the database), divided by the
reactions. Interactions: `/quiz start` and an answer button, p99 of 200 each, idle and
during a 500/s flood, in each of 3 interleaved runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from bench.common import (
    Row,
    count_rows,
    db_url,
    ms,
    new_members,
    percentile,
    seed_database,
    stand_in,
    summary,
    workdir,
)
from bot.daily.reaction_rules import ANSWER_EMOJI
from testkit.processes import ROOT, BotProcess, bot_env
from testkit.standin.server import FakeDiscord
from testkit.times import passed_today

NAME = "steady"
REPEATS = 3
TICK_S = 0.002  # one reaction per tick at 500/s: spread as Discord delivers them
CPU_BUDGET_MS = 0.25
P99_RATIO_BUDGET = 2.5
CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """utime + stime of a process (all its threads), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class Flood:
    """Members reacting to the daily post at `rate`/s, paced every TICK_S."""

    def __init__(self, fake: FakeDiscord, message: Any, tag: str) -> None:
        self.fake = fake
        self.message = message
        self.tag = tag
        self.sent = 0

    async def run(self, rate: float, seconds: float | None, stop: asyncio.Event) -> None:
        total = None if seconds is None else int(rate * seconds)
        start = time.perf_counter()
        tick = 0
        while not stop.is_set() and (total is None or self.sent < total):
            tick += 1
            due = int(rate * tick * TICK_S) - self.sent
            if total is not None:
                due = min(due, total - self.sent)
            # Fresh members as they come (made up front, thousands would stall this loop).
            for user in new_members(self.fake, due, f"{self.tag}{tick}-"):
                await self.fake.react(self.message, user, ANSWER_EMOJI[self.sent % 3])
                self.sent += 1
            delay = start + tick * TICK_S - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)


@contextlib.asynccontextmanager
async def bot_process(fake: FakeDiscord, tmp: Path) -> AsyncIterator[tuple[BotProcess, Any]]:
    """The bot as a child process with today's daily question out; (process, message)."""
    _zone, due = passed_today()
    channel = fake.channel2
    await seed_database(tmp, [channel.id], [fake.guild.id], [due])
    env = bot_env(fake.env(), db_url(tmp), LOG_LEVEL="WARNING")
    sync = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "sync", "--guild", str(fake.guild.id), cwd=ROOT, env=env
    )
    assert await sync.wait() == 0, "quiztutor sync failed"
    bot = BotProcess(env, tmp / "bot.log")
    try:
        await bot.start()
        await bot.wait_started(60)
        await fake.wait_until(
            lambda: any(len(m.reactions) >= 4 for m in fake.messages(channel.id)),
            60,
            "the daily question with its answer reactions",
        )
        message = next(m for m in fake.messages(channel.id) if len(m.reactions) >= 4)
        yield bot, message
    finally:
        if bot.proc is not None and bot.proc.returncode is None:
            await bot.stop()


def committed_answers(tmp: Path, message: Any) -> int:
    return count_rows(
        tmp,
        "SELECT count(*) FROM daily_answer a JOIN daily_post p ON p.id = a.post_id"
        " WHERE p.message_id = ?",
        (message.id,),
    )


async def cpu_per_reaction(
    fake: FakeDiscord, tmp: Path, pid: int, message: Any, rate: float, seconds: float, tag: str
) -> float:
    """ms of the bot's CPU per reaction at a steady `rate`, until every answer is committed."""
    before = committed_answers(tmp, message)
    flood = Flood(fake, message, tag)
    cpu0 = cpu_s(pid)
    await flood.run(rate, seconds, asyncio.Event())
    expected = before + flood.sent
    deadline = time.perf_counter() + 60
    while committed_answers(tmp, message) < expected:
        assert time.perf_counter() < deadline, "answers not committed within 60 s"
        await asyncio.sleep(0.02)
    return ms(cpu_s(pid) - cpu0) / flood.sent


async def interactions(fake: FakeDiscord, count: int, tag: str) -> tuple[list[float], list[float]]:
    """(`/quiz start` ms, answer button ms) of `count` fresh members, one after another."""
    starts, clicks = [], []
    for member in new_members(fake, count, tag):
        res = await fake.slash(member, "quiz start", topic="gradient-accumulation", questions=2)
        starts.append(ms(res.first_response_s))
        assert res.message is not None, res.text
        answered = await fake.click(res.message, res.message.custom_ids()[0], member)
        clicks.append(ms(answered.first_response_s))
    return starts, clicks


async def run(quick: bool, in_process: dict[float, float] | None = None) -> list[Row]:
    """The rows; `in_process`: `bench.steady`'s CPU per reaction at each rate, same run."""
    seconds = 0.3 if quick else 5.0
    count = 2 if quick else 200  # a p99 of 200 samples is its 3rd-highest value
    repeats = 1 if quick else REPEATS
    rates = (500.0, 2000.0)
    cpu: dict[float, list[float]] = {r: [] for r in rates}
    p99: dict[str, list[tuple[float, float]]] = {"/quiz start": [], "answer button": []}
    async with stand_in() as fake:
        with workdir() as tmp:
            async with bot_process(fake, tmp) as (bot, message):
                assert bot.proc is not None
                pid = bot.proc.pid
                await interactions(fake, 2, "warm")  # first-use imports and statements
                # The stand-in shares this process: its long-lived objects out of the
                # collector's way, so its pauses do not show as the bot's latency.
                gc.collect()
                gc.freeze()
                idle0 = cpu_s(pid)
                await asyncio.sleep(1.0)
                floor = ms(cpu_s(pid) - idle0)
                for rep in range(repeats):  # interleaved: noise hits every figure alike
                    for rate in rates:
                        cpu[rate].append(
                            await cpu_per_reaction(
                                fake, tmp, pid, message, rate, seconds, f"r{rep}-{rate:g}-"
                            )
                        )
                    idle = await interactions(fake, count, f"idle{rep}-")
                    stop = asyncio.Event()
                    flood = asyncio.create_task(
                        Flood(fake, message, f"f{rep}-").run(500.0, None, stop)
                    )
                    await asyncio.sleep(0.2)
                    busy = await interactions(fake, count, f"busy{rep}-")
                    stop.set()
                    await flood
                    for k, what in enumerate(p99):
                        p99[what].append((percentile(idle[k], 99), percentile(busy[k], 99)))
                code = await bot.stop()
    return rows(cpu, p99, floor, count, code, in_process or {})


def rows(
    cpu: dict[float, list[float]],
    p99: dict[str, list[tuple[float, float]]],
    floor: float,
    count: int,
    code: int,
    in_process: dict[float, float],
) -> list[Row]:
    out = []
    for rate, values in cpu.items():
        figure, n, spread = summary(values)
        budgeted = rate == 500.0
        out.append(
            Row(
                NAME,
                f"CPU per reaction, steady {rate:,.0f}/s, bot process over a zlib-stream websocket",
                figure,
                "ms",
                f"<={CPU_BUDGET_MS} ms" if budgeted else "(info)",
                figure <= CPU_BUDGET_MS if budgeted else None,
                baseline=in_process.get(rate),
                baseline_what="in-process parser feed, same run" if rate in in_process else "",
                n=n,
                spread=spread,
                note=f"/proc/<pid>/stat of the bot process; idle floor {floor:.0f} ms CPU per s;"
                f" bot exit status {code}",
            )
        )
    for what, pairs in p99.items():
        ratios = [busy / idle for idle, busy in pairs]
        figure, n, spread = summary([busy for _, busy in pairs])
        out.append(
            Row(
                NAME,
                f"{what} p99 during 500 reactions/s, bot process",
                figure,
                "ms",
                f"<={P99_RATIO_BUDGET}x idle in each run",
                max(ratios) <= P99_RATIO_BUDGET,
                baseline=summary([idle for idle, _ in pairs])[0],
                baseline_what="idle p99, same runs",
                n=n,
                spread=spread,
                note=f"{count} samples per run and phase; ratios per run "
                + ", ".join(f"{r:.2f}" for r in ratios),
            )
        )
    return out
