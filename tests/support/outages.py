"""Faults of the database for the outage tests (issue 28.6): the SQLite file's folder
made read-only while the bot runs, and what the bot's log says of an outage."""

from __future__ import annotations

import os
import shutil
import stat
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
