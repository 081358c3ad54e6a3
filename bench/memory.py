"""Budget 5: bot RSS with 1,000 guilds configured and 10,000 answers; start-up to READY.

RSS: the bot runs as `quiztutor run` in a subprocess (`testkit.processes`, for its
start-up marker) against the stand-in (which serves 1,000 guilds, so discord.py's guild
cache is real), demo worker on; VmRSS of the bot process only, read from /proc after its
first answered interaction and the end of its start-up; the worker (a child process) is
reported apart, and the bot's memory map is checked for libtorch. Baseline: a bare
interpreter that imported the bot's libraries. Then a reaction flood on the first
server's daily question (500/s for 20 s over the websocket, `bench.steady_wire.Flood`)
and VmRSS again once every answer is committed; baseline: the reading before it.
Start-up: in-process, `QuizTutorBot(settings)` -> login -> gateway READY -> on_ready
(discord.py's guild_ready_timeout shortened to 0.05 s as in the e2e tests, since the
stand-in sends every GUILD_CREATE at once), with the worker spawning in parallel.
Baseline: a bare `discord.Client` reaching READY against the same stand-in.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord

from bench.common import (
    Row,
    db_url,
    median,
    noon_zone,
    rss_mib,
    running_bot,
    seed_database,
    stand_in,
    summary,
    workdir,
)
from bench.steady_wire import Flood, committed_answers
from bot.discord.client import bot_intents
from testkit.processes import BotProcess, bot_env
from testkit.standin.client import run_client
from testkit.times import passed_today

NAME = "memory"
REPEATS = 3
FLOOD_RATE = 500.0
FLOOD_S = 20.0
REPO = Path(__file__).resolve().parent.parent
IMPORTS = (
    "import discord, sqlalchemy, sqlmodel, aiosqlite, apscheduler, pydantic, yaml, orjson;"
    "from pathlib import Path;"
    "print([l for l in Path('/proc/self/status').read_text().splitlines() if l.startswith('VmRSS')][0].split()[1])"
)


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(c) for c in text]
    return found


async def flood_rss(
    fake: Any, tmp: Path, pid: int, message: Any, seconds: float, tag: str
) -> tuple[float, list[float]]:
    """The bot's RSS (MiB) once `seconds` of reactions at FLOOD_RATE/s (fresh members, as
    `bench.steady_wire` sends them over the websocket) are all committed, and once a
    second during the flood."""
    before = committed_answers(tmp, message)
    flood = Flood(fake, message, tag)
    samples: list[float] = []

    async def sample() -> None:
        while True:
            await asyncio.sleep(1.0)
            samples.append(rss_mib(pid))

    sampler = asyncio.create_task(sample())
    try:
        await flood.run(FLOOD_RATE, seconds, asyncio.Event())
    finally:
        sampler.cancel()
    deadline = time.perf_counter() + 60
    while committed_answers(tmp, message) < before + flood.sent:
        assert time.perf_counter() < deadline, "answers not committed within 60 s"
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)  # as before the flood: let the writer's last batch settle
    return rss_mib(pid), samples


async def run(quick: bool) -> list[Row]:
    guilds = 50 if quick else 1000
    answers = 1000 if quick else 10_000
    flood_s = 1.0 if quick else FLOOD_S
    async with stand_in() as fake:
        extra = [fake.add_guild(f"g{i}", channels=("daily",)) for i in range(guilds - 1)]
        all_guilds = [fake.guild, *extra]
        _, local = noon_zone()
        times = [(local + timedelta(minutes=60 + i % 600)).strftime("%H:%M") for i in range(guilds)]
        times[0] = passed_today()[1]  # the first server's question is out: the flood's target
        channel = fake.guild.text_channels[0]
        with workdir() as tmp:
            await seed_database(
                tmp,
                [g.text_channels[0].id for g in all_guilds],
                [g.id for g in all_guilds],
                times,
                answers,
            )
            bare_runs: list[float] = []
            ready_runs: list[float] = []
            spawned: list[tuple[float, float, bool, list[int], float]] = []
            flooded: list[tuple[float, list[float]]] = []
            for rep in range(REPEATS):
                # Baseline start-up: a bare client, same intents, same stand-in.
                bare = discord.Client(intents=bot_intents())
                start = time.perf_counter()
                async with run_client(bare, fake):
                    bare_s = time.perf_counter() - start
                start = time.perf_counter()
                async with running_bot(fake, tmp, sync=True, demo_worker=not quick) as bot:
                    ready_s = time.perf_counter() - start
                    demos = bot.services.demos
                    warmup = bot.services.demo_warmup
                    warm_done = demos is None or warmup is None or warmup.done()
                bare_runs.append(bare_s)
                ready_runs.append(ready_s)
                # The bot process as deployed (`quiztutor run`, plus the start-up marker).
                env = bot_env(
                    fake.env(),
                    db_url(tmp),
                    DEMO_WORKER="false" if quick else "true",
                    DEMO_DEVICE="cpu",
                    LOG_LEVEL="WARNING",
                    QUIZ_COOLDOWN_S="0",
                    IDENTIFY_SPACING_S="0",  # the stand-in's window is off too
                )
                proc = BotProcess(env, tmp / "bot.log")
                start = time.perf_counter()
                await proc.start()
                assert proc.proc is not None
                pid = proc.proc.pid
                try:
                    member = fake.users_list[rep]  # no open quiz
                    first_s = None
                    deadline = time.perf_counter() + 60
                    while first_s is None:
                        if proc.proc.returncode is not None or time.perf_counter() > deadline:
                            raise RuntimeError(f"bot did not answer: {proc.stderr_tail()}")
                        if fake.gateway.connected:
                            try:
                                await fake.slash(member, "quiz start", questions=1, timeout=1.0)
                                first_s = time.perf_counter() - start
                            except (TimeoutError, AssertionError):
                                pass
                        await asyncio.sleep(0.05)
                    # Start-up done: servers scheduled, reactions read back, the first
                    # server's question posted with its answer reactions.
                    await proc.wait_started(60)
                    message = next(m for m in fake.messages(channel) if len(m.reactions) >= 4)
                    await asyncio.sleep(1.0)  # let the last start-up work settle
                    rss = rss_mib(pid)
                    maps = Path(f"/proc/{pid}/maps").read_text()  # noqa: ASYNC240 -- procfs
                    torch_in_bot = "libtorch" in maps
                    workers = children(pid)
                    worker_rss = sum(rss_mib(w) for w in workers)
                    flooded.append(await flood_rss(fake, tmp, pid, message, flood_s, f"m{rep}-"))
                finally:
                    await proc.stop(20)
                # The flood's members take their reactions back while the bot is down, so
                # the next process reads back the bot's own four at start-up, as this one
                # did, not every flood before it.
                for _, users in message.reactions.values():
                    users[:] = [u for u in users if u == fake.bot_user.id]
                spawned.append((first_s, rss, torch_in_bot, workers, worker_rss))
    floor = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", IMPORTS],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    floor_mib = int(floor.stdout.strip()) / 1024
    rss, reps, rss_spread = summary([r[1] for r in spawned])
    after, _, after_spread = summary([f[0] for f in flooded])
    first_s, _, first_spread = summary([r[0] for r in spawned])
    ready_s, _, ready_spread = summary(ready_runs)
    bare_s = median(bare_runs)
    torch_in_bot = any(r[2] for r in spawned)
    workers = spawned[-1][3]
    worker_rss = median([r[4] for r in spawned])
    return [
        Row(
            NAME,
            f"bot RSS, {guilds:,} guilds, {answers:,} answers",
            rss,
            "MiB",
            "<120 MiB, no torch",
            rss_spread[1] < 120 and not torch_in_bot,  # every run
            baseline=floor_mib,
            baseline_what="imports only",
            n=reps,
            spread=rss_spread,
            note=f"libtorch mapped in bot: {torch_in_bot}; worker processes {len(workers)},"
            f" {worker_rss:.0f} MiB",
        ),
        Row(
            NAME,
            f"bot RSS after a {FLOOD_RATE:.0f}/s reaction flood ({flood_s:g} s), {guilds:,} guilds",
            after,
            "MiB",
            "<120 MiB",
            after_spread[1] < 120,  # every run
            baseline=rss,
            baseline_what="before the flood, same runs",
            n=reps,
            spread=after_spread,
            note="RSS each second of the last run's flood: "
            + ", ".join(f"{m:.0f}" for m in flooded[-1][1]),
        ),
        Row(
            NAME,
            "start-up to READY (in-process)",
            ready_s,
            "s",
            "<2 s",
            ready_s < 2.0,
            baseline=bare_s,
            baseline_what="bare discord.Client",
            n=reps,
            spread=ready_spread,
            note=f"worker warm-up still running at READY: {not warm_done} (in parallel)",
        ),
        Row(
            NAME,
            "process spawn -> first /quiz start answered",
            first_s,
            "s",
            "(info)",
            None,
            baseline=ready_s,
            baseline_what="in-process READY",
            n=reps,
            spread=first_spread,
            note="includes the interpreter and imports (~2 s here)",
        ),
    ]
