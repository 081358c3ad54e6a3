"""The live round driver without Discord (a recording publisher): two drivers on one
database never both run a round, and one takes over when the other dies; a reveal
Discord did not take holds the next question until the outbox has delivered it; a
driver that stops releases every round it held, even one whose step ended while it
was stopping."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.db.database import Database
from bot.live import store
from bot.live.driver import LiveDriver
from bot.live.rounds import LiveRounds
from bot.outbox.service import OutboxService
from bot.quizbank import QuizBank
from testkit.times import Clock
from tests.support.live import RecordingPublisher, expire_question, rows, rows_become

GUILD, CHANNEL, THREAD, HOST = 1, 10, 11, 100
WAIT_S = 20.0


async def until(predicate: Callable[[], Any], what: str) -> Any:
    """Until `predicate()` holds (re-checked every few ms), or fail after WAIT_S."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while not (value := predicate()):
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)  # a poll interval, not a synchronisation point
    return value


async def open_round(live: LiveRounds, questions: int = 3, seconds: int = 10) -> int:
    row = await live.open(GUILD, CHANNEL, HOST, "en", None, questions, seconds, seed=1)
    assert row.id is not None
    await store.place(live.db, row.id, THREAD, True)
    await live.set_up(row.id, 555)
    return row.id


async def process(
    open_db: Callable[[], Awaitable[Database]],
    bank: QuizBank,
    publisher: RecordingPublisher | None = None,
    **outbox: Any,
) -> tuple[LiveRounds, LiveDriver, RecordingPublisher]:
    """One "bot process": its own connections, services and driver; `publisher` is
    Discord (one for every process: it recognises a nonce whoever sends it)."""
    live = LiveRounds(await open_db(), bank)
    await live.writer.start()
    publisher = publisher or RecordingPublisher()
    driver = LiveDriver(
        live,
        publisher,
        outbox=OutboxService(live.db, **outbox),
        pause=timedelta(seconds=0.05),
        lease=timedelta(seconds=1),
    )
    return live, driver, publisher


async def answer_all(live: LiveRounds, round_id: int, number: int, users: list[int]) -> None:
    for user in users:
        answered = await live.answer(round_id, number, 0, user, THREAD)
        assert answered.outcome.value == "counted"


async def first_answered(
    open_db: Callable[[], Awaitable[Database]],
    bank: QuizBank,
    clock: Clock,
    broken_reveals: int = 0,
    unanswered_reveals: int = 0,
) -> tuple[LiveRounds, LiveDriver, RecordingPublisher]:
    """One process (its outbox on `clock`) whose Discord breaks or loses the answer of the
    next reveals as `RecordingPublisher` says; a round of two questions, taken by its
    driver, that member 201 joined: question 1 is asked and answered (its reveal due)."""
    live, driver, publisher = await process(open_db, bank, clock=clock)
    publisher.broken_reveals = broken_reveals
    publisher.unanswered_reveals = unanswered_reveals
    round_id = await open_round(live, questions=2)
    await driver.sweep()
    await live.join(round_id, 201, THREAD)
    await live.start_now(round_id, HOST, False, THREAD)
    await until(lambda: publisher.of("question"), "question 1")
    await answer_all(live, round_id, 1, [201])
    return live, driver, publisher


def die(driver: LiveDriver) -> None:
    """The process is gone (kill -9): its tasks stop; its lease is never released."""
    driver._closing = True
    for task in [*driver._runners.values(), driver._sweeper, driver._heartbeat]:
        if task is not None:
            task.cancel()


