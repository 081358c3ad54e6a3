"""Query plans of the statements the bot really issues: `captured(db)` records every
statement (and its parameters) run on the database meanwhile; `plan(db, ...)` is the
database's plan of one of them: EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL with
sequential scans priced out (on a test's tiny tables a scan is cheapest whatever the
indexes; the question is whether an index serves the statement)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from sqlalchemy import event

from bot.db.database import Database


@contextlib.contextmanager
def captured(db: Database) -> Iterator[list[tuple[str, Any]]]:
    statements: list[tuple[str, Any]] = []

    def record(
        conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool
    ) -> None:
        if not many:
            statements.append((statement, parameters))

    event.listen(db.engine.sync_engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", record)


def find(statements: list[tuple[str, Any]], *parts: str) -> tuple[str, Any]:
    """The first statement that contains every part (whitespace-insensitive)."""
    for statement, parameters in statements:
        flat = " ".join(statement.split())
        if all(part in flat for part in parts):
            return statement, parameters
    raise AssertionError(f"no statement with {parts} among {len(statements)}")


async def plan(db: Database, statement: str, parameters: Any, verbose: bool = False) -> str:
    """`verbose` (PostgreSQL): with each node's output expressions."""
    async with db.engine.connect() as conn:
        if db.is_sqlite:
            rows = await conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
            return "\n".join(str(row[-1]) for row in rows)
        await conn.exec_driver_sql("SET enable_seqscan = off")
        explain = "EXPLAIN VERBOSE " if verbose else "EXPLAIN "
        rows = await conn.exec_driver_sql(explain + statement, parameters)
        text = "\n".join(str(row[0]) for row in rows)
        await conn.rollback()
        return text
