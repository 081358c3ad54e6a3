"""The database goes away during a live round and comes back (issue 28.6, the live half).

The real bot as a subprocess plays a round of two 10-second questions; a few members
answer question 1, then the database goes away for 10 s, while more members press
(some twice, one after the deadline). Every press is answered within Discord's 3 s (at
once, or deferred and followed up once the database is back); afterwards each member's
first press before the deadline is in `live_answer` exactly once, the late one is told
so, question 1 (whose time ran out during the outage) is closed and revealed once, the
round goes on to question 2 and its scoreboard, and the outage is logged once.
PostgreSQL: a server of the test's own, stopped for 10 s. SQLite: the file's directory
made read-only for 10 s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot.discord.runner import register_commands
from testkit.bots import make_settings
from testkit.databases import db_rows
from testkit.processes import BotProcess, bot_env, integrity
from testkit.standin.driver import InteractionResult, PendingInteraction
from testkit.standin.models import FakeUser
from testkit.standin.server import FakeDiscord
from tests.support.live import (
    answer_id,
    button_id,
    lobby,
    question,
    questions_posted,
    reveal,
    reveals_posted,
    round_id_of,
    scoreboard,
    thread_of,
)
from tests.support.outages import assert_outage_logged_once, with_read_only_folder
from tests.support.pgcluster import Cluster

WAIT = 30.0
SECONDS = 10  # each question's time (the least a round allows)
DOWN_FOR_S = 10.0
# After the database is back: the writer's and the driver's next tries (at most 2 s
# apart), the reveal, a pause of 5 s, the next question.
AFTER_S = 40.0

Fault = Callable[[], Awaitable[None]]


def answered_text(result: InteractionResult) -> str:
    """The answer the member saw: the reply, or the follow-up of a deferred one."""
    return " ".join(m.content for m in result.messages() if not m.loading)


async def pressed(fake: FakeDiscord, inter: PendingInteraction) -> InteractionResult:
    """Discord had the bot's first answer within 3 s (the stand-in refuses a later one)."""
    await asyncio.wait_for(inter.answered.wait(), WAIT)
    assert not inter.expired, f"{inter.name}: answered after Discord's 3 s deadline"
    return InteractionResult(fake, inter)


async def final_text(result: InteractionResult, wait_s: float) -> str:
    await result.fake.wait_until(lambda: answered_text(result), wait_s, "the press's answer")
    return answered_text(result)


async def round_with_an_outage(
    fake: FakeDiscord,
    db_url: str,
    tmp_path: Path,
    fault: Fault,
    repair: Fault,
    argv_prefix: list[str] | None = None,
) -> BotProcess:
    host = fake.users_list[0]
    members = [host] + [fake.add_user(f"player{i}") for i in range(5)]
    for member in members[1:]:
        fake.add_member(fake.guild, member)
    settings = make_settings(tmp_path, database_url=db_url)
    await register_commands(settings, fake.token, fake.guild.id)
    bot = BotProcess(bot_env(fake.env(), db_url), tmp_path / "bot.log", argv_prefix=argv_prefix)
    await bot.start()
    loop = asyncio.get_running_loop()
    try:
        await bot.wait_started(WAIT)
        await fake.wait_connected(WAIT)
        await fake.slash(host, "quiz live start", questions=2, seconds=SECONDS, timeout=10)
        thread = await thread_of(fake, fake.channel)
        hall = await lobby(fake, thread)
        round_id = round_id_of(hall)
        for member in members:
            await fake.click(hall, button_id(hall, "j"), member, timeout=10)
        await fake.click(hall, button_id(hall, "s"), host, timeout=10)
        first = await question(fake, thread, 1)
        seen = loop.time()  # the question's deadline is at most SECONDS after this
        a, b, c, d, e, f = members

        # Before the outage: two answers, recorded at once.
        before = [await fake.click(first, answer_id(first, p), m) for m, p in ((a, 0), (b, 1))]
        assert [("Your answer" in r.content) for r in before] == [True, True]

        await fault()
        down_at = loop.time()
        # During it, well before the deadline: c presses twice (the first counts), d and
        # e once, a again (answered already).
        presses: list[tuple[FakeUser, int]] = [(c, 2), (c, 0), (d, 3), (e, 0), (a, 1)]
        during = [await fake.press(first, answer_id(first, p), m) for m, p in presses]
        results = [await pressed(fake, inter) for inter in during]
        assert loop.time() - seen < SECONDS - 2, "the presses came too late to test"
        # f presses after the deadline (the database still away, or just back).
        await asyncio.sleep(max(0.0, seen + SECONDS + 1 - loop.time()))
        late = await pressed(fake, await fake.press(first, answer_id(first, 1), f))
        await asyncio.sleep(max(0.0, down_at + DOWN_FOR_S - loop.time()))  # the fault's span
        await repair()

        texts = [await final_text(r, AFTER_S) for r in results]
        assert "Your answer: C" in texts[0], texts
        assert "Your answer: D" in texts[2] and "Your answer: A" in texts[3], texts
        assert "first answer counts" in texts[4] and "answered A" in texts[4], texts
        # c's second press was written with the first (one batch) or after it.
        assert "first answer counts" in texts[1] and "answered C" in texts[1], texts
        # Refused either way: judged late, or the question was closed when it came.
        told = await final_text(late, AFTER_S)
        assert "Too late" in told or "question is closed" in told, told

        await reveal(fake, thread, 1)  # its time ran out while the database was away
        second = await question(fake, thread, 2)
        for member in members:
            await fake.click(second, answer_id(second, 0), member, timeout=10)
        await scoreboard(fake, thread, AFTER_S)
        assert await bot.stop() == 0
    finally:
        if bot.proc is not None and bot.proc.returncode is None:
            await bot.kill()

    assert len(questions_posted(fake, thread, 1)) == len(questions_posted(fake, thread, 2)) == 1
    assert len(reveals_posted(fake, thread, 1)) == len(reveals_posted(fake, thread, 2)) == 1
    boards = [
        m for m in fake.messages(thread) if any(cid == f"lv:{round_id}:r" for cid in m.custom_ids())
    ]
    assert len(boards) == 1
    answers = db_rows(
        db_url, "SELECT number, user_id, position FROM live_answer WHERE round_id = ?", (round_id,)
    )
    one = {u: p for n, u, p in answers if n == 1}
    assert len([r for r in answers if r[0] == 1]) == len(one) == 5
    assert one == {a.id: 0, b.id: 1, c.id: 2, d.id: 3, e.id: 0}
    assert sorted(u for n, u, _ in answers if n == 2) == sorted(m.id for m in members)
    assert integrity(db_url) == ["ok"]
    return bot


@pytest.mark.slow
async def test_postgres_restarted_during_a_live_round_loses_and_doubles_no_press(
    discord_fake: FakeDiscord, tmp_path: Path, own_postgres: Cluster
) -> None:
    bot = await round_with_an_outage(
        discord_fake, own_postgres.url, tmp_path, own_postgres.stop, own_postgres.start
    )
    assert_outage_logged_once(bot)


@pytest.mark.slow
@pytest.mark.sqlite_only
async def test_sqlite_directory_read_only_during_a_live_round_loses_and_doubles_no_press(
    discord_fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await with_read_only_folder(
        tmp_path,
        lambda url, down, up, prefix: round_with_an_outage(
            discord_fake, url, tmp_path, down, up, prefix
        ),
    )
    assert_outage_logged_once(bot, may_not_bite=True)
