"""The class recall the daily choice reads (issue 27): running sums per (server, question)
that follow every graded answer, members joining and members going quiet, and agree with
the mean retrievability of the active members' cards computed card by card."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import col, select

from bot.daily import posts_store
from bot.daily.service import DailyService
from bot.db.database import Database
from bot.db.tables.daily import DailyAnswer, DailyPost
from bot.db.tables.learning import MemoryModel
from bot.db.tables.review import ReviewCard
from bot.learning.memory_store import reschedule
from bot.learning.recall_rules import (
    ACTIVE_DAYS,
    CARDS,
    SUMS,
    X_MAX,
    X_MIN,
    RecallSums,
    add_terms,
    days,
)
from bot.learning.recall_store import fold, signals
from bot.learning.review import Reviews
from bot.learning.review_rules import QUIZ, SCHEDULER, Source
from bot.quizbank import QuizBank
from testkit.times import Clock

START = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
A, B = 1, 2  # servers
QUESTIONS = ["ac-01", "ac-02", "ac-03", "mx-01", "mx-02", "mx-03", "mx-04", "mx-05"]


def test_the_sums_follow_the_forgetting_curve() -> None:
    rng = random.Random(5)
    worst = 0.0
    for _ in range(5000):
        x = math.exp(rng.uniform(math.log(X_MIN), math.log(X_MAX)))
        approx = sum(w * math.exp(-r * x) for w, r in zip(SUMS.weights, SUMS.rates, strict=True))
        worst = max(worst, abs(approx / x**SUMS.decay - 1))
    assert worst < 4e-4
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


async def exact_signals(
    db: Database, guild_id: int, now: datetime
) -> tuple[int, dict[str, tuple[int, float]]]:
    """The rule, card by card: members with a daily answer in the server in the last
    ACTIVE_DAYS days, the mean retrievability now of their cards per question."""
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
        found.setdefault(card.question_id, []).append(
            SUMS.exact(card.card["stability"], days(card.last_review), days(now))
        )
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
    async with db.engine.connect() as conn:
        got_members, got, _ = await signals(conn, guild_id, QUESTIONS, at)
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
    async with daily.db.engine.connect() as conn:
        members, got, _ = await signals(conn, A, QUESTIONS, START + timedelta(days=60))
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
