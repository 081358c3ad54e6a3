"""Database fixtures: a migrated database per test and a small quiz bank.

The database is the test's own (`db_url`, tests/support/backend.py): a real SQLite file
(not :memory:, so WAL, locking and reopening behave as in production) or, with
QUIZTUTOR_TEST_DB=postgres, a fresh database on a PostgreSQL server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, date, datetime

import pytest
import sqlalchemy as sa

from bot.db.database import Database
from bot.db.tables.daily import DailyPost, MemberStats
from bot.quizbank import Quiz, QuizBank, parse_quiz
from bot.quizbank.files import load_bank


def make_quiz(
    quiz_id: str, answers: list[int], n_choices: int = 3, prefix: str | None = None
) -> Quiz:
    """A bilingual quiz whose question i has `answers[i]` as its correct index."""
    prefix = prefix or quiz_id[:2]
    lines = [
        f"id: {quiz_id}",
        f"title: {{en: {quiz_id} title, id: judul {quiz_id}}}",
        "description: {en: About it, id: Tentangnya}",
        "questions:",
    ]
    for index, answer in enumerate(answers, start=1):
        choices = ", ".join(f"c{n}" for n in range(n_choices))
        lines += [
            f"  - id: {prefix}-{index:02d}",
            f"    prompt: {{en: 'Question {index}?', id: 'Pertanyaan {index}?'}}",
            f"    choices: {{en: [{choices}], id: [{choices}]}}",
            f"    answer: {answer}",
            f"    explanation: {{en: Because {index}., id: Karena {index}.}}",
        ]
    return parse_quiz("\n".join(lines) + "\n")


# A fixed instant for tests that need one time (a post's reveal, an answer).
NOW = datetime(2026, 5, 1, 1, 0, tzinfo=UTC)


@pytest.fixture
def bank() -> QuizBank:
    """Two quizzes: "mixed" (5 questions mx-01..05) and "accum" (3 questions ac-01..03)."""
    return QuizBank(
        [make_quiz("mixed", [0, 1, 2, 1, 0], prefix="mx"), make_quiz("accum", [2, 0, 1])]
    )


@pytest.fixture
async def open_db(db_url: str) -> AsyncIterator[Callable[[], Awaitable[Database]]]:
    """Opens extra Database objects on the test's file (a second bot process, a restart)."""
    opened: list[Database] = []

    async def open_one() -> Database:
        database = await Database.open(db_url)
        opened.append(database)
        return database

    yield open_one
    for database in opened:
        await database.close()


@pytest.fixture
async def db(open_db: Callable[[], Awaitable[Database]]) -> Database:
    return await open_db()


async def seed_member_stats(
    db: Database, guild_id: int, rows: list[tuple[int, int, int, int, int]]
) -> None:
    """Member stats rows: (user_id, current, longest, answered, correct)."""
    async with db.session() as session:
        for user_id, current, longest, answered, correct in rows:
            session.add(
                MemberStats(
                    guild_id=guild_id,
                    user_id=user_id,
                    current_streak=current,
                    longest_streak=longest,
                    answered=answered,
                    correct=correct,
                )
            )
        await session.commit()


async def table_names(db: Database) -> set[str]:
    """The tables in the database (either backend)."""
    async with db.engine.connect() as conn:
        return set(await conn.run_sync(lambda sync: sa.inspect(sync).get_table_names()))


@pytest.fixture(scope="session")
def shipped_bank() -> QuizBank:
    """Every shipped quiz (read once per run; tests must not change it)."""
    return load_bank()


async def make_post(db: Database, guild_id: int = 1, day: date = date(2026, 5, 1)) -> int:
    async with db.session() as session:
        post = DailyPost(
            guild_id=guild_id, day=day, question_id="mx-01", channel_id=7, reveal_at=NOW
        )
        session.add(post)
        await session.commit()
    assert post.id is not None
    return post.id
