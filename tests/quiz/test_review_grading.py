"""Every graded answer updates its review card once: quiz clicks and settled daily answers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlmodel import select

from bot.daily import posts_store
from bot.daily.service import DailyService
from bot.db.database import Database
from bot.db.tables.review import ReviewCard, ReviewLog
from bot.learning.cards_store import apply_grades, chunks, prepare_grades, record_grade
from bot.learning.review import Reviews
from bot.learning.review_rules import DAILY, QUIZ, Grade, Source
from bot.quiz import sessions_store
from bot.quiz.sessions import QuizSessions
from bot.quizbank import QuizBank
from testkit.times import Clock

NOW = datetime(2026, 5, 1, 1, 0, tzinfo=UTC)
DAY = date(2026, 5, 1)
GUILD, CHANNEL, USER = 1, 10, 42


async def cards(db: Database) -> dict[tuple[int, str], ReviewCard]:
    async with db.session() as session:
        rows = (await session.exec(select(ReviewCard))).all()
    return {(c.user_id, c.question_id): c for c in rows}


async def logs(db: Database) -> list[tuple[str, str, int, str, bool]]:
    async with db.session() as session:
        rows = (await session.exec(select(ReviewLog).order_by(ReviewLog.id))).all()  # type: ignore[arg-type]
    return [(r.source, r.ref, r.user_id, r.question_id, r.correct) for r in rows]


async def test_quiz_answers_update_cards_once_even_when_clicked_twice(
    db: Database, bank: QuizBank, open_db: Callable[[], Awaitable[Database]]
) -> None:
    clock = Clock(NOW)
    sessions = QuizSessions(db, bank, clock=clock)
    other = QuizSessions(await open_db(), bank, clock=clock)  # a second process
    quiz = await sessions.start(USER, None, "mixed", 2, "en", seed=1)
    question, order = sessions.current_question(quiz)
    wrong = (order.index(question.answer) + 1) % len(order)
    clock.now += timedelta(seconds=20)
    await asyncio.gather(
        sessions.answer(quiz.id, USER, wrong, 1), other.answer(quiz.id, USER, wrong, 1)
    )
    await sessions.next(quiz.id, USER)
    second, order2 = sessions.current_question(await sessions_store.get(sessions.db, quiz.id))  # type: ignore[arg-type]
    await sessions.answer(quiz.id, USER, order2.index(second.answer), 2)
    assert await logs(db) == [
        ("quiz", quiz.id, USER, question.id, False),
        ("quiz", quiz.id, USER, second.id, True),
    ]
    stored = await cards(db)
    assert stored[(USER, question.id)].open_mistake and stored[(USER, question.id)].reviews == 1
    assert not stored[(USER, second.id)].open_mistake
    # The mistake is the first thing to review, right after the quiz.
    queue = await Reviews(db, bank).due_queue(USER, None, clock(), limit=3)
    assert queue[0] == question.id and second.id not in queue


async def test_settled_daily_answers_update_cards_once(
    daily: DailyService, db: Database, bank: QuizBank, open_db: Callable[[], Awaitable[Database]]
) -> None:
    other = DailyService(await open_db(), bank, clock=lambda: NOW)
    post = await posts_store.claim(
        daily.db, GUILD, DAY, "mx-01", CHANNEL, NOW + timedelta(hours=20), daily.clock()
    )
    assert post is not None and post.id is not None
    await daily.posts.set_message(post.id, 500)
    found = await daily.answers.post_by_message(500)
    assert found is not None
    await daily.answers.record(found, 1, 0)  # mx-01: index 0 is right
    await daily.answers.record(found, 2, 2)
    assert await cards(db) == {}  # nothing counts before the question is settled
    # Two processes settle at once; then a late settle repeats: one update per answer.
    await asyncio.gather(daily.settling.settle(post.id), other.settling.settle(post.id))
    await daily.settling.settle(post.id, now=NOW + timedelta(days=1))
    for service in (daily, other):  # the cards follow the settle in the background
        await service.settling.graded()
    assert sorted(await logs(db)) == [
        ("daily", str(post.id), 1, "mx-01", True),
        ("daily", str(post.id), 2, "mx-01", False),
    ]
    stored = await cards(db)
    assert (stored[(1, "mx-01")].reviews, stored[(1, "mx-01")].open_mistake) == (1, False)
    assert (stored[(2, "mx-01")].reviews, stored[(2, "mx-01")].open_mistake) == (1, True)
    await other.close()


async def test_a_review_session_asks_each_due_question_once(db: Database, bank: QuizBank) -> None:
    from bot.quiz.sessions import NothingDue, QuizSummary

    clock = Clock(NOW)
    sessions = QuizSessions(db, bank, clock=clock)
    assert await sessions.reviews.next_due(USER) is None
    quiz = await sessions.start_review(USER, None, 20, "en", seed=3)
    assert not isinstance(quiz, NothingDue)
    assert len(quiz.question_ids) == 8 == len(set(quiz.question_ids))  # the whole bank, once
    # Every answer wrong: each becomes due at once, yet none comes back in this session.
    asked = []
    for number in range(1, 9):
        current = await sessions_store.get(sessions.db, quiz.id)
        assert current is not None
        question, order = sessions.current_question(current)
        asked.append(question.id)
        await sessions.answer(quiz.id, USER, (order.index(question.answer) + 1) % len(order))
        clock.now += timedelta(seconds=30)
        step = await sessions.next(quiz.id, USER)
        assert isinstance(step, QuizSummary) == (number == 8)
    assert asked == quiz.question_ids
    # The next review starts with those mistakes, oldest first.
    again = await sessions.start_review(USER, None, 3, "en")
    assert not isinstance(again, NothingDue) and again.question_ids == asked[:3]
    # All answered right: nothing due, nothing unseen; the next review is days away.
    for question_id in asked:
        await sessions.reviews.record_grade(
            USER, question_id, True, clock(), Source(QUIZ, f"x-{question_id}")
        )
    nothing = await sessions.start_review(USER, None, 3, "en")
    assert isinstance(nothing, NothingDue)
    assert nothing.next_due is not None and nothing.next_due - clock() >= timedelta(days=1)


async def test_a_settle_that_dies_before_commit_leaves_cards_untouched_and_retries_once(
    daily: DailyService, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process killed mid-settle rolls its transaction back: the day is not settled and
    no card moved; the next settle applies each answer once."""
    import bot.daily.settle_store as settling

    post = await posts_store.claim(
        daily.db, GUILD, DAY, "mx-01", CHANNEL, NOW + timedelta(hours=20), daily.clock()
    )
    assert post is not None and post.id is not None
    await daily.posts.set_message(post.id, 500)
    found = await daily.answers.post_by_message(500)
    assert found is not None
    await daily.answers.record(found, 1, 2)
    real_owe = settling.owe

    def dies(*args: object, **kwargs: object) -> None:
        raise RuntimeError("killed")  # after the cards were updated, before the commit

    monkeypatch.setattr(settling, "owe", dies)
    with pytest.raises(RuntimeError):
        await daily.settling.settle(post.id)
    assert await cards(db) == {} and await logs(db) == []
    monkeypatch.setattr(settling, "owe", real_owe)
    summary = await daily.settling.settle(post.id)
    await daily.settling.graded()
    assert summary.answered == 1
    assert await logs(db) == [("daily", str(post.id), 1, "mx-01", False)]
    assert (await cards(db))[(1, "mx-01")].reviews == 1


