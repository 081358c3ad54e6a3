"""A daily choice waits for the review cards of the server's day settled just before it
only within its budget: a big day settled at start-up (or a database busy with another
writer) goes on behind it, and its cards are still applied, once."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from bot.daily import posts_store
from bot.daily.service import CARDS_WAIT_S, DailyService
from bot.db.tables.review import ReviewCard
from testkit.times import Clock
from tests.daily.test_daily_choice import DAY, GUILD, everyone, run_day


@pytest.mark.sqlite_only
async def test_a_choice_waits_for_the_settled_days_cards_only_within_its_budget(
    daily: DailyService, clock: Clock, db_url: str
) -> None:
    await daily.configs.configure(GUILD, 10, "09:00", "UTC")
    await run_day(daily, clock, GUILD, DAY, everyone(False), settle=False)
    post = await posts_store.for_day(daily.db, GUILD, DAY)
    assert post is not None and post.id is not None
    holder = sqlite3.connect(db_url.split("///", 1)[1], timeout=0, isolation_level=None)
    try:
        await daily.settling.settle(post.id, now=clock())
        # The day's cards are applied in the background; another process takes the
        # write lock before they are, so they cannot be written yet.
        holder.execute("BEGIN IMMEDIATE")
        clock.now += timedelta(days=1)
        started = time.perf_counter()
        choice = await asyncio.wait_for(
            daily.posts.choose(GUILD, DAY + timedelta(days=1), None, 5), timeout=10
        )
        took = time.perf_counter() - started
    finally:
        holder.rollback()
        holder.close()
    assert choice.question_id != post.question_id  # not repeated within K days
    assert CARDS_WAIT_S <= took < CARDS_WAIT_S + 1.0
    await daily.settling.graded()  # the cards, once the lock is free
    async with daily.db.engine.connect() as conn:
        cards = (
            await conn.execute(
                select(func.count())
                .select_from(ReviewCard)
                .where(ReviewCard.question_id == post.question_id)
            )
        ).scalar_one()
    assert cards == 3  # each member's answer on their card, once
