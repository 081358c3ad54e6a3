"""Settles of one server run one at a time and in day order (issue 28.1): two settles of
one server at the same moment, from two "processes" (each its own Database on the one
database), end exactly as the serial settle does, member by member, on SQLite and on
PostgreSQL; a later day's settle never overtakes an earlier unsettled one."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlmodel import col, select

from bot.daily import posts_store
from bot.daily.service import DailyService
from bot.daily.types import RevealSummary
from bot.db.database import Database
from bot.db.tables.daily import MemberStats
from bot.db.tables.review import ReviewCard
from bot.quizbank import QuizBank
from tests.support.db import seed_member_stats

NOW = datetime(2026, 5, 3, 1, 0, tzinfo=UTC)
D1, D2 = date(2026, 5, 1), date(2026, 5, 2)
QUESTIONS = ("mx-01", "mx-02")  # right answers 0 and 1 in the `bank` fixture
RIGHT = {"mx-01": 0, "mx-02": 1}
R, W = True, False
# member -> (answer on D1, answer on D2): right, wrong or none.
PLAN: dict[int, tuple[bool | None, bool | None]] = {
    101: (R, R),  # on a 5-day streak: 7
    102: (R, W),  # early right, late wrong: the right answer must count
    103: (W, R),
    104: (None, R),  # new, answers only the second day
    105: (R, None),  # new, misses the second day
    106: (None, None),  # on a 3-day streak: ends
    107: (W, W),
}
SEEDED = [(101, 5, 5, 5, 5), (102, 1, 4, 9, 6), (106, 3, 3, 3, 3)]
ROUNDS = 6  # servers settled concurrently: more interleavings


async def two_days(service: DailyService, guild_id: int) -> tuple[int, int]:
    """The server's posts of D1 and D2, answered as PLAN says."""
    await seed_member_stats(service.db, guild_id, SEEDED)
    ids = []
    for index, (day, question) in enumerate(zip((D1, D2), QUESTIONS, strict=True)):
        at = datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=9)
        post = await posts_store.claim(
            service.db, guild_id, day, question, 10, at + timedelta(hours=20), service.clock()
        )
        assert post is not None and post.id is not None
        message_id = guild_id * 10 + index
        await service.posts.set_message(post.id, message_id, at)
        open_post = await service.answers.post_by_message(message_id)
        assert open_post is not None
        reactions = [
            (user, RIGHT[question] if answers[index] else (RIGHT[question] + 1) % 3)
            for user, answers in PLAN.items()
            if answers[index] is not None
        ]
        assert await service.answers.recover(open_post, reactions, at + timedelta(minutes=5))
        ids.append(post.id)
    return ids[0], ids[1]


async def outcome(db: Database, guild_id: int) -> dict[Any, Any]:
    """Per member: streak stats, last settled day, and their cards (reviews, lapses)."""
    async with db.session() as session:
        stats = (
            await session.exec(select(MemberStats).where(MemberStats.guild_id == guild_id))
        ).all()
        cards = (
            await session.exec(select(ReviewCard).where(col(ReviewCard.user_id).in_(PLAN)))
        ).all()
    return {
        s.user_id: (
            s.current_streak,
            s.longest_streak,
            s.answered,
            s.correct,
            s.last_settled_day,
        )
        for s in stats
    } | {("cards", c.user_id, c.question_id): (c.reviews, c.lapses) for c in cards}


def shown(summary: RevealSummary) -> tuple[Any, ...]:
    """What a reveal shows, without the ids that differ between servers."""
    return (summary.day, summary.answered, summary.correct, summary.new_bests, summary.milestones)


async def test_two_settles_of_one_server_at_once_end_as_the_serial_settle(
    open_db: Callable[[], Awaitable[Database]], bank: QuizBank
) -> None:
    first = DailyService(await open_db(), bank, clock=lambda: NOW)
    second = DailyService(await open_db(), bank, clock=lambda: NOW)
    await first.start()
    await second.start()
    try:
        # The serial history: D1, then D2, one process.
        serial_guild = 5000
        d1, d2 = await two_days(first, serial_guild)
        serial_summaries = [
            shown(await first.settling.settle(d1, NOW)),
            shown(await first.settling.settle(d2, NOW)),
        ]
        await first.settling.graded()
        # Each server's reviews are per member (not per server): compare the serial
        # server's stats with each concurrent one's, and cards by how often they moved.
        serial = await outcome(first.db, serial_guild)
        assert serial[101][:4] == (7, 7, 7, 7)
        assert serial[102][:4] == (0, 4, 11, 7)  # D1's right answer counted, D2 ended it
        assert serial[106][:4] == (0, 3, 3, 3)
        # 106's streak ended on D1; D2 had nothing to take from them.
        assert {k: v[4] for k, v in serial.items() if isinstance(k, int) and v[4] != D2} == {
            106: D1
        }

        guilds = [6000 + g for g in range(ROUNDS)]
        posts = {g: await two_days(first, g) for g in guilds}
        # D1 in one process and D2 in the other at the same moment; every other server
        # starts the later day first.
        tasks = []
        for index, guild in enumerate(guilds):
            early = first.settling.settle(posts[guild][0], NOW)
            late = second.settling.settle(posts[guild][1], NOW)
            tasks += [late, early] if index % 2 else [early, late]
        summaries = await asyncio.gather(*tasks)
        for service in (first, second):
            await service.settling.graded()
        by_post = {s.post_id: shown(s) for s in summaries}
        for guild in guilds:
            got = await outcome(first.db, guild)
            mine = {k: v for k, v in got.items() if isinstance(k, int)}
            assert mine == {k: v for k, v in serial.items() if isinstance(k, int)}, guild
            assert [by_post[p] for p in posts[guild]] == serial_summaries, guild
    finally:
        await first.close()
        await second.close()


async def test_a_later_day_never_overtakes_an_earlier_open_one(
    db: Database, bank: QuizBank
) -> None:
    service = DailyService(db, bank, clock=lambda: NOW)
    await service.start()
    try:
        d1, d2 = await two_days(service, 7000)
        # Only the later day is asked for: the earlier one is settled first.
        later = await service.settling.settle(d2, NOW)
        await service.settling.graded()
        earlier = await posts_store.get(service.db, d1)
        assert earlier is not None and earlier.settled and earlier.summary is not None
        assert RevealSummary.from_json(earlier.summary).day == D1
        assert later.day == D2
        stats = await outcome(db, 7000)
        assert stats[101][:4] == (7, 7, 7, 7) and stats[102][:4] == (0, 4, 11, 7)
        # Settling the earlier one again changes nothing and returns its summary.
        again = await service.settling.settle(d1, NOW + timedelta(days=1))
        assert again == RevealSummary.from_json(earlier.summary)
        assert await outcome(db, 7000) == stats
    finally:
        await service.close()
