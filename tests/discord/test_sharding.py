"""Shards across processes: settings that must add up, the stand-in's routing by shard,
and two real `quiztutor run` shard processes on one database (either backend)."""

# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.common.errors import SetupError
from bot.common.settings import Settings
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.daily.service import DailyService
from bot.db.database import Database
from bot.quizbank.files import SHIPPED_DIR, load_bank
from testkit.databases import db_rows
from testkit.processes import ROOT, BotProcess, bot_env
from testkit.standin import FakeGuild, FakeMessage
from testkit.standin.server import FakeDiscord
from testkit.times import passed_today
from tests.support.daily import is_daily_post

# Real subprocesses (bot processes, the CLI, torch workers): left out by -m 'not slow'.
pytestmark = pytest.mark.slow

WAIT = 30.0


def shard_of(guild_id: int, count: int = 2) -> int:
    return (guild_id >> 22) % count


# -- settings -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"shard_ids": [1]}, "SHARD_IDS=[1] needs SHARD_COUNT"),
        ({"shard_count": 2, "shard_ids": [5]}, "SHARD_IDS=[5] has 5, but with SHARD_COUNT=2"),
        ({"shard_count": 2, "shard_ids": [0, 0]}, "lists a shard twice"),
        ({"shard_count": 2, "shard_ids": []}, "SHARD_IDS=[] runs no shard"),
    ],
)
def test_shard_settings_that_do_not_add_up_are_refused(env: dict[str, Any], says: str) -> None:
    with pytest.raises(SetupError) as caught:
        Settings(_env_file=None, **env)  # type: ignore[call-arg]
    assert says in caught.value.message
    assert caught.value.fix


def test_shard_settings_that_add_up_are_kept() -> None:
    settings = Settings(_env_file=None, shard_count=4, shard_ids=[3, 0])  # type: ignore[call-arg]
    assert (settings.shard_count, settings.shard_ids) == (4, [3, 0])
    assert Settings(_env_file=None, shard_count=2).shard_ids is None  # type: ignore[call-arg]


def test_run_prints_the_shard_error_in_one_line_without_a_traceback(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SHARD_", "DISCORD_"))}
    env.update(SHARD_IDS="[1]", DISCORD_TOKEN="MTIz.abc.def", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "bot", "run"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "SHARD_IDS=[1] needs SHARD_COUNT" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "data").exists()  # refused before touching anything


# -- the stand-in ---------------------------------------------------------------------------


async def test_stand_in_reports_its_shard_count(discord_fake: FakeDiscord) -> None:
    discord_fake.shard_count = 3
    headers = {"Authorization": f"Bot {discord_fake.token}"}
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"{discord_fake.api_base}/gateway/bot", headers=headers) as response,
    ):
        body = await response.json()
    assert body["shards"] == 3


# -- two shard processes --------------------------------------------------------------------


def guilds_by_shard(fake: FakeDiscord) -> dict[int, list[FakeGuild]]:
    """Four servers: the default one and three more, two on each of 2 shards."""
    fake.shard_count = 2
    by_shard: dict[int, list[FakeGuild]] = {0: [], 1: []}
    by_shard[shard_of(fake.guild.id)].append(fake.guild)
    for shard in (0, 1):
        while len(by_shard[shard]) < 2:
            guild = fake.add_guild(
                f"Shard {shard} {len(by_shard[shard])}", channels=("a", "b"), shard=shard
            )
            by_shard[shard].append(guild)
    assert all(shard_of(g.id) == s for s, gs in by_shard.items() for g in gs)
    return by_shard


async def configure_all(db_url: str, guilds: list[FakeGuild]) -> None:
    """What `/daily setup` stores: a post time 2 min ago, so a start-up catch-up posts."""
    zone, time = passed_today()
    db = await Database.open(db_url)
    try:
        service = DailyService(db, load_bank([SHIPPED_DIR]))
        for guild in guilds:
            channel = guild.text_channels[1]
            await service.configs.configure(guild.id, channel.id, time, zone, locale="en")
    finally:
        await db.close()


def posts_in(fake: FakeDiscord, guild: FakeGuild) -> list[FakeMessage]:
    return [m for m in fake.messages(guild.text_channels[1]) if is_daily_post(m)]


def shard_env(fake: FakeDiscord, db_url: str, shard: int) -> dict[str, str]:
    return bot_env(fake.env(), db_url, shard_count=2, shard_ids=f"[{shard}]")


