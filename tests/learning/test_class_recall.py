"""The class recall the daily choice reads: running sums per (server, question), under
the forgetting curve of the server's own memory model, that follow every graded answer,
members joining and members going quiet, and a refit, and agree with the mean
retrievability of the active members' cards computed card by card."""

from __future__ import annotations

import asyncio
import math
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from fsrs import Scheduler
from sqlmodel import col, select

from bot.common.times import as_utc
from bot.daily import posts_store
from bot.daily.choice_store import signals_of
from bot.daily.service import DailyService
from bot.db.database import Database
from bot.db.tables.daily import DailyAnswer, DailyPost
from bot.db.tables.learning import MemoryModel
from bot.db.tables.review import ReviewCard
from bot.learning.memory_store import reschedule, rules_for, save_fit
from bot.learning.recall_rules import (
    ACTIVE_DAYS,
    CARDS,
    SUMS,
    X_MAX,
    X_MIN,
    RecallSums,
    add_terms,
    curve,
)
from bot.learning.recall_store import fold
from bot.learning.review import Reviews
from bot.learning.review_rules import QUIZ, SCHEDULER, Source
from bot.quizbank import QuizBank
from testkit.times import Clock

START = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
A, B = 1, 2  # servers
QUESTIONS = ["ac-01", "ac-02", "ac-03", "mx-01", "mx-02", "mx-03", "mx-04", "mx-05"]


@pytest.mark.parametrize("decay", [-0.1, -0.1542, -0.3, -0.5, -0.8])  # fsrs's range of w20
def test_the_sums_follow_the_forgetting_curve_of_any_decay(decay: float) -> None:
    rng = random.Random(5)
    sums = curve(decay)
    assert sums.size == SUMS.size  # a server's row has as many terms whatever its model
    worst = 0.0
    for _ in range(5000):
        x = math.exp(rng.uniform(math.log(X_MIN), math.log(X_MAX)))
        approx = sum(w * math.exp(-r * x) for w, r in zip(sums.weights, sums.rates, strict=True))
        worst = max(worst, abs(approx / x**decay - 1))
    assert worst < 4e-4


def test_the_sums_give_the_mean_of_cards_added_moved_and_replaced() -> None:
    rng = random.Random(5)
    # Cards added at different times, moved on, one replaced: the mean is the exact one.
    cards = [(rng.uniform(0.05, 2000), rng.uniform(0, 300)) for _ in range(500)]
    sums, at = SUMS.zeros(), 300.0
    for stability, last in cards:
        add_terms(sums, SUMS.terms(stability, last, at))
    add_terms(sums, SUMS.terms(*cards[0], at), -1.0)
    cards[0] = (12.0, 299.5)
    add_terms(sums, SUMS.terms(*cards[0], at))
    for later in (300.0, 301.25, 400.0, 3000.0):
        exact = sum(SUMS.exact(s, lr, later) for s, lr in cards) / len(cards)
        assert SUMS.mean(sums, len(cards), at, later) == pytest.approx(exact, abs=3e-4)
    with pytest.raises(ValueError):
        RecallSums.for_curve(-1.5, 1.0)


def retrievability(card: ReviewCard, now: datetime, scheduler: Scheduler) -> float:
    """fsrs's forgetting curve of `scheduler` (decay w20, R = 0.9 at t = S), in continuous
    time: fsrs's own `get_card_retrievability` counts whole days."""
    decay = -scheduler.parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    elapsed = max(0.0, (now - as_utc(card.last_review)).total_seconds() / 86_400)
    return float((1 + factor * elapsed / card.card["stability"]) ** decay)


