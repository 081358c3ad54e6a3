"""The daily answers' writer (`answer_writer`, the one batch writer of `bot.db.batch_writer`)
and its SQL: one multi-row insert per batch, compiled once per size.

`INSERT ... VALUES (..) x rows ON CONFLICT DO NOTHING RETURNING post_id, user_id`,
built with SQLAlchemy Core's dialect-aware insert (SQLite and PostgreSQL both have
`on_conflict_do_nothing`) and compiled for the engine's own dialect and driver, then run
at the driver level on a synchronous connection (`insert_rows`).
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from bot.common.times import naive_utc
from bot.db.batch_writer import BatchWriter
from bot.db.database import Database

# A batch holds at most this many answers.
MAX_BATCH = 5000
# Gathering a trickle: at most this long (or until the writer's MIN_BATCH are queued).
# 12 ms: fewer transactions at a steady 500/s (7 rows each instead of 4.7 at 8 ms) for a
# grading p50 of 7 ms, within its 10 ms budget (`bench.steady`).
GATHER_S = 0.012
# Rows per multi-VALUES statement (5 bound values per row: well under SQLite's 32766
# variables per statement and PostgreSQL's 32767 parameters).
ROWS_PER_STATEMENT = 512
COLUMNS = ("post_id", "user_id", "choice", "correct", "answered_at")


@dataclass(frozen=True)
class Pending:
    """One answer for the writer."""

    post_id: int
    user_id: int
    choice: int
    correct: bool
    answered_at: datetime


AnswerWriter = BatchWriter[Pending, bool]


def answer_writer(
    db: Database, gather_s: float = GATHER_S, clock: Callable[[], float] = time.monotonic
) -> AnswerWriter:
    """The daily answers' writer: `await writer.submit(Pending(...))` is True when it was
    the member's first answer to the post (the first submission of a key wins). Held
    through a database outage without a limit: the reactions stay on Discord's messages."""
    return BatchWriter(
        db, write_answers, name="answer-writer", max_batch=MAX_BATCH, gather_s=gather_s,
        warm=compile_all, clock=clock,
    )  # fmt: skip


def write_answers(conn: Connection, batch: list[Pending]) -> list[bool]:
    """One transaction (`insert_rows`); for each answer, whether it was the first."""
    inserted = insert_rows(conn, batch)
    firsts = []
    # Both databases insert VALUES rows in order, so the first submission of a key won.
    for pending in batch:
        key = (pending.post_id, pending.user_id)
        firsts.append(key in inserted)
        inserted.discard(key)
    return firsts


_COMPILED: dict[tuple[str, str, str, int], tuple[str, tuple[int, ...] | None]] = {}


def _insert_sql(dialect: sa.Dialect, rows: int) -> tuple[str, tuple[int, ...] | None]:
    # Every engine has its own dialect object; the SQL depends only on these.
    key = (dialect.name, dialect.driver, str(dialect.paramstyle), rows)
    if key not in _COMPILED:
        _COMPILED[key] = _compile_insert(dialect, rows)
    return _COMPILED[key]


def _compile_insert(dialect: sa.Dialect, rows: int) -> tuple[str, tuple[int, ...] | None]:
    """`INSERT ... VALUES (..) x rows ON CONFLICT DO NOTHING RETURNING post_id, user_id`.

    Built with SQLAlchemy Core's dialect-aware insert (SQLite and PostgreSQL both have
    `on_conflict_do_nothing`) and compiled for the engine's own dialect and driver
    (`?` for sqlite3, `$n` for asyncpg). Returns the SQL and, for each placeholder in
    order, the index of its value in the flat row-major parameter list. Cached per row
    count; `_padded` keeps the counts to a few.
    """
    table = sa.table("daily_answer", *(sa.column(name) for name in COLUMNS))
    if dialect.name == "postgresql":
        insert: Any = postgresql.insert
    elif dialect.name == "sqlite":
        insert = sqlite.insert
    else:
        raise NotImplementedError(
            f"the answer writer supports SQLite and PostgreSQL, not {dialect.name}"
        )
    names = [f"{column}_{row}" for row in range(rows) for column in COLUMNS]
    statement = (
        insert(table)
        .values(
            [{column: sa.bindparam(f"{column}_{row}") for column in COLUMNS} for row in range(rows)]
        )
        .on_conflict_do_nothing()
        .returning(table.c.post_id, table.c.user_id)
    )
    compiled = statement.compile(dialect=dialect)
    order = compiled.positiontup or names
    index = {name: i for i, name in enumerate(names)}
    positions = tuple(index[name] for name in order)
    # None: the placeholders are in row-major order already (sqlite3, asyncpg).
    return str(compiled), None if positions == tuple(range(len(names))) else positions


