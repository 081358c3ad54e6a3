"""Scale run: 10,000 servers, 1,000 due at once, split across 2 shard processes.

Two real `quiztutor run` processes (SHARD_COUNT=2, SHARD_IDS=[0] and [1]) start on one
seeded database (SQLite, or PostgreSQL with `--db postgres`) against the stand-in,
which routes each server to its shard and enforces 5 posts / 5 s per channel. Every one
of the 1,000 servers has its post time 2 minutes ago, so each process's start-up
catch-up posts its own shard's half. Measured: from the processes' spawn until every
post is out with its answer reactions (start-up included). Checked: one post per
server, reactions A-D in order, no 429. Baseline (same run): ONE unsharded process on
an identically seeded database.
"""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from pathlib import Path

from bench.common import Row, db_url, noon_zone, seed_database, stand_in, summary, workdir
from bot.daily.reaction_rules import ANSWER_EMOJI
from testkit.processes import BotProcess, bot_env
from testkit.standin.server import FakeDiscord

NAME = "shards"
WAIT_S = 600.0


async def one_run(quick: bool, shard_sets: list[list[int] | None]) -> tuple[float, str]:
    """Seconds from spawn to every post out, and '' or what went wrong."""
    total, due_now = (200, 20) if quick else (10_000, 1_000)
    async with stand_in() as fake:
        fake.shard_count = 2
        if shard_sets == [None]:
            # The baseline: one process, one shard. (discord.py waits 5 s between the
            # IDENTIFYs of two shards in one process, and a SIGTERM in that window hangs it.)
            fake.shard_count = 1
        posting = [
            fake.add_guild(f"p{i}", channels=("daily",), shard=i % fake.shard_count)
            for i in range(due_now)
        ]
        _zone, local = noon_zone()
        ids = [g.id for g in posting] + [10**16 + (i << 22) for i in range(total - due_now)]
        channels = [g.text_channels[0].id for g in posting] + [
            2 * 10**16 + i for i in range(total - due_now)
        ]
        due = (local - timedelta(minutes=2)).strftime("%H:%M")
        times = [due] * due_now + [
            (local + timedelta(minutes=31 + i % 600)).strftime("%H:%M")
            for i in range(total - due_now)
        ]
        with workdir() as tmp:
            await seed_database(tmp, channels, ids, times)
            fake.channel_rate_limit = (5, 5.0)
            procs = [
                BotProcess(_env(fake, tmp, shards), tmp / f"bot{n}.log")
                for n, shards in enumerate(shard_sets)
            ]
            channel_ids = {g.text_channels[0].id for g in posting}

            def all_out() -> bool:
                return all(
                    any(len(m.reactions) >= 4 for m in fake.messages(c)) for c in channel_ids
                )

            start = time.perf_counter()
            try:
                await asyncio.gather(*(p.start() for p in procs))
                await fake.wait_until(all_out, WAIT_S, "every daily post with its reactions")
                wall = time.perf_counter() - start
                codes = [await p.stop() for p in procs]
            finally:
                for p in procs:
                    if p.proc is not None and p.proc.returncode is None:
                        await p.kill()
            problems = _problems(fake, channel_ids, codes)
    return wall, problems


def _env(fake: FakeDiscord, tmp: Path, shards: list[int] | None) -> dict[str, str]:
    if shards is None:
        return bot_env(fake.env(), db_url(tmp), log_level="WARNING", identify_spacing_s=0)
    return bot_env(
        fake.env(),
        db_url(tmp),
        identify_spacing_s=0,  # the stand-in's window is off too (bench/common.py)
        shard_count=2,
        shard_ids=f"[{','.join(map(str, shards))}]",
        log_level="WARNING",
    )


def _problems(fake: FakeDiscord, channel_ids: set[int], codes: list[int]) -> str:
    posts = {c: fake.messages(c) for c in channel_ids}
    one_each = sum(len(v) == 1 for v in posts.values())
    in_order = sum(
        len(v) == 1 and list(v[0].reactions)[:4] == list(ANSWER_EMOJI[:4]) for v in posts.values()
    )
    found = []
    if one_each != len(channel_ids) or in_order != len(channel_ids):
        found.append(f"{one_each}/{len(channel_ids)} one post each, {in_order} in order")
    if fake.rate_limited:
        found.append(f"{len(fake.rate_limited)} requests refused (429)")
    if any(codes):
        found.append(f"exit codes {codes}")
    return "; ".join(found)


REPEATS = 3


async def run(quick: bool) -> list[Row]:
    due_now = 20 if quick else 1_000
    total = 200 if quick else 10_000
    two: list[float] = []
    one: list[float] = []
    problems: list[str] = []
    for _ in range(REPEATS):  # interleaved, so a noisy neighbour hits both alike
        two_s, two_problems = await one_run(quick, [[0], [1]])
        one_s, one_problems = await one_run(quick, [None])
        two.append(due_now / two_s)
        one.append(due_now / one_s)
        problems += [p for p in (two_problems, one_problems and f"1 process: {one_problems}") if p]
    rate, reps, spread = summary(two)
    one_rate, _, one_spread = summary(one)
    return [
        Row(
            NAME,
            f"{due_now:,} same-minute posts ({total:,} servers), 2 shard processes",
            rate,
            "posts/s",
            "all out once, in order, within limits",
            not problems,
            checked=not problems,
            baseline=one_rate,
            baseline_what="1 process, unsharded",
            n=reps,
            spread=spread,
            note="; ".join(dict.fromkeys(problems))
            or f"all out in {due_now / rate:.1f} s from spawn (median); 1 process"
            f" {one_rate:.1f} posts/s ({one_spread[0]:.1f}\u2013{one_spread[1]:.1f})",
        )
    ]
