"""The count on a live question's message comes from the answer writer, not from the
database read back: a step of the driver woken by presses runs no SQL, the count shown
is the committed one, and a process that takes the round over from a dead one reads the
answers the dead one counted, then adds its own; the question closes as soon as every
player answered, on the writer's tally."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import event

from bot.db.database import Database
from bot.live import driver as driver_module
from bot.live.rounds import LiveRounds
from bot.quizbank import QuizBank
from tests.live.test_live_driver import HOST, THREAD, die, open_round, process, until
from tests.support.live import RecordingPublisher

WAVES, PER_WAVE = 4, 5  # presses in waves, a driver's step after each


class Statements:
    """SQL statements a round's driver task runs on `db`, and its waits: each step woken
    by presses ends in a wait (`RoundChanges.watch`, the event the next presses set)."""

    def __init__(self, live: LiveRounds, round_id: int) -> None:
        self.task = f"live-round-{round_id}"
        self.sql = 0
        self.waits = 0
        self._engine = live.db.engine.sync_engine
        event.listen(self._engine, "before_cursor_execute", self._executed)
        watch = live.changes.watch

        def watched(round_id: int) -> asyncio.Event:
            self.waits += 1
            return watch(round_id)

        live.changes.watch = watched  # type: ignore[method-assign]

    def _executed(self, *args: Any) -> None:
        task = asyncio.current_task()
        if task is not None and task.get_name() == self.task:
            self.sql += 1

    def reset(self) -> None:
        self.sql = self.waits = 0

    def close(self) -> None:
        event.remove(self._engine, "before_cursor_execute", self._executed)


@pytest.fixture
def no_ticks(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No look at the round while nothing wakes its task (the question's minute is long):
    every step here is woken by presses."""
    monkeypatch.setattr(driver_module, "TICK_S", 60.0)
    yield


def shown(publisher: RecordingPublisher, message_id: int) -> list[tuple[int, bool]]:
    """(count, closed) of each edit of a question's message, in order."""
    return [(n, closed) for m, n, closed in publisher.of("edit") if m == message_id]


async def press_in_waves(
    live: LiveRounds, count: Statements, round_id: int, users: list[int]
) -> None:
    """`users` answer question 1, `PER_WAVE` at a time, the driver stepping after each."""
    for start in range(0, len(users), PER_WAVE):
        await press(live, count, round_id, users[start : start + PER_WAVE])


async def press(live: LiveRounds, count: Statements, round_id: int, users: list[int]) -> None:
    """`users` answer question 1; until the step these presses woke is over (a wait)."""
    waits = count.waits
    for user in users:
        recorded = await live.answer(round_id, 1, 0, user, THREAD)
        assert recorded.outcome.value == "counted"
    await until(lambda: count.waits > waits, "the driver's step after the presses")


async def test_presses_are_shown_from_the_writer_and_read_back_only_on_a_takeover(
    open_db: Callable[[], Awaitable[Database]], bank: QuizBank, no_ticks: None
) -> None:
    one_discord, two_discord = RecordingPublisher(), RecordingPublisher()
    one, one_driver, _ = await process(open_db, bank, one_discord)
    round_id = await open_round(one, questions=2, seconds=60)
    players = list(range(201, 201 + WAVES * PER_WAVE + 1))  # one of them does not answer
    for user in players:
        await one.join(round_id, user, THREAD)
    await one.start_now(round_id, HOST, False, THREAD)
    await one_driver.take(round_id)
    count = Statements(one, round_id)
    ((_, message_id),) = await until(lambda: one_discord.of("question"), "question 1")
    # Its steps: open question 1, send it, wait for presses (each read the round first).
    await until(lambda: count.waits, "the driver waiting on question 1")
    assert count.sql > 0
    count.reset()

    await press_in_waves(one, count, round_id, players[:-1])
    answered = WAVES * PER_WAVE
    await until(lambda: (answered, False) in shown(one_discord, message_id), "the count")
    steps, sql = count.waits, count.sql
    count.close()
    print(f"\nstatements per driver step under presses: {sql} in {steps} steps")
    assert steps >= WAVES
    assert sql == 0, f"{sql} statements in {steps} steps woken by presses"

    # The process dies; the next takes the round over and reads what the dead one counted.
    die(one_driver)
    two, two_driver, _ = await process(open_db, bank, two_discord)
    count = Statements(two, round_id)
    while round_id not in two_driver.running:
        await two_driver.sweep()
        await asyncio.sleep(0.05)  # a poll interval (the dead lease lapses after 1 s)
    await until(lambda: shown(two_discord, message_id) == [(answered, False)], "read back")
    # (Once when it took the round, then in the wait after its first step.)
    await until(lambda: count.waits >= 2, "the driver waiting on question 1")
    assert count.sql > 0  # that step read the round
    count.reset()
    await press_in_waves(two, count, round_id, [301, 302])  # answering joins
    await until(lambda: (answered + 2, False) in shown(two_discord, message_id), "the count")
    assert count.sql == 0

    # The last player answers: everyone has, and the question closes at once.
    await two.answer(round_id, 1, 0, players[-1], THREAD)
    await until(lambda: two_discord.of("reveal"), "the reveal")
    await until(lambda: (answered + 3, True) in shown(two_discord, message_id), "closed")
    count.close()
    for live, driver in ((one, one_driver), (two, two_driver)):
        await driver.close()
        await live.writer.close()