PAD_STEP = 64


def _padded(rows: int) -> int:
    """The statement size for `rows` rows: the next power of two up to 64, then the next
    multiple of 64 (at most 14 compiled statements per dialect). The extra rows repeat
    the chunk's last row and ON CONFLICT DO NOTHING drops the repeats, so every chunk is
    one statement whatever its size."""
    if rows <= PAD_STEP:
        return 1 << (rows - 1).bit_length()
    return -(-rows // PAD_STEP) * PAD_STEP


def compile_all(dialect: sa.Dialect) -> None:
    for size in sorted({_padded(n) for n in range(1, ROWS_PER_STATEMENT + 1)}):
        _insert_sql(dialect, size)


def _sqlite_time(value: datetime) -> str:
    # SQLAlchemy's SQLite DateTime storage format, naive UTC (see models.UTCDateTime).
    return naive_utc(value).isoformat(" ", "microseconds")


def _statements(dialect: sa.Dialect, batch: list[Pending]) -> list[tuple[str, tuple[Any, ...]]]:
    """The batch's INSERT statements (ROWS_PER_STATEMENT rows each) and their values."""
    # asyncpg takes datetime objects, never strings.
    when = _sqlite_time if dialect.name == "sqlite" else naive_utc
    statements = []
    for start in range(0, len(batch), ROWS_PER_STATEMENT):
        chunk = batch[start : start + ROWS_PER_STATEMENT]
        values: list[object] = []
        for p in chunk:
            values += (p.post_id, p.user_id, p.choice, p.correct, when(p.answered_at))
        size = _padded(len(chunk))
        values += values[-len(COLUMNS) :] * (size - len(chunk))
        sql, order = _insert_sql(dialect, size)
        params = tuple(values) if order is None else tuple(values[i] for i in order)
        statements.append((sql, params))
    return statements


def insert_rows(conn: Connection, batch: list[Pending]) -> set[tuple[int, int]]:
    """Insert `batch` in one transaction on a synchronous connection (the writer's own
    thread on SQLite, `AsyncConnection.run_sync` on PostgreSQL); the keys inserted."""
    if conn.dialect.name == "sqlite":
        return insert_rows_sqlite(conn, batch)
    inserted: set[tuple[int, int]] = set()
    with conn.begin():
        for sql, params in _statements(conn.dialect, batch):
            # Driver-level execution of the compiled statement: SQLAlchemy's per-row
            # parameter processing would cost more than the insert.
            result = conn.exec_driver_sql(sql, params)
            inserted.update((row[0], row[1]) for row in result)
    return inserted


def insert_rows_sqlite(conn: Connection, batch: list[Pending]) -> set[tuple[int, int]]:
    """`insert_rows` on SQLite straight on the driver's connection (sqlite3): at a steady
    few hundred answers a second each batch is a handful of rows, and SQLAlchemy's
    execution and transaction bookkeeping cost more than the rows. The connection is the
    writer's own and never in a SQLAlchemy transaction; sqlite3 opens one at the INSERT."""
    raw = conn.connection.dbapi_connection
    assert raw is not None
    inserted: set[tuple[int, int]] = set()
    sql, params = "", ()
    try:
        cursor = raw.cursor()
        try:
            for sql, params in _statements(conn.dialect, batch):
                cursor.execute(sql, params)
                inserted.update((row[0], row[1]) for row in cursor.fetchall())
            raw.commit()
        finally:
            cursor.close()
    except sqlite3.Error as exc:
        # As SQLAlchemy would raise it (the writer and its callers know those): a
        # connection closed under us is invalidated, so the writer takes a fresh one.
        closed = isinstance(exc, sqlite3.ProgrammingError)
        if closed:
            conn.invalidate(exc)
        else:
            with contextlib.suppress(sqlite3.Error):
                raw.rollback()
        raise DBAPIError.instance(
            sql, params, exc, sqlite3.Error, connection_invalidated=closed
        ) from exc
    return inserted
