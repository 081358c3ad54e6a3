"""Faults of the database for the outage tests (issue 28.6): the SQLite file's folder
made read-only while the bot runs, and what the bot's log says of an outage."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from testkit.processes import BotProcess


@dataclass
class ReadOnlyFolder:
    """A SQLite database in a folder of its own that `read_only` makes read-only (the
    folder and every file in it) and `writable` gives back. `prefix` runs the bot
    without root's right to ignore file modes."""

    folder: Path
    prefix: list[str]
    saved: dict[Path, int] = field(default_factory=dict)

    @property
    def db_url(self) -> str:
        return f"sqlite+aiosqlite:///{self.folder / 'quiztutor.db'}"

    async def read_only(self) -> None:
        for path in [self.folder, *self.folder.iterdir()]:
            self.saved[path] = stat.S_IMODE(path.stat().st_mode)
            path.chmod(self.saved[path] & ~0o222)

    async def writable(self) -> None:
        for path, mode in self.saved.items():
            if path.exists():  # SQLite removes its -shm and -wal when the bot stops
                path.chmod(mode)


def read_only_folder(tmp_path: Path) -> ReadOnlyFolder:
    folder = tmp_path / "data"
    folder.mkdir()
    prefix: list[str] = []
    if os.geteuid() == 0:
        # Root ignores file modes: the bot runs without that privilege.
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: a read-only folder would not bind")
        prefix = [setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--"]
    return ReadOnlyFolder(folder, prefix)


def outage_lines(bot: BotProcess) -> tuple[int, int]:
    """How often the bot's log says an outage started, and that it ended."""
    log = bot.stderr_tail(10_000_000)
    return log.count("transient database error"), log.count("available again")


# What an outage test runs: (database URL, take it away, bring it back, command prefix).
Run = Callable[
    [str, Callable[[], Awaitable[None]], Callable[[], Awaitable[None]], list[str]],
    Awaitable[BotProcess],
]


async def with_read_only_folder(tmp_path: Path, run: Run) -> BotProcess:
    """`run` on a SQLite database whose folder goes read-only and back; writable again
    afterwards whatever happened."""
    fault = read_only_folder(tmp_path)
    try:
        return await run(fault.db_url, fault.read_only, fault.writable, fault.prefix)
    finally:
        await fault.writable()


def assert_outage_logged_once(bot: BotProcess, *, may_not_bite: bool = False) -> None:
    """The outage's start and end logged once each, and no traceback. `may_not_bite`: a
    read-only SQLite folder may not stop the bot at all (in WAL mode with its connections
    open it writes right through the open files); then neither line is there."""
    started, ended = outage_lines(bot)
    if may_not_bite:
        assert started == ended <= 1
    else:
        assert (started, ended) == (1, 1)
    assert "Traceback" not in bot.stderr_tail(10_000_000)
