"""Live rounds survive restarts and crashes, through the Discord stand-in: an open
question keeps its deadline, one whose deadline passed while the bot was down is
revealed, the next follows; no answer is lost or counted twice, no message is posted
twice; a killed process's round goes on within 10 s of the next process's READY."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.db.database import Database
from testkit.processes import BotProcess, bot_env
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.live import (
    answer_id,
    execute,
    expire_question,
    join,
    open_round,
    positions,
    question,
    questions_posted,
    quick_bot,
    reveal,
    reveals_posted,
    rows,
    rows_become,
    rows_change,
    scoreboard,
    start,
)


async def test_a_restart_keeps_the_open_questions_deadline_and_its_answers(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host, _, member = fake.users_list
    async with quick_bot(start_bot) as bot:
        live = await open_round(fake, host, questions=2, seconds=120)
        thread = live.thread
        first = await start(fake, live, host, host, member)
        right, wrong = await positions(bot, live.id, 1)
        await fake.click(first, answer_id(first, wrong), member)
        deadline = await rows(
            bot.services.db, "SELECT closes_at FROM live_question WHERE number = 1"
        )
    # Stopped (a deploy): the round's lease is released; the next process takes it at once.
    async with quick_bot(start_bot) as bot:
        again = await fake.click(first, answer_id(first, right), member)
        assert "first answer counts" in again.content  # the answer survived, unchanged
        assert (
            await rows(bot.services.db, "SELECT closes_at FROM live_question WHERE number = 1")
            == deadline
        )
        await fake.click(first, answer_id(first, right), host)
        await reveal(fake, thread, 1)
        second = await question(fake, thread, 2)
        for player in (host, member):
            await fake.click(second, answer_id(second, 0), player)
        await scoreboard(fake, thread)
        assert len(questions_posted(fake, thread, 1)) == 1
        assert len(reveals_posted(fake, thread, 1)) == 1
        logged = await rows(
            bot.services.db, "SELECT count(*), count(DISTINCT ref || user_id) FROM review_log"
        )
        assert [tuple(r) for r in logged] == [(4, 4)]


async def test_a_deadline_passed_while_down_is_revealed_once_then_the_next_follows(
    discord_fake: FakeDiscord, start_bot: StartBot, db_url: str
) -> None:
    fake = discord_fake
    host, _, member = fake.users_list
    async with quick_bot(start_bot) as bot:
        live = await open_round(fake, host, questions=2, seconds=60)
        thread, round_id = live.thread, live.id
        first = await start(fake, live, host)
        await fake.click(first, answer_id(first, 0), member)
        await expire_question(bot.services.db, round_id, 1)
        await reveal(fake, thread, 1)
        await question(fake, thread, 2)
    # While it is down: question 2's deadline passes, and the record of the first reveal
    # is lost (as if the process died between Discord's answer and the record): the
    # outbox owes it again, and its nonce makes Discord return the same message.
    db = await Database.open(db_url)
    try:
        await expire_question(db, round_id, 2)
        await execute(
            db,
            "UPDATE outbox SET delivered_at = NULL, claimed_by = NULL, claimed_until = NULL,"
            " message_id = NULL WHERE kind = 'live-reveal'",
        )
    finally:
        await db.close()
    async with quick_bot(start_bot) as bot:
        await reveal(fake, thread, 2)
        await scoreboard(fake, thread)
        assert len(reveals_posted(fake, thread, 1)) == 1
        assert len(reveals_posted(fake, thread, 2)) == 1
        assert len(questions_posted(fake, thread, 2)) == 1
        await rows_become(  # two reveals and the scoreboard, each recorded once
            bot.services.db, "SELECT count(*) FROM outbox WHERE delivered_at IS NOT NULL", [(3,)]
        )


@pytest.mark.slow
async def test_a_killed_process_round_goes_on_within_10_s_of_the_next_process_ready(
    discord_fake: FakeDiscord, start_bot: StartBot, tmp_path: Path, db_url: str
) -> None:
    fake = discord_fake
    host, _, member = fake.users_list
    async with start_bot() as bot:  # registers the commands; opens the round
        live = await open_round(fake, host, questions=2, seconds=120)
        thread = live.thread
        await join(fake, live, host, member)
        right, _ = await positions(bot, live.id, 1)
    env = bot_env(fake.env(), db_url)
    first = await BotProcess(env, tmp_path / "bot1.log").start()
    db = await Database.open(db_url)
    try:
        await first.wait_started(30)
        await fake.wait_connected(30)
        q1 = await start(fake, live, host)
        await fake.click(q1, answer_id(q1, right), member)
        # Killed mid-question, holding the round's lease, just after renewing it: the
        # longest the dead process's lease can hold the round.
        await rows_change(db, "SELECT claimed_until FROM live_round", 20)
        await first.kill()
    finally:
        await db.close()
        if first.proc is not None and first.proc.returncode is None:
            await first.kill()
    identified = fake.gateway.identifies
    second = await BotProcess(env, tmp_path / "bot2.log").start()
    try:
        loop = asyncio.get_running_loop()
        await fake.wait_until(
            lambda: fake.gateway.identifies > identified, 30, "the next process's READY"
        )
        ready_at = loop.time()
        await second.wait_started(30)
        again = await fake.click(q1, answer_id(q1, 0), member, timeout=10)
        assert "first answer counts" in again.content
        await fake.click(q1, answer_id(q1, right), host, timeout=10)
        # Every player answered: the round goes on as soon as the dead lease lapses.
        await reveal(fake, thread, 1)
        assert loop.time() - ready_at <= 10
        # The count: the answer the dead process wrote (read back when this one took the
        # round over) and the one this process's writer counted.
        await fake.wait_until(
            lambda: "2 answered" in fake.message(q1.id).text(), 10, "question 1's final count"
        )
        q2 = await question(fake, thread, 2)
        for player in (host, member):
            await fake.click(q2, answer_id(q2, right), player, timeout=10)
        await scoreboard(fake, thread, 30)
        assert await second.stop() == 0
    finally:
        if second.proc is not None and second.proc.returncode is None:
            await second.kill()
    assert len(questions_posted(fake, thread, 1)) == 1
    assert len(reveals_posted(fake, thread, 1)) == 1
