"""The daily question service over a real SQLite file."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.common.errors import StopReason, UserError
from bot.daily import analytics_store, configs_store, posts_store, streaks_store
from bot.daily.service import DailyService
from bot.daily.types import AnswerStatus, OpenPost
from bot.db.database import Database
from bot.db.tables.daily import DailyPost
from bot.quizbank import QuizBank

NOW = datetime(2026, 5, 1, 1, 0, tzinfo=UTC)  # 08:00 in Jakarta
DAY = date(2026, 5, 1)
GUILD, CHANNEL = 1, 10
# Question mx-01 of the `bank` fixture: 3 choices, the correct one is index 0.
RIGHT, WRONG = 0, 2


async def posted(
    daily: DailyService, day: date = DAY, message_id: int = 500, question: str = "mx-01"
) -> OpenPost:
    """Claim, "post" and return the open post of `day`."""
    post = await posts_store.claim(
        daily.db,
        GUILD,
        day,
        question,
        CHANNEL,
        datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=23),
        daily.clock(),
    )
    assert post is not None and post.id is not None
    await daily.posts.set_message(post.id, message_id)
    found = await daily.answers.post_by_message(message_id)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("change", "key", "params"),
    [
        ({"time": "25:99"}, "daily.bad_time", {"value": "25:99"}),
        ({"timezone": "Mars/Olympus"}, "daily.bad_timezone", {"value": "Mars/Olympus"}),
        ({"reveal_after": 30}, "daily.bad_reveal_after", {"value": 30, "min": 1, "max": 23}),
        (
            {"topic": "cooking"},
            "daily.unknown_topic",
            {"topic": "cooking", "available": "accum, mixed"},
        ),
        ({"locale": "fr"}, "daily.bad_locale", {"value": "fr", "allowed": "id, en"}),
        ({"repeat_after": 0}, "daily.bad_repeat_after", {"value": 0, "min": 1, "max": 365}),
        ({"repeat_after": 400}, "daily.bad_repeat_after", {"value": 400, "min": 1, "max": 365}),
    ],
)
async def test_configure_refuses_bad_input(
    daily: DailyService, change: dict[str, object], key: str, params: dict[str, object]
) -> None:
    args: dict[str, object] = {
        "time": "08:00",
        "timezone": "Asia/Jakarta",
        "topic": None,
        "reveal_after": None,
        "locale": "id",
    }
    args.update(change)
    with pytest.raises(UserError) as caught:
        await daily.configs.configure(GUILD, CHANNEL, **args)  # type: ignore[arg-type]
    assert (caught.value.key, caught.value.params) == (key, params)
    assert await daily.configs.status(GUILD) is None


async def test_configure_status_disable_and_reconfigure(daily: DailyService) -> None:
    await daily.configs.configure(GUILD, CHANNEL, "9:30", "Asia/Jakarta", "mixed", 3, "en")
    status = await daily.configs.status(GUILD)
    assert status is not None
    assert (status.config.post_time, status.config.topic, status.config.reveal_after_hours) == (
        "09:30",
        "mixed",
        3,
    )
    assert status.next_post_at == datetime(2026, 5, 1, 2, 30, tzinfo=UTC)
    assert [c.guild_id for c in await configs_store.enabled(daily.db)] == [GUILD]

    assert await configs_store.disable(daily.db, GUILD, StopReason.FORBIDDEN, daily.clock())
    status = await daily.configs.status(GUILD)
    assert status is not None and status.next_post_at is None
    assert (status.config.enabled, status.config.disabled_reason, status.config.admin_notified) == (
        False,
        "forbidden",
        False,
    )
    await configs_store.mark_admin_notified(daily.db, GUILD)
    config = await configs_store.get(daily.db, GUILD)
    assert config is not None and config.admin_notified
    assert await configs_store.enabled(daily.db) == []

    await daily.configs.configure(GUILD, CHANNEL, "08:00", "Asia/Jakarta")
    config = await configs_store.get(daily.db, GUILD)
    assert config is not None and config.enabled and config.disabled_reason is None
    assert not await configs_store.disable(daily.db, 999, None, daily.clock())


async def test_exactly_one_post_per_day_across_two_processes(
    daily: DailyService, bank: QuizBank, open_db: Callable[[], Awaitable[Database]]
) -> None:
    other = DailyService(await open_db(), bank, clock=lambda: NOW)
    reveal = NOW + timedelta(hours=23)
    claims = await asyncio.gather(
        *(
            posts_store.claim(service.db, GUILD, DAY, "mx-01", CHANNEL, reveal, service.clock())
            for _ in range(5)
            for service in (daily, other)
        )
    )
    assert sum(claim is not None for claim in claims) == 1
    # Another guild and another day are independent.
    assert (
        await posts_store.claim(other.db, 2, DAY, "mx-01", CHANNEL, reveal, other.clock())
        is not None
    )
    assert (
        await posts_store.claim(
            daily.db, GUILD, DAY + timedelta(days=1), "mx-02", CHANNEL, reveal, daily.clock()
        )
        is not None
    )


async def test_release_claim_lets_the_day_be_claimed_again(daily: DailyService) -> None:
    post = await posts_store.claim(
        daily.db, GUILD, DAY, "mx-01", CHANNEL, NOW + timedelta(hours=1), daily.clock()
    )
    assert post is not None and post.id is not None
    await posts_store.release_claim(daily.db, post.id)
    assert (
        await posts_store.claim(
            daily.db, GUILD, DAY, "mx-01", CHANNEL, NOW + timedelta(hours=1), daily.clock()
        )
        is not None
    )


async def test_post_lookup_by_message(
    daily: DailyService, bank: QuizBank, open_db: Callable[[], Awaitable[Database]]
) -> None:
    await daily.configs.configure(GUILD, CHANNEL, "08:00", "Asia/Jakarta")
    post = await posted(daily)
    assert (post.guild_id, post.day, post.question_id, post.message_id) == (
        GUILD,
        DAY,
        "mx-01",
        500,
    )
    assert await posts_store.for_day(daily.db, GUILD, DAY) is not None
    assert await posts_store.last_post_days(daily.db) == {GUILD: DAY}
    assert [p.message_id for p in await posts_store.open_posts(daily.db)] == [500]
    # An unrelated message in a channel without daily posts: answered without a query.
    assert await daily.answers.post_by_message(12345, channel_id=777) is None
    # A process that did not make the post finds it through the index.
    other = DailyService(await open_db(), bank, clock=lambda: NOW)
    assert await other.answers.post_by_message(500) == post
    assert await other.answers.post_by_message(501) is None


async def test_first_answer_wins_and_duplicates_are_ignored(daily: DailyService) -> None:
    post = await posted(daily)
    first = await daily.answers.record(post, 1, WRONG)
    assert (first.status, first.correct) == (AnswerStatus.RECORDED, False)
    assert (await daily.answers.record(post, 1, RIGHT)).status is AnswerStatus.DUPLICATE
    assert (await daily.answers.record(post, 2, RIGHT)).correct is True
    assert (await daily.answers.record(post, 3, 7)).status is AnswerStatus.INVALID
    # A burst of one member's reactions: exactly one counts.
    burst = await asyncio.gather(*(daily.answers.record(post, 4, choice) for choice in (1, 0, 2)))
    assert [o.status for o in burst] == [
        AnswerStatus.RECORDED,
        AnswerStatus.DUPLICATE,
        AnswerStatus.DUPLICATE,
    ]
    summary = await daily.settling.settle(post.post_id)
    assert summary.distribution == [1, 1, 1]
    assert (summary.answered, summary.correct, summary.correct_choice) == (3, 1, RIGHT)


async def test_answers_after_reveal_time_or_settle_are_ignored(daily: DailyService) -> None:
    post = await posted(daily)
    late = await daily.answers.record(post, 1, RIGHT, now=post.reveal_at)
    assert late.status is AnswerStatus.CLOSED
    await daily.settling.settle(post.post_id)
    assert (await daily.answers.record(post, 2, RIGHT)).status is AnswerStatus.CLOSED
    assert await daily.answers.post_by_message(post.message_id) is None


async def test_recover_answers_in_reaction_order_idempotently(daily: DailyService) -> None:
    post = await posted(daily)
    reactions = [(1, RIGHT), (2, WRONG), (1, WRONG), (3, 9)]
    assert await daily.answers.recover(post, reactions) == 2
    assert await daily.answers.recover(post, reactions) == 0
    summary = await daily.settling.settle(post.post_id)
    assert (summary.answered, summary.correct, summary.distribution) == (2, 1, [1, 0, 1])
    assert await daily.answers.recover(post, [(5, RIGHT)]) == 0


async def test_settle_is_idempotent(daily: DailyService, db: Database) -> None:
    post = await posted(daily)
    await daily.answers.record(post, 1, RIGHT)
    first = await daily.settling.settle(post.post_id)
    streak_after_first = await streaks_store.member_streak(db, GUILD, 1)
    again = await daily.settling.settle(post.post_id, now=NOW + timedelta(days=1))
    assert again == first
    assert await streaks_store.member_streak(db, GUILD, 1) == streak_after_first
    assert streak_after_first.current == 1
    assert await posts_store.open_posts(daily.db) == []


async def test_concurrent_settle_from_two_processes_applies_once(
    daily: DailyService, bank: QuizBank, db: Database, open_db: Callable[[], Awaitable[Database]]
) -> None:
    other = DailyService(await open_db(), bank, clock=lambda: NOW)
    post = await posted(daily)
    await daily.answers.record(post, 1, RIGHT)
    a, b = await asyncio.gather(
        daily.settling.settle(post.post_id), other.settling.settle(post.post_id)
    )
    assert a == b
    streak = await streaks_store.member_streak(db, GUILD, 1)
    assert (streak.current, streak.answered) == (1, 1)


async def test_streaks_end_on_wrong_and_missed_questions_at_settle(
    daily: DailyService, db: Database
) -> None:
    answers = {  # day -> {user: choice}; mx-01..03 have correct answers 0, 1, 2
        0: {1: 0, 2: 0, 3: 0},
        1: {1: 1, 2: 1, 3: 0},  # user 3 wrong
        2: {1: 2},  # user 2 missed the question
    }
    summaries = []
    for offset, day_answers in answers.items():
        post = await posted(daily, DAY + timedelta(days=offset), 500 + offset, f"mx-0{offset + 1}")
        for user, choice in day_answers.items():
            await daily.answers.record(post, user, choice)
        summaries.append(await daily.settling.settle(post.post_id))
    assert [(await streaks_store.member_streak(db, GUILD, user)).current for user in (1, 2, 3)] == [
        3,
        0,
        0,
    ]
    assert [(await streaks_store.member_streak(db, GUILD, user)).longest for user in (1, 2, 3)] == [
        3,
        2,
        1,
    ]
    user3 = await streaks_store.member_streak(db, GUILD, 3)
    assert (user3.answered, user3.correct) == (2, 1)
    assert summaries[1].new_bests == [(1, 2), (2, 2)]
    assert summaries[2].new_bests == [(1, 3)]
    # A day without a post (bot down) does not break a streak: only questions count.
    post = await posted(daily, DAY + timedelta(days=5), 600, "mx-04")
    await daily.answers.record(post, 1, 1)
    await daily.settling.settle(post.post_id)
    assert (await streaks_store.member_streak(db, GUILD, 1)).current == 4


async def test_milestone_reached_on_the_seventh_day(daily: DailyService) -> None:
    correct = {"mx-01": 0, "mx-02": 1, "mx-03": 2, "mx-04": 1, "mx-05": 0}
    summary = None
    for offset in range(7):
        question = f"mx-0{offset % 5 + 1}"
        post = await posted(daily, DAY + timedelta(days=offset), 700 + offset, question)
        await daily.answers.record(post, 1, correct[question])
        summary = await daily.settling.settle(post.post_id)
    assert summary is not None
    assert summary.milestones == [(1, 7)]
    assert summary.new_bests == [(1, 7)]


async def test_the_choice_rotates_through_the_topic(daily: DailyService) -> None:
    picked = []
    for offset in range(3):
        day = DAY + timedelta(days=offset)
        question = (await daily.posts.choose(GUILD, day, "accum")).question_id
        assert question == (await daily.posts.choose(GUILD, day, "accum")).question_id
        await posts_store.claim(daily.db, GUILD, day, question, CHANNEL, NOW, daily.clock())
        picked.append(question)
    assert sorted(picked) == ["ac-01", "ac-02", "ac-03"]


async def test_guild_overview(daily: DailyService) -> None:
    first = await posted(daily, DAY, 800, "mx-01")
    await daily.answers.record(first, 1, RIGHT)
    await daily.answers.record(first, 2, WRONG)
    second = await posted(daily, DAY + timedelta(days=1), 801, "mx-02")
    await daily.answers.record(second, 1, 1)
    await posts_store.claim(
        daily.db, GUILD, DAY + timedelta(days=2), "mx-03", CHANNEL, NOW, daily.clock()
    )  # nobody answered
    overview = await analytics_store.guild_overview(daily.db, GUILD, 14)
    assert [(d.day.day, d.question_id, d.answered, d.correct) for d in overview.days] == [
        (3, "mx-03", 0, 0),
        (2, "mx-02", 1, 1),
        (1, "mx-01", 2, 1),
    ]
    assert (overview.members, overview.answered, overview.correct) == (2, 3, 2)
    assert overview.accuracy == pytest.approx(2 / 3)
    empty = await analytics_store.guild_overview(daily.db, 99, 14)
    assert (empty.days, empty.answered, empty.accuracy) == ([], 0, None)


async def test_due_reveals(daily: DailyService) -> None:
    post = await posted(daily)
    assert await posts_store.due_reveals(daily.db, post.reveal_at - timedelta(seconds=1)) == []
    due = await posts_store.due_reveals(daily.db, post.reveal_at)
    assert [p.id for p in due] == [post.post_id]
    assert isinstance(due[0], DailyPost)


async def test_a_servers_own_quiz_never_feeds_another_servers_daily(
    daily: DailyService, bank: QuizBank
) -> None:
    from tests.support.db import make_quiz

    bank.add(make_quiz("private", [0, 1], prefix="pv"), owner=111)  # uploaded by server 111
    for offset in range(12):
        day = date(2026, 1, 1) + timedelta(days=offset)
        assert not (await daily.posts.choose(222, day, None)).question_id.startswith("pv-")
    picked = {
        (await daily.posts.choose(111, date(2026, 1, 1) + timedelta(days=d), None)).question_id
        for d in range(10)
    }
    assert any(q.startswith("pv-") for q in picked)


async def test_answers_still_queued_at_the_reveal_count_in_it(daily: DailyService) -> None:
    """An answer graded just before the close must not miss the reveal and the streak."""
    post = await posted(daily)
    queued = [daily.answers.record_nowait(post, user, RIGHT) for user in range(100, 150)]
    assert all(isinstance(q, tuple) for q in queued)  # graded and queued, not yet committed
    summary = await daily.settling.settle(post.post_id)
    assert (summary.answered, summary.correct) == (50, 50)
    assert (await streaks_store.member_streak(daily.db, GUILD, 120)).current == 1


async def test_one_visibility_rule_refuses_another_servers_quiz_as_a_daily_topic(
    daily: DailyService, bank: QuizBank
) -> None:
    from tests.support.db import make_quiz

    bank.add(make_quiz("private", [0, 1], prefix="pv"), owner=111)
    with pytest.raises(UserError) as refused:
        await daily.configs.configure(222, 10, "07:30", "Asia/Jakarta", topic="private")
    assert refused.value.key == "daily.unknown_topic"
    assert refused.value.params == {"topic": "private", "available": "accum, mixed"}
    config = await daily.configs.configure(111, 10, "07:30", "Asia/Jakarta", topic="private")
    assert config.topic == "private"
