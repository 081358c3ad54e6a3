"""Database health, per backend: is DATABASE_URL usable, reachable, migrated and sound?

Used at start-up (`check_url` before anything opens the database, `opening_errors`
around the first connection) and by `quiztutor doctor` (`diagnose`). Every message
shows the URL with its password replaced by `***` (`redact_text`): no password is ever
printed or logged.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from bot.common.errors import SetupError
from bot.common.redact import passwords_in, redact_text

SQLITE_EXAMPLE = "sqlite+aiosqlite:///data/quiztutor.db"
POSTGRES_EXAMPLE = "postgresql+asyncpg://USER:PASSWORD@HOST:5432/DB"
ASYNC_DRIVERS = {"sqlite": "aiosqlite", "postgresql": "asyncpg"}
KINDS = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}
CONNECT_TIMEOUT_S = 10.0


def scrub(text: str, url: str) -> str:
    """`text` (e.g. a driver's error message) with the URL's password taken out."""
    text = redact_text(text)
    for password in sorted(passwords_in(url), key=len, reverse=True):
        text = text.replace(password, "***")
    return text


def check_url(url: str) -> URL:
    """The parsed URL if quiztutor can use it; a SetupError (message and fix) otherwise.

    No connection is made: this is what can be said from the URL and the local disk.
    """
    shown = redact_text(url)
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise SetupError(
            f"DATABASE_URL is not a database URL: {shown}",
            f"Use {SQLITE_EXAMPLE} or {POSTGRES_EXAMPLE}.",
        ) from None
    backend, driver = parsed.get_backend_name(), parsed.get_driver_name()
    if backend not in ASYNC_DRIVERS:
        raise SetupError(
            f"DATABASE_URL uses {backend}; quiztutor runs on SQLite or PostgreSQL.",
            f"Use {SQLITE_EXAMPLE} or {POSTGRES_EXAMPLE}.",
        )
    wanted = ASYNC_DRIVERS[backend]
    if driver != wanted:
        example = SQLITE_EXAMPLE if backend == "sqlite" else POSTGRES_EXAMPLE
        raise SetupError(
            f"DATABASE_URL {shown} uses the driver {driver}; quiztutor needs the async "
            f"driver {wanted}.",
            f"Write it as {backend}+{wanted}://..., e.g. {example}.",
        )
    if importlib.util.find_spec(wanted) is None:
        extra = " 'quiztutor[postgres]'" if backend == "postgresql" else f" {wanted}"
        raise SetupError(
            f"DATABASE_URL {shown} needs the {wanted} package, which is not installed.",
            f"pip install{extra}",
        )
    if backend == "sqlite":
        _check_sqlite_location(parsed)
    elif parsed.host and "@" in parsed.host:  # SQLAlchemy cut the password at its first @
        raise SetupError(
            f"DATABASE_URL {shown} has an @ in its password that is not percent-encoded.",
            "Write each @ of the password as %40 (e.g. p%40ss for p@ss).",
        )
    elif not parsed.host or not parsed.database:
        raise SetupError(
            f"DATABASE_URL {shown} names no host or no database.",
            f"Write it as {POSTGRES_EXAMPLE}.",
        )
    return parsed


def _check_sqlite_location(parsed: URL) -> None:
    database = parsed.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    path = Path(database)
    if path.is_dir():
        raise SetupError(
            f"DATABASE_URL points at {path}, which is a folder.",
            f"Name a file inside it, e.g. sqlite+aiosqlite:///{path / 'quiztutor.db'}.",
        )
    # The nearest existing ancestor must be a folder we may write into.
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if ancestor.exists() and not ancestor.is_dir():
        raise SetupError(
            f"{ancestor} is a file, so the database {path} cannot be created in it.",
            f"Move {ancestor} away, or set DATABASE_URL to another location.",
        )
    target = path if path.exists() else ancestor
    if not os.access(target, os.W_OK) or not _can_create_in(
        path.parent if path.exists() else ancestor
    ):
        raise SetupError(
            f"The database {path} cannot be written here (no write permission on {target}).",
            "Give the bot's user write access, or set DATABASE_URL to a writable location.",
        )


def _can_create_in(folder: Path) -> bool:
    """Whether a file can be made in `folder` (SQLite makes its -wal and -shm files there).
    Tried for real: permissions alone do not tell (root on a read-only mount or /proc)."""
    try:
        handle, name = tempfile.mkstemp(prefix=".quiztutor-probe-", dir=folder)
    except OSError:
        return False
    os.close(handle)
    os.unlink(name)
    return True


def opening_error(url: str, exc: BaseException) -> SetupError:
    """A SetupError for a database that would not open (server down, refused login...)."""
    reason = scrub(str(getattr(exc, "orig", None) or exc), url).strip().splitlines()
    detail = reason[0] if reason else type(exc).__name__
    shown = redact_text(url)
    if make_url(url).get_backend_name() == "postgresql":
        fix = (
            "Check that the server runs and accepts this user and database "
            f"(psql '{_libpq_url(url)}'), then fix DATABASE_URL."
        )
    else:
        fix = "Check DATABASE_URL and the file's permissions."
    return SetupError(f"Cannot open the database {shown}: {detail}", fix, exit_code=1)


@asynccontextmanager
async def opening_errors(url: str) -> AsyncIterator[None]:
    """Turns the driver's exceptions while opening the database into a SetupError."""
    try:
        yield
    except SetupError:
        raise
    except Exception as exc:  # any driver error: refused, timed out, bad login...
        raise opening_error(url, exc) from exc


def _libpq_url(url: str) -> str:
    """The URL as psql and pg_dump take it (no +driver), password redacted."""
    return redact_text("postgresql://" + url.partition("://")[2])


def pg_dump_command(url: str, destination: str | Path) -> str:
    """The exact `pg_dump` command that backs up this PostgreSQL database."""
    parsed = make_url(url)
    password = " (the password from PGPASSWORD or ~/.pgpass)" if parsed.password else ""
    return f"pg_dump --format=custom --file='{destination}' '{_libpq_url(url)}'{password}"


# -- doctor ---------------------------------------------------------------------------------


@dataclass
class Diagnosis:
    """What `quiztutor doctor` prints for the database."""

    ok: bool
    detail: str
    fix: str = ""
    kind: str = ""
    problems: list[str] = field(default_factory=list)


async def _probe(url: str) -> tuple[bool, str | None, list[str]]:
    """(exists, revision, integrity problems), without creating or migrating anything."""
    from bot.db.database import Database, EngineOptions, is_sqlite, sqlite_path

    if is_sqlite(url) and not sqlite_path(url).exists():
        return False, None, []
    options = EngineOptions(pool_size=1, max_overflow=0, connect_timeout_s=CONNECT_TIMEOUT_S)
    async with opening_errors(url):
        db = await Database.open(url, migrate=False, options=options)
        try:
            revision = await asyncio.wait_for(db.current_revision(), CONNECT_TIMEOUT_S * 2)
            return True, revision, await db.integrity_check()
        finally:
            await db.close()


def diagnose(url: str) -> Diagnosis:
    """The database check of `quiztutor doctor`: kind, connectivity, revision vs head,
    integrity (SQLite: PRAGMA integrity_check; PostgreSQL: no invalid index)."""
    from bot.db.database import HEAD as head

    shown = redact_text(url)
    try:
        parsed = check_url(url)
    except SetupError as exc:
        return Diagnosis(False, exc.message, exc.fix)
    kind = KINDS[parsed.get_backend_name()]
    try:
        exists, revision, problems = asyncio.run(_probe(url))
    except SetupError as exc:
        return Diagnosis(False, exc.message, exc.fix, kind)
    if not exists:
        return Diagnosis(
            True, f"{kind} {shown} does not exist yet; it is created on first run", "", kind
        )
    if problems:
        restore = (
            "restore the latest backup (docs/operations.md)"
            if kind == "SQLite"
            else "REINDEX the invalid index, or restore the latest pg_dump backup"
        )
        return Diagnosis(
            False, f"integrity check failed: {'; '.join(problems[:3])}", restore, kind, problems
        )
    if revision != head:
        return Diagnosis(
            False,
            f"schema at revision {revision}, code expects {head}",
            "start the bot once: migrations run at start",
            kind,
        )
    integrity = "integrity ok" if kind == "SQLite" else "connected, no invalid index"
    return Diagnosis(True, f"{kind} {shown} at revision {revision}, {integrity}", "", kind)