async def exact_signals(
    db: Database, guild_id: int, now: datetime
) -> tuple[int, dict[str, tuple[int, float]]]:
    """The rule, card by card: members with a daily answer in the server in the last
    ACTIVE_DAYS days, the mean retrievability now of their cards per question, by the
    server's memory model."""
    scheduler = (await rules_for(db, guild_id)).scheduler
    async with db.session() as session:
        users = set(
            (
                await session.exec(
                    select(DailyAnswer.user_id)
                    .join(DailyPost, col(DailyPost.id) == col(DailyAnswer.post_id))
                    .where(
                        DailyPost.guild_id == guild_id,
                        col(DailyAnswer.answered_at) >= now - timedelta(days=ACTIVE_DAYS),
                    )
                )
            ).all()
        )
        cards = (
            await session.exec(select(ReviewCard).where(col(ReviewCard.user_id).in_(users)))
        ).all()
    found: dict[str, list[float]] = {}
    for card in cards:
        found.setdefault(card.question_id, []).append(retrievability(card, now, scheduler))
    return len(users), {q: (len(r), sum(r) / len(r)) for q, r in found.items()}


async def day(
    daily: DailyService,
    clock: Clock,
    guild_id: int,
    offset: float,
    question: str,
    answers: dict[int, bool],
    *,
    settle: bool = True,
) -> None:
    clock.now = START + timedelta(days=offset)
    post_day = clock.now.date()
    post = await posts_store.claim(
        daily.db, guild_id, post_day, question, 10, clock.now + timedelta(hours=20), daily.clock()
    )
    assert post is not None and post.id is not None
    message_id = guild_id * 1000 + int(offset * 10)
    await daily.posts.set_message(post.id, message_id)
    found = await daily.answers.post_by_message(message_id)
    assert found is not None
    right = daily.bank.question(question).answer
    for user, correct in answers.items():
        clock.now += timedelta(minutes=3)
        await daily.answers.record(found, user, right if correct else (right + 1) % 3, clock())
    if settle:
        clock.now += timedelta(hours=20)
        await daily.settling.settle(post.id, now=clock())
        await daily.settling.graded()


async def check(db: Database, guild_id: int, at: datetime) -> None:
    members, expected = await exact_signals(db, guild_id, at)
    await fold(db, guild_id, at)  # as the choice does first
    scheduler = (await rules_for(db, guild_id)).scheduler
    async with db.session() as session:
        got_members, found = await signals_of(session, guild_id, QUESTIONS, at, scheduler)
    got = {q: signal for q, signal in found.items() if signal.basis == CARDS}
    assert got_members == members
    assert sorted(got) == sorted(expected)
    for question, signal in got.items():
        n, mean = expected[question]
        assert (signal.basis, signal.n) == (CARDS, n), question
        assert signal.recall == pytest.approx(mean, abs=1e-3), question


async def test_the_class_recall_follows_grades_joins_and_members_gone_quiet(
    daily: DailyService, clock: Clock, bank: QuizBank
) -> None:
    reviews = Reviews(daily.db, bank)
    await day(daily, clock, A, 0, "mx-01", {u: u % 3 != 0 for u in range(1, 9)})
    for user in (1, 2, 3, 4):  # quiz answers change cards of class members
        for question in ("mx-02", "ac-01", "mx-01"):
            clock.now += timedelta(hours=1)
            source = Source(QUIZ, f"s{user}-{question}")
            await reviews.record_grade(user, question, user % 2 == 0, clock(), source)
    # Members 5..8 also join server B; 9..12 are new there.
    await day(daily, clock, B, 3, "mx-01", {u: u % 2 == 0 for u in range(5, 13)})
    await day(daily, clock, A, 5, "mx-03", {1: True, 2: False, 3: True, 9: False, 10: True})
    # Open (not settled): 11 counts in A through this post only; 1 is a member already.
    await day(daily, clock, A, 6, "mx-04", {11: True, 1: False}, settle=False)
    for guild in (A, B):
        await check(daily.db, guild, START + timedelta(days=6, hours=12))
    clock.now = START + timedelta(days=20)
    for user in (5, 6, 9):  # members of both servers, and of A only
        source = Source(QUIZ, f"late-{user}")
        await reviews.record_grade(user, "mx-05", True, clock(), source)
    for offset in (21, 33, 37, 60):  # members of day 0 go quiet after 30 days
        for guild in (A, B):
            await check(daily.db, guild, START + timedelta(days=offset))
    # By day 60 nobody is active in A: nothing left in its sums.
    async with daily.db.session() as session:
        members, got = await signals_of(session, A, QUESTIONS, START + timedelta(days=60))
    assert (members, got) == (0, {})


