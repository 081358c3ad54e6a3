"""Old answers count (migration 0008): the answers recorded before review cards existed
(quiz answers, and the daily answers of settled posts, without a `review_log` row) are
replayed into the cards, in time order, exactly once; `member_activity` (the `/me`
calendar) is counted from the whole log.

Synchronous (alembic's connection), with its own table definitions (`replay_sql`: the
columns as of revision 0008, whatever the models become). A year of a 10,000-member
server is a million answers, so nothing here goes one answer at a time:

1. `review_log.guild_id` is filled in from the quiz session or the daily post.
2. Every quiz result and every settled daily answer is inserted into `review_log` by one
   INSERT ... SELECT per source, ON CONFLICT DO NOTHING on its source (UNIQUE): what was
   there is untouched, the rest goes in once (a second run inserts nothing), numbered in
   the order the first version of this revision numbered them. Old answers have no time
   taken: right rates Good, wrong Again. (PostgreSQL: an anti-join instead, the unique
   index and the member index built again after.)
3. USERS members at a time, each card's whole log is replayed in time order
   (`bot.learning.replay_rules.Replayer`: fsrs's own steps, each distinct one computed
   once); cards that gained old answers are rewritten, the others are kept as they are
   (their answers were applied live). The daily counts are rebuilt from the replay.
   Rows are read with the driver's cursor and written with executemany (asyncpg: COPY).

Running it again changes nothing (tests/learning/test_learning_replay.py); a database upgraded by
this and by the first version, one review at a time, ends identical
(tests/learning/test_upgrade_replay.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from bot.db.base import UTCDateTime
from bot.learning.replay_rules import Chunk, ChunkReplayer, Replayer
from bot.learning.replay_sql import (
    CARD_COLUMNS,
    daily_answer,
    daily_config,
    daily_post,
    insert_missing,
    member_activity,
    memory_model,
    quiz_result,
    quiz_session,
    review_log,
)
from bot.learning.review_rules import DAILY, QUIZ, SCHEDULER, rating_for

BATCH = 1000
USERS = 500
CACHE_MIB = 128


@dataclass
class Replayed:
    inserted: int = 0  # old answers put into the log
    cards: int = 0  # cards rewritten
    reviews: int = 0  # log rows replayed


def _insert(conn: Connection) -> Any:
    return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert


def fill_log_guilds(conn: Connection) -> None:
    """Step 1: the server of each log row (NULL only for quizzes outside a server)."""
    top = conn.execute(sa.select(sa.func.max(review_log.c.id))).scalar() or 0
    session_guild = (
        sa.select(quiz_session.c.guild_id)
        .where(quiz_session.c.id == review_log.c.ref)
        .scalar_subquery()
    )
    post_guild = (
        sa.select(daily_post.c.guild_id)
        .where(daily_post.c.id == sa.cast(review_log.c.ref, sa.Integer))
        .scalar_subquery()
    )
    for low in range(0, top, BATCH * 10):
        in_range = (review_log.c.id > low) & (review_log.c.id <= low + BATCH * 10)
        for source, guild in ((QUIZ, session_guild), (DAILY, post_guild)):
            conn.execute(
                sa.update(review_log)
                .where(in_range, review_log.c.source == source, review_log.c.guild_id.is_(None))
                .values(guild_id=guild)
            )


def _old_answers(conn: Connection) -> list[Any]:
    """The quiz results and settled daily answers as log rows, each source in the order
    the log numbers them (a quiz's by session and question, a post's by member)."""
    right = int(rating_for(True))
    wrong = int(rating_for(False))
    quiz = (
        sa.select(
            sa.literal(QUIZ).label("source"),
            quiz_result.c.session_id.label("ref"),
            quiz_result.c.user_id,
            quiz_result.c.question_id,
            sa.case((quiz_result.c.correct, right), else_=wrong).label("rating"),
            quiz_result.c.correct,
            quiz_result.c.answered_at.label("reviewed_at"),
            quiz_session.c.guild_id,
        )
        .join(quiz_session, quiz_session.c.id == quiz_result.c.session_id)
        .where(sa.true())  # SQLite: ON CONFLICT after a join needs a WHERE to parse
        .order_by(quiz_result.c.session_id, quiz_result.c.question_id)
    )
    daily = (
        sa.select(
            sa.literal(DAILY).label("source"),
            sa.cast(daily_answer.c.post_id, sa.String).label("ref"),
            daily_answer.c.user_id,
            daily_post.c.question_id,
            sa.case((daily_answer.c.correct, right), else_=wrong).label("rating"),
            daily_answer.c.correct,
            daily_answer.c.answered_at.label("reviewed_at"),
            daily_post.c.guild_id,
        )
        .join(daily_post, daily_post.c.id == daily_answer.c.post_id)
        .where(daily_post.c.settled.is_(True))  # open posts are applied when they settle
        .order_by(daily_answer.c.post_id, daily_answer.c.user_id)
    )
    return [quiz, daily]


def insert_old_answers(conn: Connection) -> int:
    """Step 2, one INSERT ... SELECT per source: the answers inserted. Each new row gets a
    higher id than any row before (the log's ids only grow).

    PostgreSQL: its unique index on the source is built again after (one sort instead of
    a million inserts into it, with ON CONFLICT's speculative insertion: a third of the
    time); meanwhile an anti-join skips the answers the log has. Each candidate draws its
    id in order before that (as ON CONFLICT DO NOTHING draws one for a row it skips)."""
    columns = ["source", "ref", "user_id", "question_id", "rating", "correct", "reviewed_at"]
    postgres = conn.dialect.name == "postgresql"
    if postgres:
        conn.exec_driver_sql(f"ALTER TABLE review_log DROP CONSTRAINT {_UNIQUE_SOURCE}")
    inserted = 0
    for query in _old_answers(conn):
        if postgres:
            done = conn.execute(insert_missing(query, columns))
        else:
            done = conn.execute(
                _insert(conn)(review_log)
                .from_select([*columns, "guild_id"], query)
                .on_conflict_do_nothing()
            )
        inserted += max(0, done.rowcount or 0)
    if postgres:
        conn.exec_driver_sql(
            f"ALTER TABLE review_log ADD CONSTRAINT {_UNIQUE_SOURCE}"
            " UNIQUE (source, ref, user_id, question_id)"
        )
    return inserted


_UNIQUE_SOURCE = "uq_review_log_source"


def _zones(conn: Connection) -> dict[int, tzinfo]:
    zones: dict[int, tzinfo] = {}
    for guild_id, name in conn.execute(sa.select(daily_config.c.guild_id, daily_config.c.timezone)):
        try:
            zone = ZoneInfo(name)
        except Exception:
            continue
        zones[int(guild_id)] = UTC if zone.utcoffset(None) == timedelta(0) else zone
    return zones


def _marks(conn: Connection, n: int, first: int = 1) -> str:
    """n parameter markers in the driver's style (statements run with exec_driver_sql)."""
    style = conn.dialect.paramstyle
    if style == "qmark":
        return ", ".join("?" * n)
    if style == "numeric_dollar":
        return ", ".join(f"${i}" for i in range(first, first + n))
    if style in ("format", "pyformat"):
        return ", ".join(["%s"] * n)
    raise RuntimeError(f"unsupported parameter style {style}")


def _times(conn: Connection) -> tuple[Callable[[Any], datetime], Callable[[datetime], Any]]:
    """(driver value -> aware UTC datetime, aware UTC datetime -> driver value) of a
    `UTCDateTime` column: SQLite keeps its text, PostgreSQL naive timestamps."""
    if conn.dialect.name == "sqlite":
        return (
            lambda v: datetime.fromisoformat(v + "+00:00"),
            lambda v: v.isoformat(" ", "microseconds")[:26],  # without its "+00:00"
        )
    return (lambda v: v.replace(tzinfo=UTC), lambda v: v.replace(tzinfo=None))


def replay_cards(conn: Connection, top: int, result: Replayed) -> None:
    """Step 3: replay every member's cards (USERS members a read); rewrite the cards with
    a log row above id `top` (an old answer step 2 put in); recount the days.

    Rows are read and written with the driver's cursor (a million of each: SQLAlchemy's
    per-value processing would take longer than the replay), and the replay of one
    chunk runs in a thread while the database reads the next and writes the previous
    one (SQLite and asyncpg work without the GIL): two cores, about a third less time."""
    conn.execute(sa.delete(member_activity))
    users = [
        int(u)
        for (u,) in conn.execute(
            sa.select(review_log.c.user_id).distinct().order_by(review_log.c.user_id)
        )
    ]
    parse, stored = _times(conn)
    chunks = ChunkReplayer(
        Replayer(SCHEDULER), _zones(conn), top, parse, stored, conn.dialect.name == "sqlite"
    )
    read = (
        "SELECT user_id, question_id, rating, correct, reviewed_at, guild_id, id"
        f" FROM review_log WHERE user_id BETWEEN {_marks(conn, 1)} AND {_marks(conn, 1, 2)}"
        " ORDER BY user_id, question_id, reviewed_at, id"
    )
    cursor = conn.connection.cursor()
    if conn.dialect.driver == "asyncpg":
        cursor.execute(f"CREATE TEMPORARY TABLE {_CARDS} (LIKE review_card)")
    replaying: Future[Chunk] | None = None
    try:
        with ThreadPoolExecutor(1, thread_name_prefix="replay") as pool:
            for start in range(0, len(users) + USERS, USERS):
                chunk = users[start : start + USERS]
                nxt = None
                if chunk:
                    cursor.execute(read, (chunk[0], chunk[-1]))
                    nxt = pool.submit(chunks.replay, cursor.fetchall())
                if replaying is not None:
                    _write(conn, cursor, replaying.result(), result)
                replaying = nxt
        if conn.dialect.driver == "asyncpg":
            cursor.execute(f"DROP TABLE {_CARDS}")
    finally:
        cursor.close()


def _write(conn: Connection, cursor: Any, chunk: Chunk, result: Replayed) -> None:
    """A chunk's cards (upserted) and days counted: executemany at the driver; on asyncpg
    COPY (binary, no statement per row: under half the time), the cards through a
    temporary table and one upsert."""
    names = ("user_id", "question_id", *CARD_COLUMNS)
    upsert = " ON CONFLICT (user_id, question_id) DO UPDATE SET " + ", ".join(
        f"{c} = excluded.{c}" for c in CARD_COLUMNS
    )
    days = ("user_id", "day", "answers", "right", "due_reviews", "due_right")
    if conn.dialect.driver == "asyncpg":
        copy = conn.connection.dbapi_connection.run_async  # type: ignore[union-attr]
        if chunk.cards:
            copy(lambda c: c.copy_records_to_table(_CARDS, records=chunk.cards, columns=names))
            cursor.execute(
                f"INSERT INTO review_card ({', '.join(names)}) SELECT {', '.join(names)}"
                f" FROM {_CARDS}{upsert}"
            )
            cursor.execute(f"TRUNCATE {_CARDS}")
        if chunk.days:
            copy(
                lambda c: c.copy_records_to_table(
                    "member_activity", records=chunk.days, columns=days
                )
            )
    else:
        if chunk.cards:
            cursor.executemany(
                f"INSERT INTO review_card ({', '.join(names)})"
                f" VALUES ({_marks(conn, len(names))}){upsert}",
                chunk.cards,
            )
        if chunk.days:
            cursor.executemany(
                'INSERT INTO member_activity (user_id, day, answers, "right", due_reviews, due_right)'
                f" VALUES ({_marks(conn, 6)})",
                chunk.days,
            )
    result.reviews += chunk.reviews
    result.cards += len(chunk.cards)


_CARDS = "replayed_card"  # asyncpg: a chunk's cards, copied in, then upserted


def add_models(conn: Connection, now: Any) -> None:
    """A `memory_model` row for every server with reviews (its first weekly fit is due)."""
    guilds = (
        sa.select(review_log.c.guild_id)
        .where(review_log.c.guild_id.is_not(None))
        .distinct()
        .subquery()
    )
    have = sa.select(memory_model.c.guild_id)
    conn.execute(
        sa.insert(memory_model).from_select(
            ["guild_id", "next_fit_at", "reviews", "members", "held_out", "rescheduled"],
            sa.select(
                guilds.c.guild_id,
                sa.literal(now, UTCDateTime),
                sa.literal(0),
                sa.literal(0),
                sa.literal(0),
                sa.literal(0),
            ).where(guilds.c.guild_id.not_in(have)),
        )
    )


def replay_history(conn: Connection, now: Any) -> Replayed:
    """Steps 1-3 and the servers' model rows; idempotent."""
    result = Replayed()
    with large_page_cache(conn):
        _replay(conn, now, result)
    return result


@contextlib.contextmanager
def large_page_cache(conn: Connection) -> Iterator[None]:
    """SQLite: a page cache of CACHE_MIB for this connection while a migration writes or
    sorts a whole history (a million rows into indexes larger than the default 2 MiB),
    given back after."""
    if conn.dialect.name != "sqlite":
        yield
        return
    before = conn.exec_driver_sql("PRAGMA cache_size").scalar()
    conn.exec_driver_sql(f"PRAGMA cache_size = -{CACHE_MIB * 1024}")
    try:
        yield
    finally:
        conn.exec_driver_sql(f"PRAGMA cache_size = {int(before or -2000)}")
        conn.exec_driver_sql("PRAGMA shrink_memory")


def _replay(conn: Connection, now: Any, result: Replayed) -> None:
    fill_log_guilds(conn)
    top = conn.execute(sa.select(sa.func.max(review_log.c.id))).scalar() or 0
    # The log's member index is built again after the old answers are in: one sort of
    # a million rows instead of a million inserts in member order (half the time).
    conn.execute(sa.text("DROP INDEX ix_review_log_user"))
    result.inserted = insert_old_answers(conn)
    conn.execute(sa.text("CREATE INDEX ix_review_log_user ON review_log (user_id, reviewed_at)"))
    _analyze(conn, "review_log")  # the replay reads it by member
    replay_cards(conn, top, result)
    add_models(conn, now)
    _analyze(conn, "review_card", "member_activity")  # what the bot reads first after


def _analyze(conn: Connection, *tables: str) -> None:
    """PostgreSQL: fresh statistics of tables that just gained a million rows, so the
    next statements (and the bot's first queries) are planned for their size."""
    if conn.dialect.name == "postgresql":
        for table in tables:
            conn.exec_driver_sql(f"ANALYZE {table}")
