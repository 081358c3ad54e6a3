"""A killed bot leaves no process behind (issue 28.2): the demo worker, its forkserver, the
chart process and multiprocessing's resource tracker end within seconds of a `kill -9`
of the bot, whether it was starting, idle or busy."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.discord.runner import register_commands
from testkit.bots import make_settings
from testkit.processes import BotProcess, bot_env
from testkit.standin.server import FakeDiscord

pytestmark = pytest.mark.slow

GONE_WITHIN_S = 10.0


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, start time in clock ticks) of a live process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = text[text.rindex(")") + 2 :].split()
    if fields[0] == "Z":  # a zombie has ended; only its parent's wait is missing
        return None
    return int(fields[1]), int(fields[19])


def descendants(root: int) -> dict[int, int]:
    """Every process below `root`: pid -> start time (a reused pid has another)."""
    parents: dict[int, list[int]] = {}
    starts: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (info := _stat(int(entry))) is not None:
            parents.setdefault(info[0], []).append(int(entry))
            starts[int(entry)] = info[1]
    found: dict[int, int] = {}
    todo = list(parents.get(root, []))
    while todo:
        pid = todo.pop()
        found[pid] = starts[pid]
        todo.extend(parents.get(pid, []))
    return found


def still_running(processes: dict[int, int]) -> list[int]:
    return [pid for pid, start in processes.items() if (_stat(pid) or (0, -1))[1] == start]


async def until(condition: Callable[[], object], within_s: float, what: str) -> None:
    """Poll another process's state (there is nothing to wait on) until it holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within_s
    while not condition():
        if loop.time() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.05)


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()[:100]
    except OSError:
        return b"?"


@pytest.mark.parametrize("moment", ["starting", "idle", "busy"])
async def test_a_killed_bot_leaves_no_process_behind(
    discord_fake: FakeDiscord, tmp_path: Path, db_url: str, moment: str
) -> None:
    fake = discord_fake
    settings = make_settings(tmp_path, database_url=db_url)
    await register_commands(settings, fake.token, fake.guild.id)
    env = bot_env(fake.env(), db_url, demo_worker="true", demo_device="cpu", demo_cooldown_s=0)
    bot = await BotProcess(env, tmp_path / "bot.log").start()
    assert bot.proc is not None
    pid = bot.proc.pid
    try:
        if moment == "starting":
            # The demo worker is being started (torch imports for seconds): kill now.
            await until(lambda: descendants(pid), 30, "the bot's first child process")
        else:
            await bot.wait_started(60)
            await until(
                lambda: "demo worker ready" in bot.stderr_tail(100_000), 120, "the demo worker"
            )
            member = fake.users_list[0]
            start = await fake.slash(member, "quiz start", timeout=10)
            assert start.message is not None
            answer = next(c for c in start.message.custom_ids() if ":a:" in c)
            await fake.click(start.message, answer, member, timeout=10)
            me = await fake.slash(member, "me", timeout=10)
            chart = await me.wait_followup(lambda m: bool(m.attachments), timeout=60)
            assert chart.attachments  # the chart process has drawn
            if moment == "busy":
                demo = await fake.slash(
                    member,
                    "demo",
                    name="accumulation",
                    micro_batches=16,
                    micro_batch_size=256,
                    timeout=10,
                )
                assert demo.type == 5  # deferred: the demo is running in the worker
        children = descendants(pid)
        assert children, "the bot started no child process"
    finally:
        await bot.kill()
    try:
        await until(lambda: not still_running(children), GONE_WITHIN_S, "")
    except TimeoutError:
        left = {p: cmdline(p) for p in still_running(children)}
        for orphan in left:  # leave the machine clean whatever the outcome
            os.kill(orphan, signal.SIGKILL)
        pytest.fail(f"processes left {GONE_WITHIN_S:g} s after kill -9 ({moment}): {left}")