async def test_cards_a_crash_left_out_of_a_settled_day_are_applied_once_at_start_up(
    daily: DailyService, db: Database, bank: QuizBank, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The day is settled (and revealed) first; its cards follow in transactions of their
    own. A process that dies in between leaves the post not `graded`: the next start-up
    applies its answers, each once."""
    import bot.daily.settling as settling

    post = await posts_store.claim(
        daily.db, GUILD, DAY, "mx-01", CHANNEL, NOW + timedelta(hours=20), daily.clock()
    )
    assert post is not None and post.id is not None
    await daily.posts.set_message(post.id, 500)
    found = await daily.answers.post_by_message(500)
    assert found is not None
    await daily.answers.record(found, 1, 0)
    await daily.answers.record(found, 2, 2)

    async def dies(*args: object) -> None:
        raise asyncio.CancelledError  # the process ends before the first card

    monkeypatch.setattr(settling, "grade_post", dies)
    summary = await daily.settling.settle(post.id)
    await daily.settling.graded()
    assert summary.answered == 2 and await cards(db) == {}
    monkeypatch.undo()
    restarted = DailyService(db, bank, clock=lambda: NOW)
    assert await restarted.settling.finish_grading() == 1
    assert await restarted.settling.finish_grading() == 0
    stored = await cards(db)
    assert {key: card.reviews for key, card in stored.items()} == {(1, "mx-01"): 1, (2, "mx-01"): 1}


async def test_a_card_that_changed_after_it_was_read_is_worked_out_again(db: Database) -> None:
    """Grades are worked out before their transaction (`prepare_grades`); a card another
    grader changed in between is read again under lock, and an answer applied meanwhile
    is not applied twice."""
    daily = Grade(USER, "mx-01", True, NOW, Source(DAILY, "1"))
    async with db.engine.connect() as conn:
        prepared = await prepare_grades(conn, chunks([daily])[0])
        again = await prepare_grades(conn, chunks([daily])[0])
    quiz = Grade(USER, "mx-01", False, NOW + timedelta(minutes=1), Source(QUIZ, "s1"))
    assert await record_grade(db, quiz)  # meanwhile: a quiz answer of the same card
    for expected, work in ((1, prepared), (0, again)):
        async with db.session() as session:
            assert await apply_grades(await session.connection(), work) == expected
            await session.commit()
    card = (await cards(db))[(USER, "mx-01")]
    # Both answers are on the card; the one applied last (the daily answer, graded late)
    # decides the open mistake, as for any answer graded late.
    assert (card.reviews, card.lapses, card.open_mistake) == (2, 1, False)
    assert len(await logs(db)) == 2