async def test_two_drivers_never_run_one_round_and_one_takes_over_a_dead_one(
    open_db: Callable[[], Awaitable[Database]], bank: QuizBank
) -> None:
    discord = RecordingPublisher()
    one = await process(open_db, bank, discord)
    two = await process(open_db, bank, discord)
    round_id = await open_round(one[0])
    await asyncio.gather(one[1].sweep(), two[1].sweep())
    holders = [p for p in (one, two) if round_id in p[1].running]
    assert len(holders) == 1
    holder = holders[0]
    other = two if holder is one else one
    for user in (201, 202):
        await holder[0].join(round_id, user, THREAD)
    await holder[0].start_now(round_id, HOST, False, THREAD)
    await until(lambda: discord.of("question"), "question 1")
    await answer_all(holder[0], round_id, 1, [201, 202])
    await other[1].sweep()
    assert round_id not in other[1].running  # the lease holds while its holder lives

    await until(lambda: discord.of("reveal"), "the first reveal")
    await until(lambda: len(discord.of("question")) == 2, "question 2")
    die(holder[1])  # (perhaps between sending question 2 and recording it)
    # The lease lapses (1 s here): the next sweep of the other process takes the round.
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while round_id not in other[1].running:
        assert loop.time() < deadline, "the other process never took the round over"
        await other[1].sweep()
        await asyncio.sleep(0.05)  # a poll interval, not a synchronisation point
    await answer_all(other[0], round_id, 2, [201, 202])
    await until(lambda: len(discord.of("reveal")) == 2, "the second reveal, by the other")
    await until(lambda: len(discord.of("question")) == 3, "question 3, by the other process")
    await expire_question(other[0].db, round_id, 3)
    await until(lambda: discord.of("scoreboard"), "the scoreboard")

    nonces = [nonce for nonce, _ in discord.of("question")]
    assert nonces == [f"qt-lq-{round_id}-{n}" for n in (1, 2, 3)]
    assert [number for number, _ in discord.of("reveal")] == [1, 2, 3]
    answers = await rows(one[0].db, "SELECT count(*) FROM live_answer")
    assert answers == [(4,)]
    for live, driver, _ in (one, two):
        await driver.close()
        await live.writer.close()


async def test_a_reveal_discord_did_not_take_holds_the_next_question(
    open_db: Callable[[], Awaitable[Database]], bank: QuizBank
) -> None:
    # The outbox's clock (the process's): a little ahead of the database's, which dates
    # what is owed, so the first try is due at once; moved by hand for the retry.
    clock = Clock(datetime.now(UTC) + timedelta(seconds=2))
    live, driver, publisher = await first_answered(open_db, bank, clock, broken_reveals=1)
    await until(lambda: publisher.broken_reveals == 0, "the failed reveal")
    sql = "SELECT attempts, delivered_at FROM outbox WHERE kind = 'live-reveal'"
    while (pending := [tuple(p) for p in await rows(live.db, sql)]) != [(1, None)]:
        assert pending == [(0, None)], pending  # the failure is being recorded
        await asyncio.sleep(0.01)  # a poll interval, not a synchronisation point
    assert len(publisher.of("question")) == 1  # question 2 waits for the reveal
    clock.now += timedelta(seconds=6)  # the outbox's retry is due
    await until(lambda: publisher.of("reveal"), "the reveal, retried")
    await until(lambda: len(publisher.of("question")) == 2, "question 2, after the reveal")
    kinds = [kind for kind, _ in publisher.events if kind in ("question", "reveal")]
    assert kinds == ["question", "reveal", "question"]
    await driver.close()
    await live.writer.close()


async def test_a_reveal_discord_took_without_answering_is_found_not_sent_again(
    open_db: Callable[[], Awaitable[Database]], bank: QuizBank
) -> None:
    # Discord takes the reveal but its answer is lost: the outcome is unknown, so the
    # retry (after the nonce window, as far as the publisher knows) looks in the thread
    # for the bot's reply to the question first, records it, and sends nothing.
    clock = Clock(datetime.now(UTC) + timedelta(seconds=2))
    live, driver, publisher = await first_answered(open_db, bank, clock, unanswered_reveals=1)
    await until(lambda: publisher.unanswered_reveals == 0, "the reveal without an answer")
    sql = "SELECT attempts FROM outbox WHERE kind = 'live-reveal' AND unsure_since IS NOT NULL"
    await rows_become(live.db, sql, [(1,)])
    clock.now += timedelta(seconds=6)  # the outbox's retry is due
    await until(lambda: len(publisher.of("question")) == 2, "question 2, after the reveal")
    assert len(publisher.of("reveal")) == 1  # found in the thread, not sent again
    assert publisher.of("lookback") == [publisher.of("question")[0][1]]
    sql = "SELECT message_id FROM outbox WHERE kind = 'live-reveal' AND delivered_at IS NOT NULL"
    assert [r[0] for r in await rows(live.db, sql)] == list(publisher.replies.values())
    await driver.close()
    await live.writer.close()


class HeldPublisher(RecordingPublisher):
    """Discord slow to take a question's message: `post_question` waits for `gate`."""

    def __init__(self) -> None:
        super().__init__()
        self.sending = asyncio.Event()
        self.gate = asyncio.Event()

    async def post_question(self, view: Any, nonce: str) -> int:
        self.sending.set()
        await self.gate.wait()
        return await super().post_question(view, nonce)


