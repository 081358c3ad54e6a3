"""Streak rules (pure) and the leaderboard over the database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.common.errors import UserError
from bot.daily import streaks_store
from bot.daily.streak_rules import MIN_ANSWERED_FOR_ACCURACY, Outcome, StreakState, apply_outcome
from bot.db.database import Database
from tests.support.db import seed_member_stats

NOW = datetime(2026, 5, 1, tzinfo=UTC)


def test_correct_extends_and_counts() -> None:
    update = apply_outcome(
        StreakState(current=2, longest=5, answered=9, correct=7), Outcome.CORRECT
    )
    assert update.state == StreakState(current=3, longest=5, answered=10, correct=8)
    assert not update.new_best and update.milestone is None


def test_wrong_and_missed_end_the_streak_but_keep_longest() -> None:
    state = StreakState(current=4, longest=4, answered=4, correct=4)
    assert apply_outcome(state, Outcome.WRONG).state == StreakState(0, 4, 5, 4)
    assert apply_outcome(state, Outcome.MISSED).state == StreakState(0, 4, 4, 4)


def test_new_best_from_two_on() -> None:
    assert not apply_outcome(StreakState(), Outcome.CORRECT).new_best
    assert apply_outcome(StreakState(current=1, longest=1), Outcome.CORRECT).new_best
    assert not apply_outcome(StreakState(current=1, longest=3), Outcome.CORRECT).new_best
    assert apply_outcome(StreakState(current=3, longest=3), Outcome.CORRECT).new_best


@pytest.mark.parametrize("milestone", [7, 30, 100])
def test_milestones(milestone: int) -> None:
    reached = apply_outcome(
        StreakState(current=milestone - 1, longest=milestone - 1), Outcome.CORRECT
    )
    assert reached.milestone == milestone
    assert (
        apply_outcome(StreakState(current=milestone, longest=milestone), Outcome.CORRECT).milestone
        is None
    )


async def test_streak_of_unknown_member_is_zero(db: Database) -> None:
    streak = await streaks_store.member_streak(db, 1, 99)
    assert (streak.current, streak.longest, streak.answered, streak.accuracy) == (0, 0, 0, None)


async def test_leaderboard_orders_ranks_and_pages(db: Database) -> None:
    # 26 members: streaks 1..24 and two sharing 25; zero-streak members are left out.
    rows = [(user, user, user, user, user) for user in range(1, 25)]
    rows += [(100, 25, 25, 30, 25), (101, 25, 26, 26, 26), (200, 0, 3, 3, 0), (201, 0, 0, 0, 0)]
    await seed_member_stats(db, 1, rows)
    await seed_member_stats(db, 2, [(1, 50, 50, 50, 50)])  # another guild never leaks in

    first, pages = await streaks_store.leaderboard(db, 1, "streak", page=1)
    assert pages == 3
    assert [(r.rank, r.user_id, r.value) for r in first[:3]] == [
        (1, 100, 25),
        (1, 101, 25),
        (3, 24, 24),
    ]
    last, _ = await streaks_store.leaderboard(db, 1, "streak", page=3)
    assert [(r.rank, r.user_id) for r in last] == [
        (21, 6),
        (22, 5),
        (23, 4),
        (24, 3),
        (25, 2),
        (26, 1),
    ]

    longest, _ = await streaks_store.leaderboard(db, 1, "longest", page=1, per_page=2)
    assert [(r.user_id, r.value) for r in longest] == [(101, 26), (100, 25)]
    correct, _ = await streaks_store.leaderboard(db, 1, "correct", page=1, per_page=3)
    assert [r.user_id for r in correct] == [101, 100, 24]


async def test_accuracy_needs_minimum_answers(db: Database) -> None:
    await seed_member_stats(
        db, 1, [(1, 1, 1, 1, 1), (2, 0, 2, 4, 3), (3, 0, 3, 10, 9), (4, 0, 1, 3, 0)]
    )
    rows, pages = await streaks_store.leaderboard(db, 1, "accuracy")
    assert MIN_ANSWERED_FOR_ACCURACY == 3
    assert pages == 1
    assert [(r.rank, r.user_id, round(r.value, 2)) for r in rows] == [
        (1, 3, 0.9),
        (2, 2, 0.75),
        (3, 4, 0.0),
    ]


async def test_empty_leaderboard_and_bad_arguments(db: Database) -> None:
    assert await streaks_store.leaderboard(db, 1) == ([], 0)
    with pytest.raises(UserError) as caught:
        await streaks_store.leaderboard(db, 1, "luck")
    assert caught.value.key == "leaderboard.bad_order"
    assert caught.value.params == {"value": "luck", "allowed": "streak, longest, correct, accuracy"}
    with pytest.raises(UserError) as caught:
        await streaks_store.leaderboard(db, 1, "streak", page=0)
    assert (caught.value.key, caught.value.params) == ("leaderboard.bad_page", {"page": 0})


async def test_page_past_the_end_is_empty(db: Database) -> None:
    await seed_member_stats(db, 1, [(1, 1, 1, 1, 1)])
    assert await streaks_store.leaderboard(db, 1, "streak", page=5) == ([], 1)