async def test_the_class_recall_follows_cards_replayed_by_a_new_memory_model(
    daily: DailyService, clock: Clock, bank: QuizBank
) -> None:
    # A server adopts its own parameters: its cards are replayed with them (Learning II),
    # and the sums of every server counting those members follow the replayed cards.
    await day(daily, clock, A, 0, "mx-01", {u: u % 3 != 0 for u in range(1, 9)})
    await day(daily, clock, B, 2, "mx-01", {u: u % 2 == 0 for u in range(5, 13)})
    await day(daily, clock, A, 4, "mx-02", {u: u % 2 == 1 for u in range(1, 9)})
    at = START + timedelta(days=5)
    for guild in (A, B):
        await check(daily.db, guild, at)  # counted in, under the default parameters
    parameters = [float(w) for w in SCHEDULER.parameters]
    parameters[:4] = [w * 3 for w in parameters[:4]]  # other first stabilities, same decay
    async with daily.db.session() as session:  # the row the server's first answer made
        model = await session.get(MemoryModel, A)
        assert model is not None
        model.parameters = parameters
        session.add(model)
        await session.commit()
    assert await reschedule(daily.db, A) > 0
    for guild in (A, B):
        await check(daily.db, guild, at)


def fitted(decay: float) -> dict[str, Any]:
    """A fit's result adopting fsrs's default parameters with another decay (w20)."""
    parameters = [float(w) for w in SCHEDULER.parameters]
    parameters[20] = decay
    return {"decision": "fitted", "parameters": parameters}


async def test_a_server_with_its_own_decay_chooses_from_sums_under_its_curve_before_and_after_a_refit(
    daily: DailyService, clock: Clock, bank: QuizBank
) -> None:
    # Members 5..8 are in both servers; A adopts a model of its own, B keeps the defaults.
    reviews = Reviews(daily.db, bank)
    await day(daily, clock, A, 0, "mx-01", {u: u % 3 != 0 for u in range(1, 9)})
    await day(daily, clock, B, 2, "mx-01", {u: u % 2 == 0 for u in range(5, 13)})
    await day(daily, clock, A, 4, "mx-02", {u: u % 2 == 1 for u in range(1, 9)})
    at = START + timedelta(days=5)
    for guild in (A, B):
        await check(daily.db, guild, at)
    for decay in (0.5, 0.25):  # the first model of its own, then a refit to another decay
        clock.now = at
        assert await save_fit(daily.db, A, fitted(decay), at, at + timedelta(days=7))
        assert -(await rules_for(daily.db, A)).scheduler.parameters[20] == -decay
        assert await reschedule(daily.db, A) > 0
        for guild in (A, B):
            await check(daily.db, guild, at)
        # Grades after the refit: each server's sums follow them under its own curve.
        for user in (5, 6, 1):
            clock.now += timedelta(hours=1)
            source = Source(QUIZ, f"after-{decay}-{user}")
            await reviews.record_grade(user, "mx-03", user != 6, clock(), source)
        at += timedelta(days=3)
        for guild in (A, B):
            await check(daily.db, guild, at)
    # The choice's reason reports the recall of A's curve, as worked out card by card.
    clock.now = at
    _, expected = await exact_signals(daily.db, A, at)
    choice = await daily.posts.choose(A, at.date(), None, 30)
    assert choice.reason.basis == CARDS
    n, mean = expected[choice.question_id]
    assert (choice.reason.n, choice.reason.recall) == (n, pytest.approx(mean, abs=1e-3))


async def test_a_fit_that_no_longer_beats_the_defaults_puts_the_server_back_on_them(
    daily: DailyService, clock: Clock
) -> None:
    await day(daily, clock, A, 0, "mx-01", {u: u % 3 != 0 for u in range(1, 9)})
    at = START + timedelta(days=2)
    clock.now = at
    assert await save_fit(daily.db, A, fitted(0.5), at, at + timedelta(days=7))
    assert await reschedule(daily.db, A) > 0
    await check(daily.db, A, at)  # under the server's own curve
    not_better = {"decision": "not_better", "parameters": None}
    assert not await save_fit(daily.db, A, not_better, at, at + timedelta(days=7))
    rules = await rules_for(daily.db, A)
    assert list(rules.scheduler.parameters) == list(SCHEDULER.parameters)
    assert await reschedule(daily.db, A) > 0
    await check(daily.db, A, at)  # the sums counted anew under the default curve


