"""The outbox after an attempt whose outcome is unknown: the copy Discord may already have
is looked for and recorded instead of sending a second one (Discord's nonce
de-duplication lasts minutes); an admin's retry goes through the same path."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta

from bot.daily.jobs import DailyJobs
from bot.daily.service import DailyService
from bot.daily.types import RevealSummary
from bot.db.tables.daily import DailyPost
from bot.outbox import store
from bot.outbox.rules import LEASE, Owed
from bot.quizbank import Question
from testkit.times import Clock
from tests.support.driver import DAY1, G1, FakePublisher, configure, post_of

# Later than Discord's nonce window (a few minutes) and the dead process's lease.
LATE = LEASE + timedelta(minutes=10)


def finds(publisher: FakePublisher) -> list[object]:
    return [e for e in publisher.events if e[0] == "find_reveal"]


async def test_a_reveal_taken_by_discord_before_a_crash_is_found_not_sent_again(
    daily: DailyService,
    jobs: DailyJobs,
    publisher: FakePublisher,
    clock: Clock,
    new_jobs: Callable[[], Awaitable[DailyJobs]],
) -> None:
    await configure(daily)
    await jobs.run_post_job(G1)
    post = await post_of(daily, G1, DAY1)
    real = publisher.reveal
    answered = asyncio.Event()

    async def taken_then_crash(
        post: DailyPost,
        question: Question | None,
        summary: RevealSummary,
        locale: str,
        nonce: str,
    ) -> int:
        await real(post, question, summary, locale, nonce)  # Discord has the message...
        answered.set()
        await asyncio.Event().wait()  # ...and the process dies before recording it
        raise AssertionError("unreachable")

    publisher.reveal = taken_then_crash  # type: ignore[method-assign]
    crashed = asyncio.create_task(jobs.reveal_open(G1))
    await asyncio.wait_for(answered.wait(), 5)
    crashed.cancel()  # nothing after Discord's answer runs: no record, the claim stays
    await asyncio.gather(crashed, return_exceptions=True)
    publisher.reveal = real  # type: ignore[method-assign]
    (owed,) = await jobs.outbox.pending(G1)
    assert owed.claimed_by is not None and owed.unsure_since is None

    # A new process, long after the nonce window: it looks first and finds the copy.
    clock.now += LATE
    restarted = await new_jobs()
    assert await restarted.run_outbox_job() == 1
    assert len(publisher.reveals) == 1
    assert finds(publisher) == [("find_reveal", post.message_id)]
    done = await store.item(restarted.db, Owed.REVEAL, owed.post_id)
    assert done is not None and done.delivered_at is not None
    assert done.message_id == publisher.replies[0][1]
    assert await restarted.outbox.pending(G1) == []


async def test_a_send_that_failed_after_discord_took_it_is_found_on_the_retry(
    daily: DailyService, jobs: DailyJobs, publisher: FakePublisher, clock: Clock
) -> None:
    await configure(daily)
    await jobs.run_post_job(G1)
    real = publisher.reveal

    async def taken_then_timeout(
        post: DailyPost,
        question: Question | None,
        summary: RevealSummary,
        locale: str,
        nonce: str,
    ) -> int:
        await real(post, question, summary, locale, nonce)
        raise TimeoutError("no answer from Discord")

    publisher.reveal = taken_then_timeout  # type: ignore[method-assign]
    await jobs.reveal_open(G1)
    publisher.reveal = real  # type: ignore[method-assign]
    (owed,) = await jobs.outbox.pending(G1)
    assert owed.attempts == 1 and owed.unsure_since is not None
    clock.now += LATE
    assert await jobs.run_outbox_job() == 1
    assert len(publisher.reveals) == 1 and len(finds(publisher)) == 1


async def test_a_send_that_never_reached_discord_is_looked_for_then_sent_once(
    daily: DailyService, jobs: DailyJobs, publisher: FakePublisher, clock: Clock
) -> None:
    await configure(daily)
    await jobs.run_post_job(G1)
    publisher.failing_reveals = 1  # refused before anything was made
    await jobs.reveal_open(G1)
    assert finds(publisher) == []  # a first attempt has nothing to look for
    clock.now += timedelta(seconds=10)
    assert await jobs.run_outbox_job() == 1
    assert len(publisher.reveals) == 1 and len(finds(publisher)) == 1
    clock.now += LATE
    assert await jobs.run_outbox_job() == 0
    assert len(publisher.reveals) == 1


async def test_an_admins_retry_sends_an_owed_reveal_now_and_only_once(
    daily: DailyService,
    jobs: DailyJobs,
    publisher: FakePublisher,
    clock: Clock,
    new_jobs: Callable[[], Awaitable[DailyJobs]],
) -> None:
    await configure(daily)
    await jobs.run_post_job(G1)
    publisher.failing_reveals = 3
    await jobs.reveal_open(G1)  # fails once
    clock.now += timedelta(seconds=6)
    await jobs.run_outbox_job()  # twice: the next try is 10 s away
    (owed,) = await jobs.outbox.pending(G1)
    assert owed.id is not None and owed.attempts == 2 and owed.due_at > clock.now
    outcome = await jobs.outbox.retry_now(owed.id)  # fails a third time, at once
    assert not outcome.delivered
    (owed,) = await jobs.outbox.pending(G1)
    assert owed.attempts == 3
    assert owed.id is not None
    other = await new_jobs()
    first, second = await asyncio.gather(
        jobs.outbox.retry_now(owed.id), other.outbox.retry_now(owed.id)
    )
    assert [first.delivered, second.delivered].count(True) == 1
    assert len(publisher.reveals) == 1
    again = await jobs.outbox.retry_now(owed.id)
    assert not again.delivered and len(publisher.reveals) == 1
