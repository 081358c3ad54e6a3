"""Files only the bot's user may read: the database and its backups are created with mode
0600 (their folders, where the bot makes them, 0700), and `.env`, which holds the bot's
token and the database's password, is checked by `quiztutor doctor`."""

from __future__ import annotations

import os
import stat
from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700


def make_folders(folder: Path) -> None:
    """`folder` and the folders above it that are missing, each with mode 0700."""
    missing = [f for f in (folder, *folder.parents) if not f.exists()]
    for each in reversed(missing):
        each.mkdir(mode=PRIVATE_FOLDER, exist_ok=True)


def create_private(path: Path, *, tighten: bool = False) -> None:
    """Create `path` empty with mode 0600 (and its missing folders with 0700), so whatever
    is written into it later (SQLite gives its -wal, -shm and -journal files the same mode)
    is never readable by others. An existing file is left as it is, unless `tighten`."""
    make_folders(path.parent)
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        if tighten:
            os.chmod(path, PRIVATE_FILE)
        return
    os.close(handle)


def env_file_check(path: Path = Path(".env")) -> tuple[bool, str, str]:
    """`quiztutor doctor`'s check of `.env`: (ok, detail, fix)."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return True, f"no {path} file (settings come from the environment)", ""
    if os.name == "nt" or not mode & 0o077:
        return True, f"{path} is readable by its owner only", ""
    return (
        False,
        f"{path} is open to other users of this machine (mode {mode:04o}); "
        "it holds the bot's token",
        f"chmod 600 {path}",
    )
