"""The database the tests run on: SQLite files (the default) or a PostgreSQL server.

    QUIZTUTOR_TEST_DB=postgres \\
    QUIZTUTOR_TEST_PG_URL=postgresql+asyncpg://postgres@127.0.0.1:5432/postgres \\
    python -m pytest -q

runs the tests that touch the database (those using the `db_url` fixture, directly or
through `db`, `open_db`, `start_bot`, ...) against that server; `testkit.databases` makes
and drops the databases. Tests marked `sqlite_only` (PRAGMAs, file backups) and tests
that touch no database are deselected on that run; pytest reports how many.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from testkit.databases import (
    BACKEND,
    BACKENDS,
    PG_URL,
    dispose_database_url,
    new_database_url,
    on_postgres,
)

# -- pytest plugin ----------------------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "sqlite_only: needs SQLite by nature (PRAGMAs, file copies); deselected when "
        "QUIZTUTOR_TEST_DB=postgres",
    )
    config.addinivalue_line(
        "markers",
        "postgres_only: a race only PostgreSQL can show (SQLite serialises writers); "
        "deselected on the SQLite run",
    )
    if BACKEND not in BACKENDS:
        raise pytest.UsageError(f"QUIZTUTOR_TEST_DB must be one of {', '.join(BACKENDS)}")
    if on_postgres() and not PG_URL:
        raise pytest.UsageError(
            "QUIZTUTOR_TEST_DB=postgres needs QUIZTUTOR_TEST_PG_URL, an admin URL such as "
            "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
        )


def pytest_report_header(config: pytest.Config) -> str:
    if on_postgres():
        shown = make_url(PG_URL).render_as_string(hide_password=True)
        return f"quiztutor test database: postgres ({shown}); DB-touching tests only"
    return "quiztutor test database: sqlite (QUIZTUTOR_TEST_DB=postgres for PostgreSQL)"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not on_postgres():
        # Races that SQLite's single writer cannot show: they run on the PostgreSQL run.
        only_pg = [i for i in items if i.get_closest_marker("postgres_only") is not None]
        if only_pg:
            config.hook.pytest_deselected(items=only_pg)
            items[:] = [i for i in items if i.get_closest_marker("postgres_only") is None]
        return
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        touches_db = "db_url" in getattr(item, "fixturenames", ())
        if touches_db and item.get_closest_marker("sqlite_only") is None:
            keep.append(item)
        else:
            dropped.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.fixture
def db_url(tmp_path: Path) -> Iterator[str]:
    """The test's own database, not created yet (SQLite) or empty (PostgreSQL)."""
    url = new_database_url(tmp_path)
    yield url
    dispose_database_url(url)
