"""Spaced review: scheduling with the fsrs package, the review order, exactly-once grading."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest
from fsrs import Card, Rating, Scheduler
from sqlmodel import func, select

from bot.db.database import Database
from bot.db.tables.review import ReviewCard, ReviewLog
from bot.learning.review import Reviews
from bot.learning.review_rules import QUIZ, SCHEDULER, Source, rating_for, review
from bot.quizbank import QuizBank
from tests.support.db import make_quiz

USER, OTHER = 1, 2
T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def reviews(db: Database, bank: QuizBank) -> Reviews:
    return Reviews(db, bank, clock=lambda: T0)


def test_ratings_and_day_scale_intervals_follow_the_fsrs_package() -> None:
    assert rating_for(False) is Rating.Again
    assert rating_for(True) is Rating.Good
    assert rating_for(True, seconds=3.0) is Rating.Easy
    assert rating_for(False, seconds=3.0) is Rating.Again
    # Our card is the package's own card, reviewed by a scheduler without learning steps.
    reference = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    expected, _ = reference.review_card(Card(card_id=1, due=T0), Rating.Good, T0)
    ours = review(None, Rating.Good, T0)
    assert (ours.due, ours.stability, ours.difficulty) == (
        expected.due,
        expected.stability,
        expected.difficulty,
    )
    # No minute-long steps: every interval is at least a day, also after a lapse.
    again = review(ours, Rating.Again, ours.due)
    assert ours.due - T0 >= timedelta(days=1)
    assert again.due - ours.due >= timedelta(days=1)
    assert SCHEDULER.learning_steps == () and SCHEDULER.relearning_steps == ()
    # Easy waits longer than Good, which waits at least as long as Again.
    easy, good, wrong = (review(None, r, T0) for r in (Rating.Easy, Rating.Good, Rating.Again))
    assert easy.due > good.due >= wrong.due


async def test_a_wrong_answer_is_due_at_once_and_before_a_right_one(reviews: Reviews) -> None:
    await reviews.record_grade(USER, "mx-01", True, T0, Source(QUIZ, "s1"))
    await reviews.record_grade(USER, "mx-02", False, T0, Source(QUIZ, "s1"))
    queue = await reviews.due_queue(USER, None, T0 + timedelta(minutes=1), limit=20)
    assert queue[0] == "mx-02"  # due right after the quiz
    assert "mx-01" not in queue  # answered right: FSRS lets it rest for days
    counts = await reviews.counts(USER, None, T0 + timedelta(minutes=1))
    assert counts.due_now == 1 and counts.next_due == T0 + timedelta(minutes=1)
    # Once due by FSRS, the right one comes back too, still after the open mistake.
    good_due = review(None, Rating.Good, T0).due
    later = await reviews.due_queue(USER, None, good_due, limit=20)
    assert later[:2] == ["mx-02", "mx-01"]
    # A right answer closes the mistake: it is then scheduled like any other card.
    await reviews.record_grade(USER, "mx-02", True, T0 + timedelta(minutes=2), Source(QUIZ, "s2"))
    after = await reviews.due_queue(USER, None, T0 + timedelta(minutes=3), limit=20)
    assert "mx-02" not in after and "mx-01" not in after


async def test_review_order_mistakes_then_most_overdue_then_unseen(
    reviews: Reviews, db: Database, bank: QuizBank
) -> None:
    day = timedelta(days=1)
    # Two mistakes (the older first), two due cards (the more overdue first).
    await reviews.record_grade(USER, "mx-04", False, T0 + timedelta(hours=1), Source(QUIZ, "a"))
    await reviews.record_grade(USER, "mx-03", False, T0, Source(QUIZ, "b"))
    await reviews.record_grade(USER, "mx-01", True, T0 - 30 * day, Source(QUIZ, "c"))
    await reviews.record_grade(USER, "mx-02", True, T0 - 20 * day, Source(QUIZ, "d"))
    now = T0 + timedelta(hours=2)
    queue = await reviews.due_queue(USER, None, now, limit=20)
    # Unseen: the rest of the started quiz "mixed" first, then the other quiz in file order.
    assert queue == ["mx-03", "mx-04", "mx-01", "mx-02", "mx-05", "ac-01", "ac-02", "ac-03"]
    assert await reviews.due_queue(USER, None, now, limit=3) == ["mx-03", "mx-04", "mx-01"]
    assert len(set(queue)) == len(queue)  # nothing twice
    # Another member's cards are theirs alone.
    assert await reviews.due_queue(OTHER, None, now, limit=3) == ["ac-01", "ac-02", "ac-03"]


async def test_only_questions_the_server_may_ask_are_queued(db: Database) -> None:
    bank = QuizBank([make_quiz("mixed", [0, 1], prefix="mx")])
    bank.add(make_quiz("house", [0], prefix="hs"), owner=77)
    reviews = Reviews(db, bank, clock=lambda: T0)
    await reviews.record_grade(USER, "hs-01", False, T0, Source(QUIZ, "a"))
    assert await reviews.due_queue(USER, 77, T0, limit=9) == ["hs-01", "mx-01", "mx-02"]
    assert await reviews.due_queue(USER, 88, T0, limit=9) == ["mx-01", "mx-02"]
    assert await reviews.due_queue(USER, None, T0, limit=9) == ["mx-01", "mx-02"]


async def test_a_graded_answer_updates_its_card_exactly_once(
    reviews: Reviews, db: Database, open_db: Callable[[], Awaitable[Database]], bank: QuizBank
) -> None:
    source = Source(QUIZ, "s1")
    assert await reviews.record_grade(USER, "mx-01", True, T0, source)
    assert not await reviews.record_grade(USER, "mx-01", True, T0, source)
    # The same source graded by two processes at once still counts once.
    other = Reviews(await open_db(), bank)
    again = Source(QUIZ, "s2")
    applied = await asyncio.gather(
        reviews.record_grade(USER, "mx-01", False, T0 + timedelta(hours=1), again),
        other.record_grade(USER, "mx-01", False, T0 + timedelta(hours=1), again),
    )
    assert sorted(applied) == [False, True]
    async with db.session() as session:
        card = await session.get(ReviewCard, (USER, "mx-01"))
        logs = (await session.exec(select(func.count()).select_from(ReviewLog))).one()
    assert card is not None and (card.reviews, card.lapses, card.open_mistake) == (2, 1, True)
    assert logs == 2
    # The stored card is the fsrs card of exactly those two reviews.
    expected = review(review(None, Rating.Good, T0), Rating.Again, T0 + timedelta(hours=1))
    assert card.due == expected.due
    assert Card.from_dict(card.card).stability == expected.stability  # type: ignore[arg-type]


async def test_next_due_says_when_nothing_is_due(reviews: Reviews) -> None:
    assert await reviews.next_due(USER) is None
    await reviews.record_grade(USER, "mx-01", True, T0, Source(QUIZ, "s1"))
    assert await reviews.next_due(USER) == review(None, Rating.Good, T0).due


async def test_a_large_batch_is_applied_once_per_member(db: Database) -> None:
    from bot.learning.cards_store import CHUNK, record_grades
    from bot.learning.review_rules import DAILY, Grade

    members = range(1000, 1000 + 2 * CHUNK + 1)  # more than one statement's worth
    grades = [Grade(u, "mx-01", u % 2 == 0, T0, Source(DAILY, "7")) for u in members]
    async with db.session() as session:
        assert await record_grades(session, grades) == len(grades)
        await session.commit()
    async with db.session() as session:
        assert await record_grades(session, grades) == 0
        await session.commit()
        open_mistakes = (
            await session.exec(
                select(func.count()).select_from(ReviewCard).where(ReviewCard.open_mistake)
            )
        ).one()
    assert open_mistakes == len(grades) // 2