async def test_two_shard_processes_on_one_new_database_post_only_their_own_servers_once(
    discord_fake: FakeDiscord, tmp_path: Path, db_url: str
) -> None:
    fake = discord_fake
    by_shard = guilds_by_shard(fake)
    every = by_shard[0] + by_shard[1]
    procs = {s: BotProcess(shard_env(fake, db_url, s), tmp_path / f"shard{s}.log") for s in (0, 1)}

    async def start_both() -> None:
        await asyncio.gather(*(p.start() for p in procs.values()))
        await asyncio.gather(*(p.wait_started(WAIT) for p in procs.values()))

    # `quiztutor sync`, once, as an operator registers the commands.
    sync = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "sync", env=bot_env(fake.env(), db_url), cwd=tmp_path
    )
    assert await asyncio.wait_for(sync.wait(), WAIT) == 0
    try:
        # 1. Both at the same moment on an empty database: one migrates, the other waits.
        await start_both()
        await fake.wait_until(lambda: len(fake.gateway.connected) == 2, WAIT, "two shards")
        sessions = sorted(fake.gateway.connected, key=lambda s: s.shard[0])
        assert [s.shard for s in sessions] == [[0, 2], [1, 2]]
        assert [await p.stop() for p in procs.values()] == [0, 0]

        # 2. Every server has a daily question due; both processes restart together.
        await configure_all(db_url, every)
        await start_both()
        await fake.wait_until(
            lambda: all(len(posts_in(fake, g)) >= 1 for g in every), WAIT, "a post per server"
        )
        # Each shard's servers were announced only to that shard's session.
        for session in fake.gateway.connected:
            created = {int(g.id) for g in _guild_creates(session)}
            assert created == {g.id for g in by_shard[session.shard[0]]}

        # 3. Reactions reach only the owner of each server, which records each once.
        voters = [fake.add_user(f"voter{i}") for i in range(3)]
        for guild in every:
            for user in voters:
                fake.add_member(guild, user)
        for guild in every:
            [message] = posts_in(fake, guild)
            await fake.wait_until(
                lambda m=message: fake.bot_user.id in m.reactors(ANSWER_EMOJI[1]),
                WAIT,
                "the bot's reactions",
            )
            for index, user in enumerate(voters):
                await fake.react(message, user, ANSWER_EMOJI[index % 2])
        expected = len(every) * len(voters)
        await _wait_for(lambda: _count(db_url, "daily_answer") >= expected, WAIT, "answers")

        # 4. An admin reveals in every server: the owner settles and answers it.
        for guild in every:
            fake.add_member(guild, fake.admin, admin=True)
            result = await fake.slash(fake.admin, "daily reveal", guild=guild, timeout=WAIT)
            said = await result.wait_followup(timeout=WAIT)
            assert f"of {len(voters)}" in said.text(), said.text()
        assert [await p.stop() for p in procs.values()] == [0, 0]
    finally:
        for p in procs.values():
            if p.proc is not None and p.proc.returncode is None:
                await p.kill()

    logs = "".join(p.stderr_tail(200_000) for p in procs.values())
    assert "Traceback" not in logs, logs[-3000:]
    assert {g.id: len(posts_in(fake, g)) for g in every} == {g.id: 1 for g in every}
    posts = db_rows(db_url, "SELECT guild_id, COUNT(*) FROM daily_post GROUP BY guild_id")
    assert sorted((int(g), int(n)) for g, n in posts) == sorted((g.id, 1) for g in every)
    rows = db_rows(db_url, "SELECT post_id, user_id FROM daily_answer")
    assert len(rows) == len(set(rows)) == len(every) * len(voters)
    # Every reveal settled its own server: one answer per voter, streak 1 iff right.
    stats = db_rows(
        db_url,
        "SELECT s.guild_id, s.user_id, s.answered, s.correct, s.current_streak, a.correct"
        " FROM member_stats s JOIN daily_post p ON p.guild_id = s.guild_id"
        " JOIN daily_answer a ON a.post_id = p.id AND a.user_id = s.user_id",
    )
    assert len(stats) == len(every) * len(voters)
    for _guild, _user, answered, correct, streak, right in stats:
        assert (answered, correct, streak) == (1, int(bool(right)), int(bool(right)))
    assert db_rows(db_url, "SELECT COUNT(*) FROM daily_post WHERE settled") == [(len(every),)]
    for guild in every:
        reveals = [m for m in fake.messages(guild.text_channels[1]) if m.message_reference]
        assert len(reveals) == 1, guild.name


