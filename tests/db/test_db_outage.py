"""The database goes away and comes back (issue 28.6): answers wait in the writer and are
written once it is back, the outage is logged once, and the bot keeps serving what needs
no database. PostgreSQL: a server of the test's own, restarted for 10 s during a 500/s
reaction flood. SQLite: the file's directory made read-only for 10 s during one.

(The live-round half of the issue's point 6 belongs to the live rounds, built apart.)
"""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot.daily.answers_store import Pending, answer_writer
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.db.database import Database
from bot.discord.runner import register_commands
from testkit.bots import make_settings
from testkit.databases import db_rows
from testkit.processes import BotProcess, bot_env, integrity
from testkit.standin.server import FakeDiscord
from tests.support.daily import bot_reactions_done, is_daily_post, preconfigure_daily
from tests.support.db import NOW, make_post
from tests.support.outages import assert_outage_logged_once, with_read_only_folder
from tests.support.pgcluster import Cluster

WAIT = 30.0
RATE = 500  # reactions per second
FLOOD_S = 14.0
DOWN_AT_S, DOWN_FOR_S = 1.5, 10.0


# -- the writer alone -------------------------------------------------------------------


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.db.database.BUSY_TIMEOUT_MS", 50)


@pytest.mark.sqlite_only
async def test_the_writer_holds_answers_while_the_database_refuses_writes(
    short_busy_timeout: None, db: Database, db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Another process holds the write lock through several of the writer's tries: no
    answer fails, each is written once, and the outage is logged once."""
    post_id = await make_post(db)
    writer = answer_writer(db)
    await writer.start()
    holder = sqlite3.connect(db_url.split("///", 1)[1], timeout=0, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    caplog.set_level(logging.DEBUG, logger="quiztutor.storage")

    class ReleaseAfterRetries(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if writer.held_retries >= 4 and holder.in_transaction:
                holder.rollback()

    release = ReleaseAfterRetries(logging.DEBUG)
    logging.getLogger("quiztutor.storage").addHandler(release)
    try:
        futures = [writer.submit(Pending(post_id, user, 0, True, NOW)) for user in range(50)]
        assert await asyncio.wait_for(asyncio.gather(*futures), WAIT) == [True] * 50
        assert writer.held_retries >= 4
        again = writer.submit(Pending(post_id, 3, 1, False, NOW))  # a second answer is no answer
        assert await asyncio.wait_for(again, WAIT) is False
    finally:
        logging.getLogger("quiztutor.storage").removeHandler(release)
        holder.close()
        await writer.close()
    assert db_rows(db_url, "SELECT count(*) FROM daily_answer") == [(50,)]
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert sum("transient database error" in w for w in warnings) == 1, warnings
    assert sum("available again" in w for w in warnings) == 1, warnings


# -- the bot, with a flood --------------------------------------------------------------


async def flood_with_an_outage(
    fake: FakeDiscord,
    db_url: str,
    tmp_path: Path,
    fault: Callable[[], Awaitable[None]],
    repair: Callable[[], Awaitable[None]],
    argv_prefix: list[str] | None = None,
) -> BotProcess:
    """Post, then RATE reactions per second for FLOOD_S with the database away for
    DOWN_FOR_S; returns the (stopped) bot once every answer is in the database."""
    await preconfigure_daily(db_url, fake)
    members = [fake.add_user(f"m{i:05d}") for i in range(int(RATE * FLOOD_S))]
    for member in members:
        fake.add_member(fake.guild, member)
    settings = make_settings(tmp_path, database_url=db_url)
    await register_commands(settings, fake.token, fake.guild.id)
    bot = BotProcess(bot_env(fake.env(), db_url), tmp_path / "bot.log", argv_prefix=argv_prefix)
    await bot.start()
    try:
        await bot.wait_started(WAIT)
        message = await fake.wait_for_message(is_daily_post, WAIT, channel=fake.channel2)
        await bot_reactions_done(fake, message, 3)
        loop = asyncio.get_running_loop()
        start = loop.time()

        async def outage() -> None:
            await asyncio.sleep(DOWN_AT_S)  # the fault's schedule, not a synchronisation
            await fault()
            # Meanwhile the bot keeps serving what needs no database.
            helped = await fake.slash(fake.users_list[0], "help", timeout=10)
            assert helped.text
            await asyncio.sleep(max(0.0, start + DOWN_AT_S + DOWN_FOR_S - loop.time()))
            await repair()

        fault_task = asyncio.create_task(outage())
        rng = random.Random(5)
        for index, member in enumerate(members):
            await fake.react(message, member, ANSWER_EMOJI[rng.randrange(3)])
            await asyncio.sleep(max(0.0, start + (index + 1) / RATE - loop.time()))
        await fault_task
        deadline = loop.time() + 60
        while count(db_url) < len(members):  # polls another process's database
            assert loop.time() < deadline, f"{count(db_url)} of {len(members)} answers"
            await asyncio.sleep(0.2)
        assert await bot.stop() == 0
    finally:
        if bot.proc is not None and bot.proc.returncode is None:
            await bot.kill()
    rows = db_rows(db_url, "SELECT post_id, user_id FROM daily_answer")
    assert len(rows) == len(set(rows)) == len(members)
    assert integrity(db_url) == ["ok"]
    return bot


def count(db_url: str) -> int:
    return int(db_rows(db_url, "SELECT count(*) FROM daily_answer")[0][0])


@pytest.mark.slow
async def test_postgres_restarted_during_a_flood_loses_and_doubles_no_answer(
    discord_fake: FakeDiscord, tmp_path: Path, own_postgres: Cluster
) -> None:
    bot = await flood_with_an_outage(
        discord_fake, own_postgres.url, tmp_path, own_postgres.stop, own_postgres.start
    )
    assert_outage_logged_once(bot)


@pytest.mark.slow
@pytest.mark.sqlite_only
async def test_sqlite_directory_read_only_during_a_flood_loses_and_doubles_no_answer(
    discord_fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await with_read_only_folder(
        tmp_path,
        lambda url, down, up, prefix: flood_with_an_outage(
            discord_fake, url, tmp_path, down, up, prefix
        ),
    )
    assert_outage_logged_once(bot, may_not_bite=True)
