"""The real bot as a child process (`python -m bot run`), for kill/restart/two-process tests.

`python -m testkit.processes run` is exactly `quiztutor run` (bot.cli.main)
plus ONE observable marker on stdout: ``QT-STARTED recovered=N`` once the daily
driver's start-up (reaction recovery, catch-up) is done, and a shorter wait for the
servers after READY (the stand-in sends them at once; see `_install_quick_ready`). Tests wait on that line
instead of sleeping. With ``QT_CLOCK_SHIFT_S`` set, the clock where the bot decides
(`Services.clock`: the daily driver, the outbox's leases) runs that many seconds ahead,
as if the process started that much later, and so does the scheduler's (its jobs fire
by that clock); nothing else in the bot changes. With ``QT_STALL_PROBE`` set, a
coroutine on the bot's event loop keeps the worst lateness of a 5 ms sleep, and each
SIGUSR1 prints it (``QT-STALL worst_ms=X``, since the last one) and starts over:
`BotProcess.worst_stall_ms`, the bot's loop stall seen from outside.

`BotProcess` starts such a child against the Discord stand-in (`fake.env()`), keeps
its stderr for failure messages, and stops it with SIGTERM or SIGKILL.
"""

# Per-call `timeout=` arguments are the point of the wait helpers below.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

MARKER = "QT-STARTED"
STALL = "QT-STALL"
STALL_PROBE = "QT_STALL_PROBE"
STALL_TICK_S = 0.005
GUILD_READY_S = 0.5
CLOCK_SHIFT = "QT_CLOCK_SHIFT_S"
ROOT = Path(__file__).resolve().parents[1]


def _install_marker() -> None:
    from bot.daily.jobs import DailyJobs
    from bot.daily.reactions import ReactionHandler

    original_start = DailyJobs.start
    original_recover_all = ReactionHandler.recover_all
    recovered: list[int] = []

    async def recover_all(self: ReactionHandler) -> int:
        count = await original_recover_all(self)
        recovered.append(count)
        return count

    async def start(self: DailyJobs) -> None:
        await original_start(self)
        print(f"{MARKER} recovered={sum(recovered)}", flush=True)

    ReactionHandler.recover_all = recover_all  # type: ignore[method-assign]
    DailyJobs.start = start  # type: ignore[method-assign]


class BotProcess:
    """One `quiztutor run` child process; `await start()`, then `kill()` or `stop()`."""

    def __init__(
        self, env: dict[str, str], log_path: Path, *, argv_prefix: list[str] | None = None
    ) -> None:
        self.env = env
        self.argv_prefix = argv_prefix or []  # e.g. setpriv: the bot without some privileges
        self.log_path = log_path
        self.proc: asyncio.subprocess.Process | None = None
        self.lines: list[str] = []
        self._line_seen = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> BotProcess:
        self._stderr = self.log_path.open("ab")
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv_prefix,
            sys.executable,
            "-m",
            "testkit.processes",
            "run",
            cwd=ROOT,
            env=self.env,
            stdout=asyncio.subprocess.PIPE,
            stderr=self._stderr,
        )
        self._reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        async for raw in self.proc.stdout:
            self.lines.append(raw.decode(errors="replace").rstrip("\n"))
            self._line_seen.set()

    def stderr_tail(self, chars: int = 3000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:]

    async def wait_started(self, timeout: float = 30.0) -> int:
        """Until the start-up marker; returns how many answers start-up recovered."""
        line = await self._wait_line(MARKER, 0, timeout, "start")
        return int(line.split("recovered=")[1])

    async def worst_stall_ms(self, timeout: float = 10.0) -> float:
        """The bot loop's worst stall since the last call (or its start): needs
        ``QT_STALL_PROBE`` in its environment."""
        assert self.proc is not None
        seen = len(self.lines)
        self.proc.send_signal(signal.SIGUSR1)
        line = await self._wait_line(STALL, seen, timeout, "report its loop stall")
        return float(line.split("worst_ms=")[1])

    async def _wait_line(self, prefix: str, skip: int, timeout: float, what: str) -> str:
        """The first stdout line from index `skip` on that starts with `prefix`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for line in self.lines[skip:]:
                if line.startswith(prefix):
                    return line
            assert self.proc is not None
            if self.proc.returncode is not None:
                raise AssertionError(
                    f"bot exited with {self.proc.returncode}: {self.stderr_tail()}"
                )
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"bot did not {what} in {timeout}s: {self.stderr_tail()}")
            self._line_seen.clear()
            try:
                await asyncio.wait_for(self._line_seen.wait(), min(remaining, 0.5))
            except TimeoutError:
                pass  # re-check returncode

    async def kill(self) -> None:
        """SIGKILL: no shutdown code runs, like a power cut or the OOM killer."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await self._reap(10)

    async def stop(self, timeout: float = 15.0) -> int:
        """SIGTERM, the way a service manager stops the bot; returns the exit status."""
        assert self.proc is not None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
        return await self._reap(timeout)

    async def _reap(self, timeout: float) -> int:
        assert self.proc is not None
        try:
            try:
                code = await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                # `wait()` also waits for the stdout pipe to close (Python 3.11.7+), which a
                # child still starting (torch importing) may hold a while after the bot
                # itself has died: the bot's exit is what this waits for.
                if self.proc.returncode is None:
                    raise
                code = self.proc.returncode
        finally:
            if self.proc.returncode is None:
                self.proc.kill()
                await self.proc.wait()
            if self._reader is not None:
                # A child the bot left behind may still hold its stdout: stop reading
                # instead of waiting for an end of file that would never come.
                done, _ = await asyncio.wait({self._reader}, timeout=2)
                if not done:
                    self._reader.cancel()
                await asyncio.gather(self._reader, return_exceptions=True)
            self._stderr.close()
        return code


