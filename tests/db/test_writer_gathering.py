"""The answer writer gathers a trickle of answers into shared transactions (issue 14.1).

At a steady few hundred answers per second each answer used to get a transaction of its
own, which costs far more CPU than the row. The writer now waits briefly when answers
trickle in; flush and close must still deliver everything at once, and an isolated
answer must not wait.
"""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from bot.daily.answers_store import Pending, answer_writer
from bot.db.database import Database
from tests.support.db import NOW, make_post


async def count_answers(db: Database) -> int:
    async with db.engine.connect() as conn:
        return int((await conn.execute(text("SELECT count(*) FROM daily_answer"))).scalar_one())


class Ticks:
    """When answers arrive, as the writer sees it (no wall clock in these tests)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_a_trickle_of_answers_shares_transactions(db: Database) -> None:
    post_id = await make_post(db)
    clock = Ticks()
    # A window nobody sits out: only MIN_BATCH, flush or close end a gathering here.
    writer = answer_writer(db, gather_s=60.0, clock=clock)
    await writer.start()
    try:
        # The first answer of a quiet writer is isolated: written at once, alone.
        assert await asyncio.wait_for(writer.submit(Pending(post_id, 0, 0, True, NOW)), 10) is True
        assert writer.transactions == 1
        futures = []
        for user in range(1, 30):  # then a trickle: each within the window of the one before
            clock.now += 0.001
            futures.append(writer.submit(Pending(post_id, user, 0, True, NOW)))
            await asyncio.sleep(0)  # the writer runs between arrivals
        await asyncio.wait_for(writer.flush(), 10)
        assert [f.result() for f in futures] == [True] * 29
        # Without gathering the writer takes what has arrived each time it runs; gathering
        # holds the trickle for one transaction (two at most: the first arrival's own).
        assert writer.rows == 30 and writer.transactions <= 3, writer.transactions
    finally:
        await writer.close()
    assert await count_answers(db) == 30


async def test_answers_apart_by_more_than_the_window_are_no_trickle(db: Database) -> None:
    post_id = await make_post(db)
    clock = Ticks()
    writer = answer_writer(db, gather_s=60.0, clock=clock)
    await writer.start()
    try:
        for user in range(3):
            clock.now += 61  # a minute apart: each is written at once, on its own
            assert await asyncio.wait_for(writer.submit(Pending(post_id, user, 0, True, NOW)), 10)
        assert writer.transactions == 3
    finally:
        await writer.close()


async def test_flush_and_close_cut_a_gathering_short(db: Database) -> None:
    post_id = await make_post(db)
    writer = answer_writer(db, gather_s=60.0)  # a wait nobody may sit out
    await writer.start()
    try:
        # Back to back: the second one marks a trickle, so the writer gathers.
        first = [writer.submit(Pending(post_id, user, 0, True, NOW)) for user in (1, 2)]
        await asyncio.wait_for(writer.flush(), 10)
        assert all(f.done() and f.result() is True for f in first)
        assert await count_answers(db) == 2
        last = [writer.submit(Pending(post_id, user, 0, True, NOW)) for user in (3, 4)]
    finally:
        await asyncio.wait_for(writer.close(), 10)
    assert all(f.done() and f.result() is True for f in last)
    assert await count_answers(db) == 4


async def test_an_isolated_answer_does_not_wait(db: Database) -> None:
    post_id = await make_post(db)
    writer = answer_writer(db, gather_s=60.0)
    await writer.start()
    try:
        assert await asyncio.wait_for(writer.submit(Pending(post_id, 1, 0, True, NOW)), 10) is True
    finally:
        await writer.close()


async def test_a_broken_writer_connection_is_replaced_without_losing_the_answer(
    db: Database,
) -> None:
    # The writer keeps its connection between batches; when the database drops it
    # (a restart, an idle timeout), the next batch must still be written.
    post_id = await make_post(db)
    writer = answer_writer(db)
    await writer.start()
    try:
        assert await writer.submit(Pending(post_id, 1, 0, True, NOW)) is True
        if writer._thread is not None:  # a SQLite file: sqlite3 in the writer's own thread
            assert writer._sync_conn is not None
            dbapi = writer._sync_conn.connection.dbapi_connection
            assert dbapi is not None
            await asyncio.get_running_loop().run_in_executor(writer._thread, dbapi.close)
        else:  # asyncpg (or in-memory SQLite) under SQLAlchemy's async engine
            held = writer._conn
            assert held is not None
            raw = await held.get_raw_connection()
            await raw.driver_connection.close()
        assert await asyncio.wait_for(writer.submit(Pending(post_id, 2, 0, True, NOW)), 10) is True
    finally:
        await writer.close()
    assert await count_answers(db) == 2
