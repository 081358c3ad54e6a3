"""IDENTIFY across shard processes on one database (issue 28.5): ten processes started
together all reach READY through the stand-in, which refuses a second IDENTIFY in one
bucket (`shard_id % max_concurrency`) within 5 s as Discord does."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.db.database import Database
from testkit.processes import BotProcess, bot_env
from testkit.standin.server import FakeDiscord

pytestmark = pytest.mark.slow

SHARDS = 10
MAX_CONCURRENCY = 4  # buckets of 3, 3, 2, 2 shards: each bucket IDENTIFYs 5 s apart


async def test_ten_shard_processes_started_together_all_reach_ready_unrefused(
    discord_fake: FakeDiscord, tmp_path: Path, db_url: str
) -> None:
    fake = discord_fake
    fake.max_concurrency = MAX_CONCURRENCY
    fake.shard_count = SHARDS
    await (await Database.open(db_url)).close()  # migrated once, as `quiztutor run` does
    procs = [
        BotProcess(
            bot_env(fake.env(), db_url, shard_count=SHARDS, shard_ids=f"[{shard}]"),
            tmp_path / f"shard{shard}.log",
        )
        for shard in range(SHARDS)
    ]
    try:
        await asyncio.gather(*(p.start() for p in procs))
        # 3 turns in the fullest bucket, 6 s apart, after ten interpreters started.
        await fake.wait_until(
            lambda: sorted(s.shard[0] for s in fake.gateway.connected) == list(range(SHARDS)),
            120,
            "every shard READY",
        )
        log = fake.gateway.identify_log
        start = log[0][0]
        assert fake.gateway.identify_refusals == 0, [
            (round(t - start, 2), s, ok) for t, s, ok in log
        ]
        assert fake.gateway.identifies == SHARDS
        codes = await asyncio.gather(*(p.stop() for p in procs))
        assert codes == [0] * SHARDS
    finally:
        for p in procs:
            if p.proc is not None and p.proc.returncode is None:
                await p.kill()
