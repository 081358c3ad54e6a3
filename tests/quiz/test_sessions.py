"""Quiz sessions: validation, idempotent clicks, restarts, expiry."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta

import pytest
from sqlmodel import select

from bot.common.errors import UserError
from bot.db.database import Database
from bot.db.tables.quiz import QuizResult
from bot.quiz import sessions_store
from bot.quiz.sessions import QuizSessions, QuizStep, QuizSummary
from bot.quizbank import QuizBank
from testkit.times import Clock

USER, OTHER = 1, 2


@pytest.fixture
def sessions(db: Database, bank: QuizBank, clock: Clock) -> QuizSessions:
    return QuizSessions(db, bank, clock=clock)


def right_position(sessions: QuizSessions, quiz: object) -> int:
    question, order = sessions.current_question(quiz)  # type: ignore[arg-type]
    return order.index(question.answer)


@pytest.mark.parametrize(
    ("quiz_id", "count", "key", "params"),
    [
        ("cooking", None, "quiz.unknown_topic", {"topic": "cooking", "available": "accum, mixed"}),
        ("accum", 0, "quiz.bad_count", {"count": 0, "max": 3}),
    ],
)
async def test_start_refuses_bad_input(
    sessions: QuizSessions,
    quiz_id: str | None,
    count: int | None,
    key: str,
    params: dict[str, object],
) -> None:
    with pytest.raises(UserError) as caught:
        await sessions.start(USER, 5, quiz_id, count, "en")
    assert (caught.value.key, caught.value.params) == (key, params)


async def test_more_questions_than_a_quiz_holds_starts_them_all(sessions: QuizSessions) -> None:
    assert len((await sessions.start(USER, 5, "accum", 4, "en")).question_ids) == 3
    assert len((await sessions.start(USER, 5, None, 9, "en")).question_ids) == 8


async def test_start_is_reproducible_with_a_seed(sessions: QuizSessions) -> None:
    a = await sessions.start(USER, 5, "mixed", 4, "en", seed=3)
    b = await sessions.start(OTHER, 5, "mixed", 4, "en", seed=3)
    assert (a.question_ids, a.choice_orders) == (b.question_ids, b.choice_orders)
    assert len(set(a.question_ids)) == 4 and all(sorted(o) == [0, 1, 2] for o in a.choice_orders)
    assert a.id != b.id and len(a.id) <= 32


async def test_a_new_session_stops_the_old_one(sessions: QuizSessions) -> None:
    old = await sessions.start(USER, 5, "accum", None, "en")
    new = await sessions.start(USER, 5, "accum", None, "en")
    stopped = await sessions_store.get(sessions.db, old.id)
    assert stopped is not None and stopped.status == "stopped"
    active = await sessions_store.active_for(sessions.db, USER)
    assert active is not None and active.id == new.id
    with pytest.raises(UserError) as caught:
        await sessions.answer(old.id, USER, 0)
    assert caught.value.key == "quiz.expired"


async def test_full_run_with_results_and_summary(
    sessions: QuizSessions, db: Database, clock: Clock
) -> None:
    quiz = await sessions.start(USER, None, "accum", None, "id", seed=1)
    for number in (1, 2, 3):
        current = await sessions_store.get(sessions.db, quiz.id)
        assert current is not None
        good = right_position(sessions, current)
        position = good if number != 2 else (good + 1) % 3  # the second one wrong
        outcome = await sessions.answer(quiz.id, USER, position, question_number=number)
        assert outcome.correct is (number != 2)
        assert (outcome.correct_position, outcome.number, outcome.total) == (good, number, 3)
        assert outcome.explanation.startswith("Karena")  # the session's locale
        assert outcome.is_last is (number == 3)
        clock.now += timedelta(minutes=1)
        step = await sessions.next(quiz.id, USER)
        if number < 3:
            assert isinstance(step, QuizStep) and step.number == number + 1
    assert isinstance(step, QuizSummary)
    assert (step.score, step.total, step.answered, step.status) == (2, 3, 3, "finished")
    assert step.elapsed == timedelta(minutes=3)
    # A repeated "next" keeps returning the summary.
    assert await sessions.next(quiz.id, USER) == step
    async with db.session() as session:
        results = (
            await session.exec(select(QuizResult).where(QuizResult.session_id == quiz.id))
        ).all()
    assert sorted(r.correct for r in results) == [False, True, True]
    with pytest.raises(UserError) as caught:
        await sessions.answer(quiz.id, USER, 0)
    assert caught.value.key == "quiz.expired"


async def test_double_click_is_idempotent(sessions: QuizSessions, db: Database) -> None:
    quiz = await sessions.start(USER, None, "mixed", 2, "en", seed=2)
    good = right_position(sessions, quiz)
    wrong = (good + 1) % 3
    first, second = await asyncio.gather(
        sessions.answer(quiz.id, USER, wrong), sessions.answer(quiz.id, USER, good)
    )
    assert first == second and first.correct is False and first.chosen_position == wrong
    again = await sessions.answer(quiz.id, USER, good)
    assert again == first
    stored = await sessions_store.get(sessions.db, quiz.id)
    assert stored is not None and stored.score == 0
    # Double click on "next": the second returns the same (new) question, nothing skipped.
    a, b = await asyncio.gather(sessions.next(quiz.id, USER), sessions.next(quiz.id, USER))
    assert isinstance(a, QuizStep) and isinstance(b, QuizStep)
    assert a.number == b.number == 2
    # Buttons of the first question are stale now.
    with pytest.raises(UserError) as caught:
        await sessions.answer(quiz.id, USER, 0, question_number=1)
    assert (caught.value.key, caught.value.params) == ("quiz.old_question", {"number": 1})
    async with db.session() as session:
        assert len((await session.exec(select(QuizResult))).all()) == 1


async def test_next_before_answering_shows_the_same_question(sessions: QuizSessions) -> None:
    quiz = await sessions.start(USER, None, "accum", None, "en", seed=4)
    step = await sessions.next(quiz.id, USER)
    assert (
        isinstance(step, QuizStep) and step.number == 1 and step.question.id == quiz.question_ids[0]
    )


async def test_someone_elses_session(sessions: QuizSessions) -> None:
    quiz = await sessions.start(USER, 5, "accum", None, "en")
    for action in (sessions.answer(quiz.id, OTHER, 0), sessions.next(quiz.id, OTHER)):
        with pytest.raises(UserError) as caught:
            await action
        assert caught.value.key == "quiz.not_yours"
    with pytest.raises(UserError) as caught:
        await sessions.answer("no-such-id", USER, 0)
    assert caught.value.key == "quiz.expired"
    with pytest.raises(UserError) as caught:
        await sessions.answer(quiz.id, USER, 5)
    assert (caught.value.key, caught.value.params) == ("quiz.bad_choice", {"position": 6, "max": 3})


async def test_session_survives_a_restart(
    db: Database, bank: QuizBank, clock: Clock, open_db: Callable[[], Awaitable[Database]]
) -> None:
    before = QuizSessions(db, bank, clock=clock)
    quiz = await before.start(USER, 5, "mixed", 3, "en", seed=5)
    await before.answer(quiz.id, USER, right_position(before, quiz))
    await db.close()

    after = QuizSessions(await open_db(), bank, clock=clock)
    restored = await sessions_store.get(after.db, quiz.id)
    assert restored is not None
    assert (
        restored.question_ids,
        restored.choice_orders,
        restored.answered_current,
        restored.score,
    ) == (
        quiz.question_ids,
        quiz.choice_orders,
        True,
        1,
    )
    step = await after.next(quiz.id, USER)
    assert isinstance(step, QuizStep) and step.number == 2


async def test_stop_and_expired_cleanup(sessions: QuizSessions, clock: Clock) -> None:
    assert await sessions.stop(USER) is None
    await sessions.start(USER, 5, "accum", None, "en")
    summary = await sessions.stop(USER)
    assert summary is not None and (summary.status, summary.answered) == ("stopped", 0)

    idle = await sessions.start(USER, 5, "accum", None, "en")
    clock.now += timedelta(hours=1)
    busy = await sessions.start(OTHER, 5, "accum", None, "en")
    clock.now += timedelta(hours=1, minutes=30)
    assert await sessions_store.expire_idle(sessions.db, clock.now, timedelta(hours=2)) == 1
    assert (await sessions_store.get(sessions.db, idle.id)).status == "expired"  # type: ignore[union-attr]
    assert (await sessions_store.get(sessions.db, busy.id)).status == "active"  # type: ignore[union-attr]
    assert await sessions_store.expire_idle(sessions.db, clock.now, timedelta(hours=2)) == 0
    # A session past its idle limit is refused even before the cleanup job ran.
    clock.now += timedelta(hours=1)
    with pytest.raises(UserError) as caught:
        await sessions.answer(busy.id, OTHER, 0)
    assert caught.value.key == "quiz.expired"
    assert (await sessions_store.get(sessions.db, busy.id)).status == "expired"  # type: ignore[union-attr]
