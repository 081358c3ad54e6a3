"""Live presses when the database is slow or away (issue 28.6; the whole bot through a
real outage is tests/live/test_db_outage_live.py): a press keeps its moment however late the
writer gets the database, a reply the database holds up is deferred and followed up,
and a database that stays away gets a localized "try again", never a traceback."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlalchemy.exc import OperationalError

from bot.db.database import Database
from bot.db.retry import outage
from bot.db.tables.live import LiveQuestion
from bot.live import answers_store, steps_store, store
from bot.live.answers_store import LivePending, Outcome
from bot.live.rounds import LiveRounds
from bot.quizbank import QuizBank
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.live import button_id, lobby, round_id_of, rows, thread_of

GUILD, CHANNEL, THREAD, HOST = 1, 10, 11, 100
SECONDS = 10


async def open_question(live: LiveRounds) -> int:
    """A round whose question 1 is open (its message out), as the driver leaves it."""
    row = await live.open(GUILD, CHANNEL, HOST, "en", None, 2, SECONDS, seed=1)
    assert row.id is not None
    await store.place(live.db, row.id, THREAD, True)
    await live.set_up(row.id, 555)
    await steps_store.open_next(live.db, row.id, -1)
    await steps_store.arm(live.db, row.id, 1, SECONDS)
    await steps_store.posted(live.db, row.id, 1, 777, SECONDS, timedelta(seconds=1))
    return row.id


async def test_a_press_written_late_is_judged_and_scored_at_its_moment(
    db: Database, bank: QuizBank
) -> None:
    """Question 1 opened 9 s ago and closed 1 s ago by the database's clock. A press that
    came 5 s ago, held by the writer until now (a database away), counts with the time it
    took then; a press that comes now is late."""
    live = LiveRounds(db, bank)
    await live.writer.start()
    try:
        round_id = await open_question(live)
        snap = await steps_store.snapshot(db, round_id)
        assert snap is not None
        async with db.engine.begin() as conn:
            await conn.execute(
                update(LiveQuestion)
                .where(LiveQuestion.round_id == round_id, LiveQuestion.number == 1)  # type: ignore[arg-type]
                .values(
                    opened_at=snap.now - timedelta(seconds=9),
                    closes_at=snap.now - timedelta(seconds=1),
                )
            )
        then = live.writer.submit(
            LivePending(round_id, 1, 201, 2, 0, True, SECONDS, time.monotonic() - 5)
        )
        now = live.writer.submit(LivePending(round_id, 1, 202, 1, 1, False, SECONDS))
        counted, late = await asyncio.gather(then, now)
    finally:
        await live.writer.close()
    assert (counted.outcome, counted.position) == (Outcome.COUNTED, 2)
    assert late.outcome is Outcome.LATE
    [(user, ms, points)] = await rows(db, "SELECT user_id, ms, points FROM live_answer")
    # 4 s after the question opened, plus however long the write itself took here.
    assert user == 201 and 4000 <= ms < 8000, ms
    assert points == round(1000 * (1 - ms / 1000 / (2 * SECONDS)))


async def test_presses_the_writer_cannot_write_fail_without_a_traceback_and_it_goes_on(
    db: Database, bank: QuizBank, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The database stays away past the writer's tries: each press of the batch fails
    (the member is asked to try again), the outage is noted once, and the writer takes
    the next press once the database is back."""
    monkeypatch.setattr("bot.db.retry.MAX_DELAY_S", 0.001)  # quick tries
    monkeypatch.setattr("bot.live.answers_store.HOLD_S", 0.3)  # and its 30 s of them, short
    monkeypatch.setattr(outage, "since", None)
    caplog.set_level(logging.DEBUG, logger="quiztutor.storage")
    live = LiveRounds(db, bank)
    await live.writer.start()
    try:
        round_id = await open_question(live)
        statements = answers_store.statements

        def away(*args: object) -> object:
            raise OperationalError("INSERT INTO live_answer ...", {}, ConnectionRefusedError(111))

        monkeypatch.setattr(answers_store, "statements", away)
        with pytest.raises(OperationalError):
            await live.writer.submit(LivePending(round_id, 1, 201, 0, 0, True, SECONDS))
        monkeypatch.setattr(answers_store, "statements", statements)
        again = await live.writer.submit(LivePending(round_id, 1, 201, 1, 1, False, SECONDS))
    finally:
        await live.writer.close()
    assert (again.outcome, again.position) == (Outcome.COUNTED, 1)
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert sum("transient database error" in w for w in warnings) == 1, warnings
    assert sum("available again" in w for w in warnings) == 1, warnings
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


async def test_a_press_the_database_holds_up_is_deferred_then_answered(
    discord_fake: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = discord_fake
    host, _, member = fake.users_list
    gate = asyncio.Event()
    join = store.join

    async def slow_join(db: Database, round_id: int, user_id: int) -> bool:
        await gate.wait()  # the database does not answer until the test says so
        return await join(db, round_id, user_id)

    async with start_bot() as bot:
        await fake.slash(host, "quiz live start", questions=2, seconds=60)
        hall = await lobby(fake, await thread_of(fake, fake.channel))
        monkeypatch.setattr(store, "join", slow_join)
        held = await fake.click(hall, button_id(hall, "j"), member)  # within Discord's 3 s
        assert held.type == 5 and held.ephemeral  # deferred: "thinking..."
        gate.set()
        followed = await held.wait_followup()
        assert followed.content.startswith("You joined the round") and followed.ephemeral
        players = await rows(
            bot.services.db,
            "SELECT user_id FROM live_player WHERE round_id = :r",
            r=round_id_of(hall),
        )
        assert players == [(member.id,)]


async def test_a_database_that_stays_away_gets_a_try_again_not_a_traceback(
    discord_fake: FakeDiscord,
    start_bot: StartBot,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake = discord_fake
    host, citra, _ = fake.users_list
    monkeypatch.setattr("bot.db.retry.MAX_DELAY_S", 0.001)  # quick tries
    monkeypatch.setattr("bot.live.answers_store.HOLD_S", 0.3)  # and its 30 s of them, short
    monkeypatch.setattr(outage, "since", None)  # (restored: no outage leaks to other tests)

    async def refused(db: Database, round_id: int, user_id: int) -> bool:
        raise OperationalError("INSERT INTO live_player ...", {}, ConnectionRefusedError(111))

    async with start_bot():
        await fake.slash(host, "quiz live start", questions=2, seconds=60)
        hall = await lobby(fake, await thread_of(fake, fake.channel))
        monkeypatch.setattr(store, "join", refused)
        caplog.set_level(logging.INFO)
        told = await fake.click(hall, button_id(hall, "j"), citra)  # Indonesian
        shown = await told.wait_final(lambda m: not m.loading and bool(m.content))
        assert "tidak dapat menghubungi basis datanya" in shown.content
        assert outage.since is not None  # the outage is noted (once: a warning)
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert sum("transient database error" in w for w in warnings) == 1, warnings
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