async def test_a_round_whose_step_ends_while_its_driver_stops_is_released_at_once(
    open_db: Callable[[], Awaitable[Database]], bank: QuizBank, monkeypatch: pytest.MonkeyPatch
) -> None:
    publisher = HeldPublisher()
    live, driver, _ = await process(open_db, bank, publisher)
    round_id = await open_round(live)
    await live.start_now(round_id, HOST, False, THREAD)
    assert await driver.take(round_id)
    await asyncio.wait_for(publisher.sending.wait(), WAIT_S)  # in a step: question 1 going out
    sweeping = asyncio.Event()

    async def slow_to_stop() -> int:
        # The sweeper is busy when the process stops (a query being cancelled, a message
        # being sent): the round's step ends, and its runner stops, before it has stopped.
        sweeping.set()
        try:
            await asyncio.Event().wait()  # until cancelled
        finally:
            publisher.gate.set()
            await until(lambda: round_id not in driver.running, "the round's runner to stop")
        return 0

    monkeypatch.setattr(driver, "sweep", slow_to_stop)
    await driver.start()
    await asyncio.wait_for(sweeping.wait(), WAIT_S)
    await driver.close()  # a deploy: the lease is released for the next process

    sql = "SELECT claimed_by, claimed_until FROM live_round WHERE id = :r"
    assert await rows(live.db, sql, r=round_id) == [(None, None)]
    next_live, next_driver, _ = await process(open_db, bank, publisher)
    assert await next_driver.sweep() == 1  # taken at once, not after the lease lapses
    assert round_id in next_driver.running
    for each_live, each_driver in ((live, driver), (next_live, next_driver)):
        await each_driver.close()
        await each_live.writer.close()


async def test_a_step_slower_than_the_lease_keeps_the_round_with_its_driver(
    open_db: Callable[[], Awaitable[Database]], bank: QuizBank
) -> None:
    # Discord takes question 1's message only after three leases (1 s here): the
    # process's heartbeat keeps the lease meanwhile, so the other process, looking all
    # along, never takes the round (it would arm and post the question a second time).
    publisher = HeldPublisher()
    live, driver, _ = await process(open_db, bank, publisher)
    other_live, other, _ = await process(open_db, bank, publisher)
    round_id = await open_round(live)
    await live.start_now(round_id, HOST, False, THREAD)
    assert await driver.take(round_id)
    await asyncio.wait_for(publisher.sending.wait(), WAIT_S)
    loop = asyncio.get_running_loop()
    held_until = loop.time() + 3 * driver.lease.total_seconds()
    while loop.time() < held_until:
        await other.sweep()
        assert round_id not in other.running
        await asyncio.sleep(0.1)  # the other process's next look
    publisher.gate.set()
    await until(lambda: publisher.of("question"), "question 1")
    assert round_id in driver.running
    for each_live, each_driver in ((live, driver), (other_live, other)):
        await each_driver.close()
        await each_live.writer.close()


class SilentPublisher(RecordingPublisher):
    """Discord never answers the next reveal (nor takes it): `post_reveal` waits until
    the process sending it dies."""

    def __init__(self) -> None:
        super().__init__()
        self.silent_reveals = 1
        self.waiting = asyncio.Event()

    async def post_reveal(self, reveal: Any, nonce: str) -> int:
        if self.silent_reveals:
            self.silent_reveals -= 1
            self.waiting.set()
            await asyncio.Event().wait()  # until cancelled
        return await super().post_reveal(reveal, nonce)


async def test_a_reveal_its_process_died_sending_is_sent_by_the_next_at_once(
    open_db: Callable[[], Awaitable[Database]], bank: QuizBank
) -> None:
    # The process dies while sending question 1's reveal: the process that takes the
    # round over (its lease lapsed: 1 s here) sends it, after looking for the copy, not
    # when the reveal's own claim would lapse (minutes).
    discord = SilentPublisher()
    live, driver, _ = await process(open_db, bank, discord)
    round_id = await open_round(live, questions=2)
    assert await driver.take(round_id)
    await live.join(round_id, 201, THREAD)
    await live.start_now(round_id, HOST, False, THREAD)
    await until(lambda: discord.of("question"), "question 1")
    await answer_all(live, round_id, 1, [201])
    await asyncio.wait_for(discord.waiting.wait(), WAIT_S)
    die(driver)
    next_live, next_driver, _ = await process(open_db, bank, discord)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while round_id not in next_driver.running:
        assert loop.time() < deadline, "the next process never took the round over"
        await next_driver.sweep()
        await asyncio.sleep(0.05)  # a poll interval, not a synchronisation point
    await until(lambda: len(discord.of("question")) == 2, "question 2, after the reveal")
    assert [number for number, _ in discord.of("reveal")] == [1]
    assert discord.of("lookback") == [discord.of("question")[0][1]]  # looked first
    await next_driver.close()
    for each_live in (live, next_live):
        await each_live.writer.close()