def bot_env(fake_env: dict[str, str], database_url: str, **extra: Any) -> dict[str, str]:
    """Environment of a bot child: the stand-in, the test's database, no torch worker."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "QUIZ_"))}
    env.update(fake_env)
    env.update(
        DATABASE_URL=database_url,
        DEMO_WORKER="false",
        LOG_LEVEL="INFO",
        PYTHONPATH=str(ROOT),
    )
    env.update({k.upper(): str(v) for k, v in extra.items()})
    return env


def integrity(database_url: str) -> list[str]:
    """["ok"] when the database is sound: SQLite's integrity check; on PostgreSQL, no
    index left invalid (what an interrupted index build leaves behind)."""
    from testkit.databases import db_rows

    if database_url.startswith("sqlite"):
        return [str(r[0]) for r in db_rows(database_url, "PRAGMA integrity_check")]
    invalid = db_rows(
        database_url, "SELECT indexrelid::regclass::text FROM pg_index WHERE NOT indisvalid"
    )
    return [f"invalid index {r[0]}" for r in invalid] or ["ok"]


def _install_clock_shift(seconds: float) -> None:
    from datetime import datetime, timedelta, tzinfo

    import apscheduler.executors.base as executors_base
    import apscheduler.schedulers.base as schedulers_base
    from apscheduler.triggers import date, interval

    import bot.discord.client as client
    from bot.common.settings import Settings
    from bot.common.times import utcnow
    from bot.container import Services, start_services

    shift = timedelta(seconds=seconds)

    def shifted() -> datetime:
        return utcnow() + shift

    async def start(settings: Settings) -> Services:
        return await start_services(settings, clock=shifted)

    client.start_services = start  # type: ignore[assignment]

    class ShiftedDateTime(datetime):
        @classmethod
        def now(cls, tz: tzinfo | None = None) -> ShiftedDateTime:
            return super().now(tz) + shift

    # APScheduler 3 reads `datetime.now` in these modules (when a job is due, whether it
    # fired too late, when an interval starts): its jobs fire by the shifted clock too.
    for module in (schedulers_base, executors_base, interval, date):
        module.datetime = ShiftedDateTime


def _install_stall_probe() -> None:
    from bot.daily.jobs import DailyJobs

    original_start = DailyJobs.start
    worst = [0.0]
    running: list[asyncio.Task[None]] = []

    async def probe() -> None:
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(STALL_TICK_S)
            worst[0] = max(worst[0], loop.time() - start - STALL_TICK_S)

    def report() -> None:
        print(f"{STALL} worst_ms={worst[0] * 1000:.2f}", flush=True)
        worst[0] = 0.0

    async def start(self: DailyJobs) -> None:
        await original_start(self)
        loop = asyncio.get_running_loop()
        running.append(loop.create_task(probe(), name="stall-probe"))
        loop.add_signal_handler(signal.SIGUSR1, report)

    DailyJobs.start = start  # type: ignore[method-assign]


def _install_quick_ready() -> None:
    """The stand-in sends every GUILD_CREATE right after READY, so discord.py's wait for
    more (`guild_ready_timeout`, 2 s) is idle time at every start of a test's bot; half a
    second still covers a busy machine's gaps between them."""
    from bot.discord.client import QuizTutorBot

    original_init = QuizTutorBot.__init__

    def init(self: QuizTutorBot, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        self._connection.guild_ready_timeout = GUILD_READY_S

    QuizTutorBot.__init__ = init  # type: ignore[method-assign]


if __name__ == "__main__":
    if os.environ.get(STALL_PROBE):
        _install_stall_probe()  # first: running before the marker says "started"
    _install_marker()
    _install_quick_ready()
    if os.environ.get(CLOCK_SHIFT):
        _install_clock_shift(float(os.environ[CLOCK_SHIFT]))
    from bot.cli.main import main

    sys.exit(main(sys.argv[1:]))
