"""A day's post writes before background work (`Database.priority`): the first
`/daily now` after an upgrade came while the class fold wrote transaction after
transaction, and its claim waited seconds for SQLite's write lock. The post is made
within its budget, and the fold still counts every member."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from sqlalchemy import func, select

from bot.daily.choice_store import signals_of
from bot.daily.jobs import DailyJobs
from bot.daily.service import DailyService
from bot.db.tables.aggregates import ClassMember
from bot.learning.recall_backfill import ClassBackfill
from testkit.times import Clock
from tests.learning.test_class_backfill import upgraded_server
from tests.support.driver import DAY1, G1, configure

MEMBERS = 4000
# Cards per member: each of the fold's transactions reads them all (tens of ms apiece).
QUESTIONS = tuple(f"old-{k:02d}" for k in range(20))
# `/daily now`'s budget is 500 ms to its reply (the scale_wire bench holds it: ~0.2 s
# here on an idle machine); the test allows for a loaded CI machine and still fails
# without the priority, where the post waited ~5 s behind the fold's transactions.
BUDGET_S = 2.0


async def uncounted(daily: DailyService) -> int:
    query = select(func.count()).where(
        ClassMember.guild_id == G1,  # type: ignore[arg-type]
        ClassMember.counted == False,  # type: ignore[arg-type]  # noqa: E712
    )
    async with daily.db.engine.connect() as conn:
        return int((await conn.execute(query)).scalar_one())


@pytest.mark.sqlite_only
async def test_a_post_writes_before_the_background_fold_which_still_counts_everyone(
    daily: DailyService, jobs: DailyJobs, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The post's writes: no fold transaction commits between their start and their end
    # (the one in flight when they come is waited for first).
    urgent = daily.db.priority.urgent
    folded_meanwhile: list[int] = []

    @asynccontextmanager
    async def watched() -> AsyncIterator[None]:
        async with urgent():
            before = await uncounted(daily)
            yield
            folded_meanwhile.append(before - await uncounted(daily))

    monkeypatch.setattr(daily.db.priority, "urgent", watched)
    await configure(daily, G1)
    await upgraded_server(daily.db, G1, range(1, MEMBERS + 1), QUESTIONS, clock())
    backfill = ClassBackfill(daily.db, clock)  # as the bot starts it
    backfill.start()
    try:
        started = time.perf_counter()
        result = await jobs.post_today(G1)
        took = time.perf_counter() - started
        assert result.created and result.post is not None and result.post.day == DAY1
        assert took < BUDGET_S, f"the post took {took:.2f} s"
        assert folded_meanwhile == [0]
        # It came while the fold was still writing.
        assert await uncounted(daily) > 0
        await backfill.done()
    finally:
        await backfill.close()
    assert await uncounted(daily) == 0
    # The backfill counted them, but for those the choice's own brief fold took first.
    assert 0 < backfill.folded <= MEMBERS
    async with daily.db.session() as session:
        members, found = await signals_of(session, G1, list(QUESTIONS), clock())
    assert members == MEMBERS
    assert {q: s.n for q, s in found.items()} == dict.fromkeys(QUESTIONS, MEMBERS)
