"""The daily question chosen for the server: weakest first, no repeat within K days,
custom quizzes only in their own server, ties by the seeded rotation."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.common.schedule import choose_question
from bot.daily import configs_store, posts_store
from bot.daily.choice_rules import KNOWN, NEW, ROTATION, WEAK, Choice, Reason, choose, window_days
from bot.daily.service import DailyService
from bot.learning.recall_rules import ANSWERS, CARDS, Signal
from bot.quizbank import QuizBank
from testkit.times import Clock
from tests.support.db import make_quiz

DAY = date(2026, 5, 1)
START = datetime(2026, 5, 1, 1, 0, tzinfo=UTC)
GUILD, CHANNEL = 1, 10
MEMBERS = (1, 2, 3)
POOL = [f"q-{i:02d}" for i in range(1, 9)]


async def run_day(
    daily: DailyService,
    clock: Clock,
    guild_id: int,
    day: date,
    right: dict[int, bool],
    *,
    repeat_after: int = 5,
    question: str | None = None,
    settle: bool = True,
) -> Choice | None:
    """One day in a server: choose (or post `question`), members answer, settle."""
    clock.now = START + timedelta(days=(day - DAY).days)
    choice = None
    if question is None:
        choice = await daily.posts.choose(guild_id, day, None, repeat_after)
        question = choice.question_id
    reason = choice.reason.to_dict() if choice else None
    reveal = clock.now + timedelta(hours=20)
    post = await posts_store.claim(
        daily.db, guild_id, day, question, CHANNEL, reveal, daily.clock(), reason
    )
    assert post is not None and post.id is not None
    message_id = 1000 * guild_id + (day - DAY).days
    await daily.posts.set_message(post.id, message_id)
    found = await daily.answers.post_by_message(message_id)
    assert found is not None
    answer = daily.bank.question(question).answer
    for user, correct in right.items():
        await daily.answers.record(found, user, answer if correct else (answer + 1) % 3, clock())
    if settle:
        await daily.settling.settle(post.id, now=clock())
    return choice


def everyone(correct: bool) -> dict[int, bool]:
    return dict.fromkeys(MEMBERS, correct)


async def test_a_question_most_got_wrong_comes_back_first_once_k_days_have_passed(
    daily: DailyService, clock: Clock
) -> None:
    # Day 0: mx-01, and two of the three members get it wrong.
    await run_day(daily, clock, GUILD, DAY, {1: False, 2: False, 3: True}, question="mx-01")
    picked = []
    for offset in range(1, 7):  # K = 5: days 1..5 must do without it
        choice = await run_day(daily, clock, GUILD, DAY + timedelta(days=offset), everyone(True))
        assert choice is not None
        picked.append(choice.question_id)
    assert "mx-01" not in picked[:5]
    assert picked[5] == "mx-01"
    post = await posts_store.for_day(daily.db, GUILD, DAY + timedelta(days=6))
    assert post is not None and post.choice is not None
    reason = Reason.from_dict(post.choice)
    assert (reason.rule, reason.basis, reason.n, reason.members) == (WEAK, CARDS, 3, 3)
    assert reason.window == 5 and reason.recall is not None
    # Two forgotten cards and one right answer six days ago: well below FSRS's 90 %.
    assert 0.0 < reason.recall < 0.7
    # Until then the questions nobody had seen came before the well-answered ones.
    for offset in range(1, 6):
        post = await posts_store.for_day(daily.db, GUILD, DAY + timedelta(days=offset))
        assert post is not None and post.choice is not None
        assert post.choice["rule"] in (NEW, WEAK)


async def test_nothing_repeats_within_k_days(daily: DailyService, clock: Clock) -> None:
    rng = random.Random(7)
    k = 4
    posted: list[str] = []
    for offset in range(30):
        right = {m: rng.random() < 0.6 for m in MEMBERS}
        choice = await run_day(
            daily, clock, GUILD, DAY + timedelta(days=offset), right, repeat_after=k
        )
        assert choice is not None
        assert choice.question_id not in posted[-k:], (offset, posted[-k:])
        posted.append(choice.question_id)
    assert len(set(posted)) == 8  # the whole bank took part


async def test_k_is_capped_by_the_number_of_questions(daily: DailyService, clock: Clock) -> None:
    """accum has 3 questions: K = 30 acts as 2, so every day still has a question."""
    picked = []
    for offset in range(6):
        day = DAY + timedelta(days=offset)
        clock.now = START + timedelta(days=offset)
        choice = await daily.posts.choose(GUILD, day, "accum", 30)
        assert choice.reason.window == 2
        await posts_store.claim(
            daily.db, GUILD, day, choice.question_id, CHANNEL, clock.now, daily.clock()
        )
        picked.append(choice.question_id)
    assert sorted(picked[:3]) == sorted(picked[3:]) == ["ac-01", "ac-02", "ac-03"]
    assert window_days(30, 1) == 0 and window_days(5, 100) == 5


async def test_custom_quizzes_take_part_only_in_their_own_server(
    daily: DailyService, bank: QuizBank, clock: Clock
) -> None:
    bank.add(make_quiz("private", [0, 1], prefix="pv"), owner=111)
    # The same members answer in both servers; in 111 they all get pv-01 wrong.
    await run_day(daily, clock, 111, DAY, everyone(False), question="pv-01")
    await run_day(daily, clock, 222, DAY, everyone(True), question="mx-01")
    later = DAY + timedelta(days=6)
    clock.now = START + timedelta(days=6)
    own = await daily.posts.choose(111, later, None, 5)
    assert own.question_id == "pv-01" and own.reason.rule == WEAK
    for offset in range(6, 20):
        other = await daily.posts.choose(222, DAY + timedelta(days=offset), None, 5)
        assert not other.question_id.startswith("pv-")


async def test_without_cards_the_daily_accuracy_decides(daily: DailyService, clock: Clock) -> None:
    # Answers recorded but never settled: daily_answer rows, no review cards.
    for offset, question, right in [
        (0, "mx-02", {1: True, 2: False, 3: False}),
        (1, "mx-03", everyone(True)),
        (2, "ac-01", {1: True, 2: False}),
    ]:
        day = DAY + timedelta(days=offset)
        await run_day(daily, clock, GUILD, day, right, question=question, settle=False)
    clock.now = START + timedelta(days=10)
    first = await daily.posts.choose(GUILD, DAY + timedelta(days=10), None, 5)
    assert first.question_id == "mx-02"
    assert (first.reason.rule, first.reason.basis, first.reason.n) == (WEAK, ANSWERS, 3)
    assert first.reason.recall == pytest.approx(1 / 3, abs=1e-4)
    await posts_store.claim(
        daily.db, GUILD, DAY + timedelta(days=10), "mx-02", CHANNEL, clock.now, daily.clock()
    )
    clock.now = START + timedelta(days=11)
    second = await daily.posts.choose(GUILD, DAY + timedelta(days=11), None, 5)
    assert second.question_id == "ac-01"
    assert (second.reason.recall, second.reason.n) == (0.5, 2)


async def test_members_inactive_for_30_days_no_longer_count(
    daily: DailyService, clock: Clock
) -> None:
    await run_day(daily, clock, GUILD, DAY, everyone(False), question="mx-01")
    clock.now = START + timedelta(days=31)
    choice = await daily.posts.choose(GUILD, DAY + timedelta(days=31), None, 5)
    assert choice.reason.rule == ROTATION and choice.reason.members == 0


# --- the rule as numbers ------------------------------------------------------------


def test_weak_then_unseen_then_well_known() -> None:
    signals = {
        "q-01": Signal(0.95, CARDS, 4),
        "q-02": Signal(0.60, CARDS, 2),
        "q-03": Signal(0.30, ANSWERS, 3),
    }
    pool = ["q-01", "q-02", "q-03", "q-04"]
    first = choose(GUILD, DAY, pool, [], signals, 30, members=5)
    assert first.question_id == "q-03" and first.reason.rule == WEAK
    history = [(DAY - timedelta(days=1), "q-03"), (DAY - timedelta(days=2), "q-02")]
    second = choose(GUILD, DAY, pool, history, signals, 30, members=5)
    assert second.question_id == "q-04" and second.reason.rule == NEW
    history.append((DAY - timedelta(days=3), "q-04"))
    third = choose(GUILD, DAY, pool, history, signals, 30, members=5)
    assert (third.question_id, third.reason.rule, third.reason.recall) == ("q-01", KNOWN, 0.95)
    assert (third.reason.window, third.reason.candidates, third.reason.tied) == (3, 1, 1)


def test_ties_follow_the_seeded_rotation() -> None:
    signals = {q: Signal(0.5, CARDS, 3) for q in ("q-02", "q-05", "q-07")}
    signals["q-01"] = Signal(0.8, CARDS, 3)
    history = [(DAY - timedelta(days=40), "q-05")]
    seen = set()
    for offset in range(20):
        day = DAY + timedelta(days=offset)
        choice = choose(GUILD, day, POOL, history, signals, 30, members=3)
        expected = choose_question(GUILD, day, ["q-02", "q-05", "q-07"], ["q-05"])
        assert choice.question_id == expected
        assert choice.reason.tied == 3
        seen.add(choice.question_id)
    assert seen == {"q-02", "q-07"}  # the rotation's cycle: q-05 was used already
    # No data at all: the rotation alone, as before this rule.
    for offset in range(10):
        day = DAY + timedelta(days=offset)
        choice = choose(GUILD, day, POOL, [], {}, 30, members=0)
        assert choice.question_id == choose_question(GUILD, day, POOL, [])
        assert choice.reason.rule == ROTATION and choice.reason.tied == 8


def test_reason_round_trips_through_json() -> None:
    reason = choose(GUILD, DAY, POOL, [], {"q-03": Signal(0.25, CARDS, 2)}, 7, 4).reason
    assert Reason.from_dict(reason.to_dict()) == reason
    assert reason.to_dict() == {
        "rule": WEAK,
        "members": 4,
        "window": 7,
        "candidates": 8,
        "tied": 1,
        "basis": CARDS,
        "recall": 0.25,
        "n": 2,
    }


async def test_repeat_after_defaults_to_30_and_is_kept_when_left_out(daily: DailyService) -> None:
    first = await daily.configs.configure(GUILD, CHANNEL, "08:00", "Asia/Jakarta")
    assert first.repeat_after_days == 30
    await daily.configs.configure(GUILD, CHANNEL, "08:00", "Asia/Jakarta", repeat_after=7)
    kept = await daily.configs.configure(GUILD, CHANNEL, "09:00", "Asia/Jakarta")
    assert (kept.post_time, kept.repeat_after_days) == ("09:00", 7)
    config = await configs_store.get(daily.db, GUILD)
    assert config is not None and config.repeat_after_days == 7