async def until_waiting(db: Database, connections: int, unless: asyncio.Task[Any]) -> None:
    """Until `connections` connections of this database wait for a lock (PostgreSQL), or
    `unless` is done; polled for at most 10 s."""
    query = (
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE wait_event_type = 'Lock' AND datname = current_database()"
    )
    for _ in range(1000):
        async with db.engine.connect() as conn:
            if unless.done() or (await conn.exec_driver_sql(query)).scalar_one() >= connections:
                return
        await asyncio.sleep(0.01)
    raise AssertionError(f"no {connections} connections waited for a lock")


@pytest.mark.postgres_only
async def test_a_grade_racing_a_refit_to_another_decay_is_counted_once(
    daily: DailyService, clock: Clock, bank: QuizBank
) -> None:
    # Member 1 of A (counted) answers ac-03, which nobody in A has a card of: the grade
    # creates A's row for it. The grade is held just before that insert (another
    # connection inserts the same row, uncommitted) while A adopts another decay.
    await day(daily, clock, A, 0, "mx-01", {u: True for u in range(1, 5)})
    at = START + timedelta(days=1)
    await check(daily.db, A, at)
    async with daily.db.engine.connect() as holder:
        await holder.exec_driver_sql(
            "INSERT INTO class_recall (guild_id, question_id, cards, sums, as_of)"
            " VALUES ($1, 'ac-03', 0, '[]', $2)",
            (A, at.replace(tzinfo=None)),
        )
        grade = asyncio.create_task(
            Reviews(daily.db, bank).record_grade(1, "ac-03", True, at, Source(QUIZ, "race"))
        )
        await until_waiting(daily.db, 1, unless=grade)
        refit = asyncio.create_task(save_fit(daily.db, A, fitted(0.5), at, at + timedelta(days=7)))
        # The refit either commits (it does not wait for the grade) or waits for it.
        await until_waiting(daily.db, 2, unless=refit)
        await holder.rollback()
    await asyncio.gather(grade, refit)
    # Whichever came first, the fold counts the member's card of ac-03 once.
    await check(daily.db, A, at)


async def test_the_upgrade_counts_anew_the_class_of_a_server_fitted_to_another_decay(
    daily: DailyService, clock: Clock
) -> None:
    # Before revision 0012 every server's sums followed the default curve, also A's,
    # whose fitted model has another decay.
    await daily.db.migrate_to("0011")
    await day(daily, clock, A, 0, "mx-01", {u: u % 3 != 0 for u in range(1, 9)})
    await day(daily, clock, B, 2, "mx-01", {u: u % 2 == 0 for u in range(5, 13)})
    at = START + timedelta(days=3)
    for guild in (A, B):
        await fold(daily.db, guild, at)
    async with daily.db.session() as session:
        model = await session.get(MemoryModel, A)
        assert model is not None
        model.parameters = fitted(0.5)["parameters"]
        session.add(model)
        await session.commit()
    await daily.db.migrate_to("head")
    async with daily.db.engine.connect() as conn:
        rows = await conn.exec_driver_sql(
            "SELECT guild_id, count(*), sum(CASE WHEN counted THEN 1 ELSE 0 END)"
            " FROM class_member GROUP BY guild_id ORDER BY guild_id"
        )
        assert [tuple(r) for r in rows] == [(A, 8, 0), (B, 8, 8)]
        rows = await conn.exec_driver_sql(
            "SELECT DISTINCT guild_id FROM class_recall ORDER BY guild_id"
        )
        assert [r[0] for r in rows] == [B]
    for guild in (A, B):  # counted in again under A's own curve by the next fold
        await check(daily.db, guild, at)
