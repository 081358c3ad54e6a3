"""Backups: SQLite's online backup API; for PostgreSQL, the `pg_dump` command to run.

`backup(url, destination)` copies a SQLite database safely while the bot writes to it,
into a file only the bot's user may read (mode 0600).
PostgreSQL is backed up with its own tool (consistent while the bot runs, restorable
with pg_restore); `backup` raises a SetupError that gives the exact command.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path

from sqlalchemy.engine import make_url

from bot.common.errors import SetupError
from bot.common.private_files import create_private
from bot.common.redact import redact_text
from bot.db.health import check_url, pg_dump_command

SQLITE_HEADER = b"SQLite format 3\x00"


def _is_sqlite_file(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def _check_destination(source: Path, dest: Path) -> None:
    if dest.exists() and dest.resolve() == source.resolve():
        raise SetupError(
            f"The backup target {dest} is the database itself.",
            "Give another file, e.g. backups/quiztutor-$(date +%F).db",
        )
    if dest.is_dir():
        raise SetupError(
            f"The backup target {dest} is a folder.", f"Name a file in it: {dest}/quiztutor.db"
        )
    if dest.exists() and dest.stat().st_size > 0 and not _is_sqlite_file(dest):
        raise SetupError(
            f"{dest} exists and is not a SQLite database; it is left as it is.",
            "Give a new file name (or an older backup to overwrite).",
        )
    folder = dest.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise SetupError(
            f"The backup target {dest} cannot be written (no writable folder at {folder}).",
            "Choose a location the bot's user may write to.",
        )


async def backup(db_url_or_path: str | Path, dest_path: str | Path) -> Path:
    """A consistent copy via sqlite3's online backup API (safe while the bot writes)."""
    from bot.db.database import sqlite_path

    url = db_url_or_path if isinstance(db_url_or_path, str) and "://" in db_url_or_path else None
    if url is not None:
        check_url(url)
        if make_url(url).get_backend_name() == "postgresql":
            raise SetupError(
                f"{redact_text(url)} is a PostgreSQL database: back it up with pg_dump.",
                pg_dump_command(url, dest_path),
                exit_code=1,
            )
    source = sqlite_path(db_url_or_path)
    dest = Path(dest_path)
    if not source.is_file():
        raise SetupError(
            f"There is no database at {source} (DATABASE_URL).",
            "Check DATABASE_URL; the bot creates the database on its first run.",
            exit_code=2,
        )
    _check_destination(source, dest)

    def copy() -> None:
        create_private(dest, tighten=True)  # mode 0600 before a byte is copied into it
        with sqlite3.connect(source) as src, sqlite3.connect(dest) as out:
            src.backup(out)
        src.close()
        out.close()

    try:
        await asyncio.to_thread(copy)
    except (OSError, sqlite3.Error) as exc:
        raise SetupError(
            f"Backup to {dest} failed: {exc}",
            "Check the target's folder and free disk space.",
            exit_code=1,
        ) from exc
    return dest


def backup_database(database_url: str, destination: Path) -> str:
    """`quiztutor backup FILE`: copies the database; returns the line to print."""
    from bot.db.database import sqlite_path

    asyncio.run(backup(database_url, destination))
    return f"Backed up {sqlite_path(database_url)} to {destination}"
