"""/me's numbers: streak, accuracy per topic (settled daily answers only), reviews due."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from fsrs import Rating

from bot.daily import posts_store
from bot.daily.service import DailyService
from bot.db.database import Database
from bot.learning.review_rules import review
from bot.quiz import sessions_store
from bot.quiz.sessions import QuizSessions
from bot.quizbank import QuizBank
from bot.stats.progress import ProgressReports
from bot.stats.progress_rules import TopicAccuracy
from testkit.times import Clock
from tests.support.db import make_quiz

NOW = datetime(2026, 5, 1, 1, 0, tzinfo=UTC)
GUILD, OTHER_GUILD, CHANNEL, USER = 1, 99, 10, 42


@pytest.fixture
def full_bank(bank: QuizBank) -> QuizBank:
    """The test bank (the one the `daily` fixture serves) with another server's quiz."""
    bank.add(make_quiz("house", [0], prefix="hs"), owner=OTHER_GUILD)
    return bank


async def daily_answer(daily: DailyService, day: date, question: str, choice: int) -> int:
    post = await posts_store.claim(
        daily.db, GUILD, day, question, CHANNEL, NOW + timedelta(hours=20), daily.clock()
    )
    assert post is not None and post.id is not None
    await daily.posts.set_message(post.id, 500 + day.day)
    found = await daily.answers.post_by_message(500 + day.day)
    assert found is not None
    await daily.answers.record(found, USER, choice)
    await daily.writer.flush()
    return post.id


async def test_progress_counts_graded_answers_per_topic_and_reviews_due(
    db: Database, full_bank: QuizBank, daily: DailyService
) -> None:
    clock = Clock(NOW)
    sessions = QuizSessions(db, full_bank, clock=clock)
    quiz = await sessions.start(USER, GUILD, "accum", 3, "en", seed=2)
    for right in (True, False, False):
        current = await sessions_store.get(sessions.db, quiz.id)
        assert current is not None
        question, order = sessions.current_question(current)
        position = order.index(question.answer)
        clock.now += timedelta(seconds=30)  # not fast: a right answer rates Good
        await sessions.answer(quiz.id, USER, position if right else (position + 1) % len(order))
        await sessions.next(quiz.id, USER)
    # Daily: mx-01 answered right and settled; mx-02 answered wrong but still open.
    settled = await daily_answer(daily, date(2026, 5, 1), "mx-01", 0)
    await daily.settling.settle(settled)
    await daily.settling.graded()  # its review card follows the settle
    await daily_answer(daily, date(2026, 5, 2), "mx-02", 2)
    # Another server's own quiz: answered, but never shown here.
    house = await sessions.start(USER, OTHER_GUILD, "house", 1, "en")
    await sessions.answer(house.id, USER, (house.choice_orders[0].index(0) + 1) % 3)

    reports = ProgressReports(db, full_bank, sessions.reviews, clock=clock)
    progress = await reports.of(USER, GUILD)
    assert progress.topics == [TopicAccuracy("accum", 3, 1), TopicAccuracy("mixed", 1, 1)]
    assert progress.streak is not None
    assert (progress.streak.current, progress.streak.longest) == (1, 1)
    # Due now: the two quiz mistakes. This week: those, and the right answers FSRS brings
    # back within seven days.
    good_quiz = review(None, Rating.Good, NOW + timedelta(seconds=30)).due
    good_daily = review(None, Rating.Good, NOW).due
    week = clock() + timedelta(days=7)
    rested = sum(1 for due in (good_quiz, good_daily) if due <= week)
    assert progress.reviews.due_now == 2
    assert progress.reviews.due_this_week == 2 + rested
    assert progress.reviews.next_due == clock()
    # Outside a server: no streak; the other server's quiz shows there neither.
    private = await reports.of(USER, None)
    assert private.streak is None and [t.quiz_id for t in private.topics] == ["accum", "mixed"]
    there = await reports.of(USER, OTHER_GUILD)
    assert there.topics[0] == TopicAccuracy("house", 1, 0) and there.reviews.due_now == 3
