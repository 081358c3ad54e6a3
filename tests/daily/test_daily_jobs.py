"""The daily driver (bot.daily.jobs) with a fake publisher, a real SQLite file and a
hand-moved clock. Job functions are called directly; APScheduler only holds them."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.date import DateTrigger
from sqlmodel import select

from bot.common.errors import StopReason
from bot.common.schedule import next_post_at
from bot.daily import configs_store, posts_store
from bot.daily.configs import schedule_for
from bot.daily.jobs import DailyJobs, guild_job_id, reveal_job_id
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.daily.service import DailyService
from bot.daily.types import AnswerStatus, shown_position
from bot.db.tables.daily import DailyAnswer, DailyPost, GuildDailyConfig
from bot.quizbank import QuizBank
from testkit.times import Clock
from tests.support.driver import (
    BOT,
    CH1,
    DAY1,
    G1,
    G2,
    T0,
    FakePublisher,
    configure,
    post_of,
)


def right_and_wrong(bank: QuizBank, post: DailyPost) -> tuple[int, int]:
    """The right and a wrong choice as shown on the post (its choices are shuffled)."""
    answer = bank.question(post.question_id).answer
    right = shown_position(post.choice_order, answer)
    return right, (right + 1) % 3


async def test_one_cron_job_per_guild_in_its_zone(
    daily: DailyService, jobs: DailyJobs, clock: Clock
) -> None:
    clock.now = T0 - timedelta(hours=1)  # before the post time: no catch-up
    await configure(daily, G1)
    await configure(daily, G2, time="21:05", timezone="America/Los_Angeles")
    await jobs.start()
    scheduler = jobs.scheduler
    assert scheduler is not None
    for guild_id, zone, hour, minute in [
        (G1, "Asia/Jakarta", "7", "30"),
        (G2, "America/Los_Angeles", "21", "5"),
    ]:
        job = scheduler.get_job(guild_job_id(guild_id))
        assert job is not None and job.args == (guild_id,)
        assert isinstance(job.trigger, CronTrigger)
        assert job.trigger.timezone == ZoneInfo(zone)
        fields = {f.name: str(f) for f in job.trigger.fields}
        assert (fields["hour"], fields["minute"]) == (hour, minute)
        assert job.coalesce and job.misfire_grace_time and job.max_instances == 1
    # Reconfiguring replaces the job instead of adding a second one.
    jobs.schedule_guild(await configure(daily, G1, time="08:00"))
    # The two guilds' jobs, and the outbox's retry job.
    assert sorted(j.id for j in scheduler.get_jobs()) == ["daily:1", "daily:2", "outbox"]


async def test_next_run_time_is_the_right_utc_instant_across_dst() -> None:
    from bot.common.schedule import post_trigger

    scheduler = AsyncIOScheduler(timezone=UTC)
    scheduler.start()
    try:
        before_change = datetime(2026, 10, 31, 20, 0, tzinfo=UTC)  # 13:00 in LA, PDT
        for zone, first, second in [
            # Jakarta has no DST: 07:30 WIB is always 00:30 UTC.
            ("Asia/Jakarta", datetime(2026, 11, 1, 0, 30), datetime(2026, 11, 2, 0, 30)),
            # LA falls back at 02:00 on 2026-11-01: 07:30 is PST (UTC-8) from then on.
            ("America/Los_Angeles", datetime(2026, 11, 1, 15, 30), datetime(2026, 11, 2, 15, 30)),
        ]:
            config = GuildDailyConfig(guild_id=G1, channel_id=CH1, post_time="07:30", timezone=zone)
            job = scheduler.add_job(
                lambda: None, post_trigger(schedule_for(config)), id=zone, replace_existing=True
            )
            # The running scheduler computed the next run from the real clock, as the
            # schedule module does.
            assert job.next_run_time == next_post_at(datetime.now(UTC), schedule_for(config))
            fire = job.trigger.get_next_fire_time(None, before_change)
            assert fire == first.replace(tzinfo=UTC)
            assert fire == next_post_at(before_change, schedule_for(config))
            assert job.trigger.get_next_fire_time(fire, fire + timedelta(seconds=1)) == (
                second.replace(tzinfo=UTC)
            )
    finally:
        scheduler.shutdown(wait=False)


async def test_post_claim_grade_and_reveal(
    daily: DailyService, jobs: DailyJobs, publisher: FakePublisher, clock: Clock, bank: QuizBank
) -> None:
    await configure(daily, reveal_after=2)
    await jobs.run_post_job(G1)
    post = await post_of(daily, G1, DAY1)
    assert publisher.posts == [(G1, DAY1, post.question_id, post.message_id)]
    assert ("reactions", post.message_id) in publisher.events
    assert post.reveal_at == T0 + timedelta(hours=2)
    assert jobs.scheduler is not None
    reveal_job = jobs.scheduler.get_job(reveal_job_id(post.id))  # type: ignore[arg-type]
    assert reveal_job is not None and isinstance(reveal_job.trigger, DateTrigger)
    assert reveal_job.trigger.run_date == post.reveal_at

    right, wrong = right_and_wrong(bank, post)
    mid = post.message_id
    assert mid is not None
    assert (
        await jobs.reactions.on_reaction(mid, CH1, 1, ANSWER_EMOJI[right]) is AnswerStatus.RECORDED
    )
    assert (
        await jobs.reactions.on_reaction(mid, CH1, 2, ANSWER_EMOJI[wrong]) is AnswerStatus.RECORDED
    )
    assert (
        await jobs.reactions.on_reaction(mid, CH1, 2, ANSWER_EMOJI[right]) is AnswerStatus.DUPLICATE
    )
    assert await jobs.reactions.on_reaction(mid, CH1, BOT, ANSWER_EMOJI[0]) is None
    assert await jobs.reactions.on_reaction(mid, CH1, 3, "👍") is None
    assert (
        await jobs.reactions.on_reaction(mid + 1, CH1, 3, ANSWER_EMOJI[0]) is None
    )  # another message
    assert jobs.reactions.seen.count == 6

    # A second run the same day (a restart, a late duplicate job) posts nothing.
    await jobs.run_post_job(G1)
    assert len(publisher.posts) == 1

    clock.now = post.reveal_at
    await jobs.run_reveal_job(post.id)
    [summary] = publisher.reveals
    assert (summary.answered, summary.correct) == (2, 1)
    # The distribution is kept per choice as written in the file.
    order = post.choice_order
    assert order is not None and sorted(order) == [0, 1, 2]
    assert summary.distribution[order[right]] == 1 and summary.distribution[order[wrong]] == 1
    assert summary.correct_choice == order[right]
    assert jobs.scheduler.get_job(reveal_job_id(post.id)) is None  # type: ignore[arg-type]
    await jobs.run_reveal_job(post.id)
    assert len(publisher.reveals) == 1  # revealed once
    assert await jobs.reactions.on_reaction(mid, CH1, 4, ANSWER_EMOJI[right]) is None  # closed


async def test_default_reveal_comes_just_before_the_next_post(
    daily: DailyService, jobs: DailyJobs, publisher: FakePublisher, clock: Clock
) -> None:
    await configure(daily)
    await jobs.run_post_job(G1)
    first = await post_of(daily, G1, DAY1)
    assert first.reveal_at == T0 + timedelta(days=1, minutes=-1)

    clock.now = T0 + timedelta(days=1)
    await jobs.run_post_job(G1)
    kinds = [kind for kind, _ in publisher.events]
    assert kinds == ["post", "reactions", "reveal", "post", "reactions"]
    assert publisher.reveals[0].day == DAY1
    assert publisher.posts[1][1] == date(2026, 5, 2)
    assert publisher.posts[1][2] != first.question_id  # no question twice in a row


async def test_catch_up_once_and_never_for_a_finished_day(
    daily: DailyService,
    make_daily: Callable[[], Awaitable[DailyService]],
    publisher: FakePublisher,
    clock: Clock,
    make_jobs: Callable[[DailyService], DailyJobs],
) -> None:
    await configure(daily, G1)
    await configure(daily, G2, reveal_after=2)
    # Started at 10:30 Jakarta: G1's question (open until tomorrow) is still worth
    # posting; G2's was due for reveal at 09:30, so its day is over.
    clock.now = T0 + timedelta(hours=3)
    await make_jobs(daily).start()
    assert [(g, d) for g, d, _, _ in publisher.posts] == [(G1, DAY1)]

    # A restart (a new process on the same file) does not post again.
    await make_jobs(await make_daily()).start()
    assert len(publisher.posts) == 1

    # Down the whole next day until before its post time: day 2 is not posted late.
    clock.now = T0 + timedelta(days=2, hours=-1)
    await make_jobs(await make_daily()).start()
    assert [d for _, d, _, _ in publisher.posts] == [DAY1]
    # ...but day 1's question, overdue now, is revealed at start.
    assert [s.day for s in publisher.reveals] == [DAY1]


async def test_two_drivers_on_one_database_post_once(
    daily: DailyService,
    make_daily: Callable[[], Awaitable[DailyService]],
    publisher: FakePublisher,
    clock: Clock,
    make_jobs: Callable[[DailyService], DailyJobs],
) -> None:
    await configure(daily)
    other = make_jobs(await make_daily())
    await asyncio.gather(make_jobs(daily).run_post_job(G1), other.run_post_job(G1))
    assert len(publisher.posts) == 1
    # /daily now in the other process finds the post and links to it.
    result = await other.post_today(G1)
    assert not result.created and result.post is not None
    assert result.post.message_id == publisher.posts[0][3]


async def test_refused_post_disables_only_that_guild(
    daily: DailyService, jobs: DailyJobs, publisher: FakePublisher, clock: Clock
) -> None:
    await configure(daily, G1)
    await configure(daily, G2)
    clock.now = T0 - timedelta(hours=1)
    await jobs.start()  # registers both guild jobs (07:30 is not past yet: no catch-up)
    assert publisher.posts == []
    clock.now = T0
    publisher.refuse[CH1] = StopReason.FORBIDDEN
    await asyncio.gather(jobs.run_post_job(G1), jobs.run_post_job(G2))

    assert [g for g, _, _, _ in publisher.posts] == [G2]
    config = await configs_store.get(daily.db, G1)
    assert config is not None and not config.enabled and config.disabled_reason == "forbidden"
    assert not config.admin_notified
    assert await posts_store.for_day(daily.db, G1, DAY1) is None  # the claim was given back
    assert jobs.scheduler is not None
    assert jobs.scheduler.get_job(guild_job_id(G1)) is None
    assert jobs.scheduler.get_job(guild_job_id(G2)) is not None
    # Reconfiguring (the admin fixed the permission) posts again.
    publisher.refuse.clear()
    await configure(daily, G1)
    assert (await jobs.post_today(G1)).created


async def test_server_error_frees_the_day_for_a_retry(
    daily: DailyService, jobs: DailyJobs, publisher: FakePublisher
) -> None:
    await configure(daily)
    publisher.broken.add(CH1)
    await jobs.run_post_job(G1)  # logged, not raised
    assert await posts_store.for_day(daily.db, G1, DAY1) is None
    config = await configs_store.get(daily.db, G1)
    assert config is not None and config.enabled
    publisher.broken.clear()
    assert (await jobs.post_today(G1)).created


async def test_offline_reactions_are_recovered_once(
    daily: DailyService,
    jobs: DailyJobs,
    publisher: FakePublisher,
    clock: Clock,
    bank: QuizBank,
    new_jobs: Callable[[], Awaitable[DailyJobs]],
) -> None:
    await configure(daily)
    await jobs.run_post_job(G1)
    post = await post_of(daily, G1, DAY1)
    right, wrong = right_and_wrong(bank, post)
    assert post.message_id is not None
    await jobs.reactions.on_reaction(
        post.message_id, CH1, 1, ANSWER_EMOJI[right]
    )  # live, before the stop
    publisher.reactions[post.message_id] = [
        (BOT, 0),  # the bot's own
        (1, wrong),  # member 1 had answered live already
        (2, right),
        (3, right),  # member 3 reacted with two answers: ambiguous, not counted
        (3, wrong),
    ]
    clock.now = T0 + timedelta(hours=5)
    restarted = await new_jobs()
    await restarted.start()
    again = await new_jobs()
    await again.start()
    assert await again.reactions.recover(post) == 0  # idempotent

    async with daily.db.session() as session:
        rows = (await session.exec(select(DailyAnswer).where(DailyAnswer.post_id == post.id))).all()
    # Read back by shown letter, stored as the choice as written (the post's order).
    assert post.choice_order is not None
    written = post.choice_order[right]
    assert written == bank.question(post.question_id).answer
    assert {(a.user_id, a.choice, a.correct) for a in rows} == {
        (1, written, True),
        (2, written, True),
    }
    # The restarted process re-created the reveal job of the open post.
    assert restarted.scheduler is not None
    assert restarted.scheduler.get_job(reveal_job_id(post.id)) is not None  # type: ignore[arg-type]


async def test_a_process_schedules_only_the_guilds_of_its_shards(
    daily: DailyService, publisher: FakePublisher, clock: Clock
) -> None:
    from pathlib import Path

    from bot.discord.client import QuizTutorBot
    from testkit.bots import make_settings

    bot = QuizTutorBot(make_settings(Path("."), shard_count=2, shard_ids=[1]))
    assert [bot.owns_guild(g) for g in (0 << 22, 1 << 22, 2 << 22, 3 << 22)] == [
        False,
        True,
        False,
        True,
    ]
    clock.now = T0 - timedelta(hours=1)
    even, odd = 10 << 22, 11 << 22
    await configure(daily, even)
    await configure(daily, odd)
    scheduler = AsyncIOScheduler(timezone=UTC)
    scheduler.start(paused=True)
    try:
        jobs = DailyJobs(daily, publisher, scheduler, clock=clock, owns_guild=bot.owns_guild)
        await jobs.start()
        guild_jobs = [job.id for job in scheduler.get_jobs() if job.id != "outbox"]
        assert guild_jobs == [guild_job_id(odd)]
    finally:
        scheduler.shutdown(wait=False)


# -- the outbox: what is owed to a channel is delivered once, whatever fails --------


async def test_a_failed_reveal_is_kept_and_sent_once_later_also_after_a_restart(
    daily: DailyService,
    jobs: DailyJobs,
    publisher: FakePublisher,
    clock: Clock,
    new_jobs: Callable[[], Awaitable[DailyJobs]],
) -> None:
    await configure(daily)
    await jobs.run_post_job(G1)
    publisher.failing_reveals = 1  # Discord answers 503 (discord.py does not retry it)
    summary = await jobs.reveal_open(G1)
    assert summary is not None and summary.day == DAY1  # settled all the same
    assert publisher.reveals == []
    (owed,) = await jobs.outbox.pending(G1)
    assert owed.kind == "reveal" and owed.attempts == 1 and "503" in (owed.last_error or "")
    # Nothing is left to reveal, but the announcement is still owed.
    assert await jobs.reveal_open(G1) is None
    assert await jobs.run_outbox_job() == 0  # not due before its backoff
    assert publisher.reveals == []

    # The process dies; a new one on the same database sends what is owed, once.
    clock.now += timedelta(minutes=1)
    restarted = await new_jobs()
    await restarted.start()
    assert [s.day for s in publisher.reveals] == [DAY1]
    assert await jobs.run_outbox_job() == 0
    assert await restarted.run_outbox_job() == 0
    assert len(publisher.reveals) == 1
    assert await jobs.outbox.pending(G1) == []


async def test_two_processes_at_the_next_post_minute_reveal_once(
    daily: DailyService,
    jobs: DailyJobs,
    publisher: FakePublisher,
    clock: Clock,
    new_jobs: Callable[[], Awaitable[DailyJobs]],
) -> None:
    await configure(daily)
    other = await new_jobs()
    await jobs.run_post_job(G1)
    clock.now = T0 + timedelta(days=1)
    await asyncio.gather(jobs.run_post_job(G1), other.run_post_job(G1))
    assert [s.day for s in publisher.reveals] == [DAY1]
    assert [d for _, d, _, _ in publisher.posts] == [DAY1, DAY1 + timedelta(days=1)]


async def test_answer_reactions_are_owed_with_the_post_and_retried(
    daily: DailyService, jobs: DailyJobs, publisher: FakePublisher, clock: Clock
) -> None:
    await configure(daily)
    real = publisher.add_reactions
    failures = 0

    async def flaky(channel_id: int, message_id: int, n_choices: int) -> None:
        nonlocal failures
        if failures == 0:
            failures += 1
            raise RuntimeError("502 Bad Gateway")
        await real(channel_id, message_id, n_choices)

    publisher.add_reactions = flaky  # type: ignore[method-assign]
    await jobs.run_post_job(G1)
    post = await post_of(daily, G1, DAY1)
    assert [e for e in publisher.events if e[0] == "reactions"] == []
    clock.now += timedelta(seconds=10)
    assert await jobs.run_outbox_job() == 1
    assert [e for e in publisher.events if e[0] == "reactions"] == [("reactions", post.message_id)]


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    # Fail fast instead of waiting out the production busy timeout (10 s); requested
    # before the database fixtures so every connection gets it.
    monkeypatch.setattr("bot.db.database.BUSY_TIMEOUT_MS", 50)


@pytest.mark.sqlite_only
async def test_a_locked_database_during_a_post_loses_nothing(
    short_busy_timeout: None,
    daily: DailyService,
    jobs: DailyJobs,
    publisher: FakePublisher,
    db_url: str,
) -> None:
    """The message is out when the database is locked by another writer: its id and the
    answer reactions must still be recorded, not lost with the failed transaction."""
    import logging
    import sqlite3

    await configure(daily)
    path = db_url.split("///", 1)[1]
    holder = sqlite3.connect(path, timeout=0, isolation_level=None)
    real_post = publisher.post

    async def post_then_lock(*args: Any) -> int:
        message_id = await real_post(*args)
        holder.execute("BEGIN IMMEDIATE")  # another process takes the write lock
        return message_id

    class ReleaseOnRetry(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "transient database error" in record.getMessage() and holder.in_transaction:
                holder.rollback()

    publisher.post = post_then_lock  # type: ignore[method-assign, assignment]
    handler = ReleaseOnRetry(logging.WARNING)
    logging.getLogger("quiztutor.storage").addHandler(handler)
    try:
        await jobs.run_post_job(G1)
    finally:
        logging.getLogger("quiztutor.storage").removeHandler(handler)
        holder.close()
    assert len(publisher.posts) == 1
    post = await post_of(daily, G1, DAY1)
    assert post.message_id == publisher.posts[0][3]
    assert ("reactions", post.message_id) in publisher.events
