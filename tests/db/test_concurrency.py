"""Several bot processes on one database: concurrent settles, starting together.

SQLite serialises writers, so the settle race can only show on PostgreSQL: that test runs
on the PostgreSQL run (`.ci/run` starts a server). Starting together runs on both.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlmodel import select

from bot.daily import posts_store
from bot.daily.service import DailyService
from bot.db.database import Database, alembic_config
from bot.db.tables.daily import DailyPost, MemberStats
from bot.quizbank import QuizBank
from testkit.databases import db_rows
from testkit.processes import BotProcess, bot_env
from testkit.standin.server import FakeDiscord
from tests.support.db import seed_member_stats

# Real subprocesses (bot processes, the CLI, torch workers): left out by -m 'not slow'.
pytestmark = pytest.mark.slow

NOW = datetime(2026, 5, 3, 1, 0, tzinfo=UTC)
D1, D2 = date(2026, 5, 1), date(2026, 5, 2)
OLD, NEW, ABSENT = 101, 102, 103
RIGHT = 0  # question mx-01 of the `bank` fixture
ROUNDS = 4  # guilds settled at once: more chances for the race to show


async def two_posts(service: DailyService, guild_id: int) -> list[int]:
    """Posts of D1 and D2 in one guild, both answered right by OLD and NEW."""
    ids = []
    for index, day in enumerate((D1, D2)):
        post = await posts_store.claim(
            service.db,
            guild_id,
            day,
            "mx-01",
            10,
            datetime.combine(day, datetime.min.time(), UTC),
            service.clock(),
        )
        assert post is not None and post.id is not None
        message_id = guild_id * 10 + index
        await service.posts.set_message(post.id, message_id)
        open_post = await service.answers.post_by_message(message_id)
        assert open_post is not None
        n = await service.answers.recover(open_post, [(OLD, RIGHT), (NEW, RIGHT)], NOW)
        assert n == 2
        ids.append(post.id)
    return ids


def stats_tuple(row: MemberStats | None) -> tuple[int, int, int, int] | None:
    if row is None:
        return None
    return (row.current_streak, row.longest_streak, row.answered, row.correct)


@pytest.mark.postgres_only
async def test_two_settles_at_once_in_one_guild_lose_no_update(
    open_db: Callable[[], Awaitable[Database]], bank: QuizBank
) -> None:
    # Two "processes": each its own Database (engine, connections) on the one database.
    first = DailyService(await open_db(), bank, clock=lambda: NOW)
    second = DailyService(await open_db(), bank, clock=lambda: NOW)
    await first.start()
    await second.start()
    try:
        guilds = [1000 + g for g in range(ROUNDS)]
        posts = {}
        for guild in guilds:
            # OLD is on a 5-day streak, ABSENT on 3; NEW has no row yet.
            await seed_member_stats(first.db, guild, [(OLD, 5, 5, 5, 5), (ABSENT, 3, 3, 3, 3)])
            posts[guild] = await two_posts(first, guild)

        # Both days of every guild settled at the same moment, one day per process.
        results = await asyncio.gather(
            *(first.settling.settle(posts[g][0], NOW) for g in guilds),
            *(second.settling.settle(posts[g][1], NOW) for g in guilds),
            return_exceptions=True,
        )
        assert [r for r in results if isinstance(r, BaseException)] == []

        async with first.db.session() as session:
            rows = (await session.exec(select(MemberStats))).all()
        for guild in guilds:
            mine = {r.user_id: r for r in rows if r.guild_id == guild}
            assert sorted(mine) == [OLD, NEW, ABSENT]
            got = (stats_tuple(mine[OLD]), stats_tuple(mine[NEW]), stats_tuple(mine[ABSENT]))
            # Days settle in day order (issue 28): D1 is never lost behind D2.
            in_day_order = ((7, 7, 7, 7), (2, 2, 2, 2), (0, 3, 3, 3))
            assert got == in_day_order, (guild, got)
            assert mine[OLD].last_settled_day == mine[NEW].last_settled_day == D2
            assert mine[ABSENT].last_settled_day == D1  # its streak ended on D1
        async with first.db.session() as session:
            settled = (await session.exec(select(DailyPost))).all()
        assert all(p.settled and p.summary is not None for p in settled)
    finally:
        await first.close()
        await second.close()


N_PROCESSES = 6


async def test_processes_starting_together_on_an_empty_database_all_come_up(
    discord_fake: FakeDiscord, tmp_path: Path, db_url: str
) -> None:
    """Each process migrates the new database at start; the lock lets one do it while the
    others wait, then find the schema at head (without it: "table already exists" on
    SQLite, a UniqueViolation on pg_type on PostgreSQL)."""
    env = bot_env(discord_fake.env(), db_url)
    bots = [BotProcess(env, tmp_path / f"bot{i}.log") for i in range(N_PROCESSES)]
    try:
        await asyncio.gather(*(b.start() for b in bots))
        await asyncio.gather(*(b.wait_started(60) for b in bots))
        await discord_fake.wait_until(
            lambda: len(discord_fake.gateway.connected) == N_PROCESSES,
            30,
            f"{N_PROCESSES} gateway sessions",
        )
        assert [await b.stop() for b in bots] == [0] * N_PROCESSES
    finally:
        for b in bots:
            if b.proc is not None and b.proc.returncode is None:
                await b.kill()
    logs = "".join(b.stderr_tail(100_000) for b in bots)
    assert "Traceback" not in logs
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert db_rows(db_url, "SELECT version_num FROM alembic_version") == [(head,)]
