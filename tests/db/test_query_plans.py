"""Each index of migration 0005 (and the one the settle's streak update leans on), justified
by the plan of the statement the bot really issues: EXPLAIN QUERY PLAN on SQLite, EXPLAIN
on PostgreSQL (issue 27)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from sqlmodel import select

from bot.daily import posts_store
from bot.daily.analytics_store import class_analytics
from bot.daily.choice_store import signals_of
from bot.daily.service import DailyService
from bot.db.database import Database
from bot.db.tables.aggregates import ClassMember
from bot.db.tables.daily import DailyAnswer, DailyPost, MemberStats
from bot.learning.recall_store import fold
from bot.learning.review import Reviews
from bot.learning.review_rules import QUIZ, Source
from bot.quizbank import QuizBank
from bot.stats.progress_store import answers_per_question
from tests.support.plans import captured, find, plan

NOW = datetime(2026, 5, 3, 12, 0, tzinfo=UTC)
GUILD = 1
DAYS = (date(2026, 5, 1), date(2026, 5, 2), date(2026, 5, 3))


async def bulk(db: Database) -> None:
    """A year of other posts, answers, members and streaks around the server (plain rows:
    the plans depend on how the data is spread, which a few rows would not show), then
    the planner's statistics."""
    year = [date(2025, 4, 1) + timedelta(days=d) for d in range(360)]
    at = datetime(2025, 4, 1, tzinfo=UTC)
    async with db.engine.begin() as conn:
        post_rows = (
            [
                {
                    "guild_id": g,
                    "day": d,
                    "question_id": "mx-05",
                    "channel_id": 10,
                    "claimed_at": at,
                    "reveal_at": at,
                    "settled": True,
                }
                for g in (GUILD, 2, 3)
                for d in year
            ]
            + [  # many other servers: a month each, the last day open
                {
                    "guild_id": 100 + g,
                    "day": d,
                    "question_id": "mx-05",
                    "channel_id": 10,
                    "claimed_at": at,
                    "reveal_at": at,
                    "settled": d != year[-1],
                }
                for g in range(300)
                for d in year[-30:]
            ]
        )
        await conn.execute(DailyPost.__table__.insert(), post_rows)  # type: ignore[attr-defined]
        ids = (await conn.execute(select(DailyPost.id))).scalars().all()  # type: ignore[call-overload]
        await conn.execute(
            DailyAnswer.__table__.insert(),  # type: ignore[attr-defined]
            [
                {
                    "post_id": p,
                    "user_id": 1000 + (p * 7 + k) % 400,
                    "choice": 0,
                    "correct": True,
                    "answered_at": at,
                }
                for p in ids[: 3 * len(year)]
                for k in range(12)
            ],
        )
        await conn.execute(
            ClassMember.__table__.insert(),  # type: ignore[attr-defined]
            [
                {  # active until after the fold 40 days on
                    "guild_id": g,
                    "user_id": 1000 + u,
                    "last_answered_at": NOW + timedelta(days=39),
                    "counted": True,
                }
                for g in (GUILD, 2, 3)
                for u in range(400)
            ],
        )
        await conn.execute(
            MemberStats.__table__.insert(),  # type: ignore[attr-defined]
            [
                {
                    "guild_id": GUILD,
                    "user_id": 1000 + u,
                    "current_streak": 0,
                    "longest_streak": 3,
                    "answered": 9,
                    "correct": 5,
                    "updated_at": at,
                }
                for u in range(400)
            ],
        )
        await conn.exec_driver_sql("ANALYZE")


@pytest.fixture
async def history(daily: DailyService) -> list[int]:
    """A year of posts, then three days of one server: two settled, the third open."""
    await bulk(daily.db)
    ids = []
    for index, (day, question) in enumerate(zip(DAYS, ("mx-01", "mx-02", "mx-03"), strict=True)):
        at = datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=9)
        post = await posts_store.claim(
            daily.db, GUILD, day, question, 10, at + timedelta(hours=20), daily.clock()
        )
        assert post is not None and post.id is not None
        await daily.posts.set_message(post.id, 900 + index, at)
        found = await daily.answers.post_by_message(900 + index)
        assert found is not None
        await daily.answers.recover(found, [(u, u % 3) for u in range(1, 7)], at)
        ids.append(post.id)
    await daily.settling.settle(ids[0], NOW)
    await daily.settling.graded()
    return ids


async def uses(db: Database, statements: list, index: str, *parts: str) -> None:
    found = await plan(db, *find(statements, *parts))
    assert index in found, found


async def test_me_reads_a_members_daily_answers_by_the_user_index(
    daily: DailyService, history: list[int]
) -> None:
    db = daily.db
    with captured(db) as statements:
        await answers_per_question(db, 3)
    await uses(
        db, statements, "ix_daily_answer_user", "FROM daily_answer", "daily_answer.user_id ="
    )


async def test_the_settle_claim_finds_earlier_open_posts_by_the_open_index(
    daily: DailyService, history: list[int]
) -> None:
    db = daily.db
    with captured(db) as statements:
        await daily.settling.settle(history[1], NOW)
    await uses(db, statements, "ix_daily_post_guild_open", "UPDATE daily_post", "EXISTS")
    # Everyone else's streak ends over the streak index, not over every member row.
    await uses(db, statements, "ix_member_stats_streak", "UPDATE member_stats", "current_streak >")


async def test_the_class_is_reached_by_member_by_age_and_by_what_is_not_counted(
    daily: DailyService, bank: QuizBank, history: list[int]
) -> None:
    db = daily.db
    with captured(db) as statements:  # a quiz answer of a counted member: their servers
        await Reviews(db, bank).record_grade(2, "mx-04", True, NOW, Source(QUIZ, "s1"))
    await uses(
        db, statements, "ix_class_member_user", "FROM class_member", "class_member.user_id IN"
    )
    with captured(db) as statements:  # a month later: who left the window, who is new
        await fold(db, GUILD, NOW + timedelta(days=40))
    await uses(db, statements, "ix_class_member_last", "FROM class_member", "last_answered_at <")
    await uses(db, statements, "ix_class_member_counted", "FROM class_member", "counted")


async def test_open_posts_of_a_server_are_found_by_the_open_index(
    daily: DailyService, history: list[int]
) -> None:
    db = daily.db
    with captured(db) as statements:
        async with db.session() as session:
            await signals_of(session, GUILD, ["mx-01", "mx-05"], NOW)
        await class_analytics(db, GUILD, DAYS[-1])
    await uses(db, statements, "ix_daily_post_guild_open", "FROM daily_answer JOIN daily_post")
    await uses(db, statements, "ix_daily_post_guild_open", "SELECT daily_post.id, daily_post.day")


async def test_the_fold_computes_each_cards_terms_once_not_once_per_sum(
    daily: DailyService, history: list[int]
) -> None:
    # Merged into its 35 sums, the fold's query read each card's stability from the card's
    # JSON 70 times: 8,907 members were folded in 28 s on PostgreSQL instead of 4.
    db = daily.db
    async with db.engine.begin() as conn:
        await conn.exec_driver_sql("UPDATE class_member SET counted = false")
    with captured(db) as statements:
        await fold(db, GUILD, NOW)
    found = await plan(db, *find(statements, "FROM review_card", "GROUP BY"), verbose=True)
    if db.is_sqlite:
        assert "CO-ROUTINE terms" in found, found  # the cards' values, then the sums
    else:  # the scan computes them (the sums only add them up)
        scanned = [line for line in found.splitlines() if "Output:" in line][-1]
        assert "->> 'stability'" in scanned, found