class _Guild:
    def __init__(self, payload: dict[str, Any]) -> None:
        self.id = payload["id"]


def _guild_creates(session: Any) -> list[_Guild]:
    import orjson

    frames = [orjson.loads(frame) for _seq, frame in session.log]
    return [_Guild(f["d"]) for f in frames if f.get("t") == "GUILD_CREATE"]


def _count(db_url: str, table: str) -> int:
    return int(db_rows(db_url, f"SELECT COUNT(*) FROM {table}")[0][0])


async def _wait_for(predicate: Any, timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await asyncio.to_thread(predicate):
        if loop.time() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)  # a poll interval of another process's database


FLOOD = 200  # members reacting in each of the two servers


async def test_kill_9_of_one_shard_during_a_flood_loses_nothing_after_its_restart(
    discord_fake: FakeDiscord, tmp_path: Path, db_url: str
) -> None:
    fake = discord_fake
    by_shard = guilds_by_shard(fake)
    guilds = {0: by_shard[0][0], 1: by_shard[1][0]}
    await configure_all(db_url, list(guilds.values()))
    members = {s: [fake.add_user(f"s{s}m{i:03d}") for i in range(FLOOD)] for s in (0, 1)}
    for shard, users in members.items():
        for user in users:
            fake.add_member(guilds[shard], user)
    procs = {s: BotProcess(shard_env(fake, db_url, s), tmp_path / f"shard{s}.log") for s in (0, 1)}
    try:
        await asyncio.gather(*(p.start() for p in procs.values()))
        await asyncio.gather(*(p.wait_started(WAIT) for p in procs.values()))
        messages = {}
        for shard, guild in guilds.items():
            await fake.wait_until(lambda g=guild: posts_in(fake, g), WAIT, "the daily posts")
            [messages[shard]] = posts_in(fake, guild)
            await fake.wait_until(
                lambda m=messages[shard]: fake.bot_user.id in m.reactors(ANSWER_EMOJI[1]),
                WAIT,
                "the bot's reactions",
            )
        for index in range(FLOOD):
            if index == FLOOD // 2:
                # Mid-flood, once shard 1 demonstrably records: kill -9 it. Shard 0 goes on.
                await _wait_for(lambda: _answers_in(db_url, guilds[1].id) > 0, WAIT, "answers")
                await procs[1].kill()
            for shard in (0, 1):
                await fake.react(messages[shard], members[shard][index], ANSWER_EMOJI[index % 2])
        await _wait_for(lambda: _answers_in(db_url, guilds[0].id) == FLOOD, WAIT, "shard 0")
        lost_while_down = FLOOD - _answers_in(db_url, guilds[1].id)
        assert lost_while_down >= FLOOD // 2  # nobody heard the second half yet
        # The restarted shard reads the reactions it missed from its open post.
        restarted = BotProcess(shard_env(fake, db_url, 1), tmp_path / "shard1-again.log")
        procs[1] = await restarted.start()
        recovered = await restarted.wait_started(WAIT)
        assert recovered == lost_while_down
        assert [await p.stop() for p in procs.values()] == [0, 0]
    finally:
        for p in procs.values():
            if p.proc is not None and p.proc.returncode is None:
                await p.kill()
    for shard, guild in guilds.items():
        rows = db_rows(
            db_url,
            "SELECT a.user_id, a.choice FROM daily_answer a JOIN daily_post p ON p.id = a.post_id"
            " WHERE p.guild_id = ?",
            (guild.id,),
        )
        assert sorted(int(u) for u, _c in rows) == sorted(m.id for m in members[shard])
        # Letters A and B as shown, stored as the choices as written (the post's order).
        [(stored,)] = db_rows(
            db_url, "SELECT choice_order FROM daily_post WHERE guild_id = ?", (guild.id,)
        )
        order = json.loads(stored) if isinstance(stored, str) else stored
        assert {int(u): int(c) for u, c in rows} == {
            m.id: order[i % 2] for i, m in enumerate(members[shard])
        }
    assert {g.id: len(posts_in(fake, g)) for g in guilds.values()} == {
        g.id: 1 for g in guilds.values()
    }


def _answers_in(db_url: str, guild_id: int) -> int:
    rows = db_rows(
        db_url,
        "SELECT COUNT(*) FROM daily_answer a JOIN daily_post p ON p.id = a.post_id"
        " WHERE p.guild_id = ?",
        (guild_id,),
    )
    return int(rows[0][0])
