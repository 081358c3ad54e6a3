"""Old answers count (migration 0008): the answers recorded before review cards existed
(quiz answers, and the daily answers of settled posts, without a `review_log` row) are
replayed into the cards, in time order, exactly once; `member_activity` (the `/me`
calendar) is counted from the whole log.

Synchronous (alembic's connection), with its own table definitions (the columns as of
revision 0008, whatever the models become), in batches: 1,000 answers or 200 members per
statement, so a big table is never read at once.

1. `review_log.guild_id` is filled in from the quiz session or the daily post.
2. Every quiz result and every settled daily answer is inserted into `review_log` with ON
   CONFLICT DO NOTHING on its source (UNIQUE): what was there is untouched, the rest goes
   in once (a second run inserts nothing). Old answers have no time taken: right rates
   Good, wrong Again.
3. Member by member, each card's whole log is replayed in time order (`bot.learning.memory_rules
   .replay`); cards that gained old answers are rewritten, the others are kept as they are
   (their answers were applied live). The daily counts are rebuilt from the replay.

Running it again changes nothing (tests/test_learning_replay.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from bot.common.times import as_utc
from bot.db.base import UTCDateTime
from bot.learning.memory_rules import replay
from bot.learning.review_rules import DAILY, QUIZ, SCHEDULER, rating_for

BATCH = 1000
USERS = 200

review_log = sa.table(
    "review_log",
    sa.column("id", sa.Integer),
    sa.column("source", sa.String),
    sa.column("ref", sa.String),
    sa.column("user_id", sa.BigInteger),
    sa.column("question_id", sa.String),
    sa.column("rating", sa.Integer),
    sa.column("correct", sa.Boolean),
    sa.column("reviewed_at", UTCDateTime),
    sa.column("guild_id", sa.BigInteger),
)
review_card = sa.table(
    "review_card",
    sa.column("user_id", sa.BigInteger),
    sa.column("question_id", sa.String),
    sa.column("card", sa.JSON),
    sa.column("due", UTCDateTime),
    sa.column("last_review", UTCDateTime),
    sa.column("reviews", sa.Integer),
    sa.column("lapses", sa.Integer),
    sa.column("open_mistake", sa.Boolean),
    sa.column("last_wrong_at", UTCDateTime),
)
quiz_result = sa.table(
    "quiz_result",
    sa.column("session_id", sa.String),
    sa.column("question_id", sa.String),
    sa.column("user_id", sa.BigInteger),
    sa.column("correct", sa.Boolean),
    sa.column("answered_at", UTCDateTime),
)
quiz_session = sa.table("quiz_session", sa.column("id", sa.String), sa.column("guild_id"))
daily_answer = sa.table(
    "daily_answer",
    sa.column("post_id", sa.Integer),
    sa.column("user_id", sa.BigInteger),
    sa.column("correct", sa.Boolean),
    sa.column("answered_at", UTCDateTime),
)
daily_post = sa.table(
    "daily_post",
    sa.column("id", sa.Integer),
    sa.column("guild_id", sa.BigInteger),
    sa.column("question_id", sa.String),
    sa.column("settled", sa.Boolean),
)
daily_config = sa.table(
    "guild_daily_config", sa.column("guild_id", sa.BigInteger), sa.column("timezone", sa.String)
)
member_activity = sa.table(
    "member_activity",
    sa.column("user_id", sa.BigInteger),
    sa.column("day", sa.Date),
    sa.column("answers", sa.Integer),
    sa.column("right", sa.Integer),
    sa.column("due_reviews", sa.Integer),
    sa.column("due_right", sa.Integer),
)
memory_model = sa.table(
    "memory_model",
    sa.column("guild_id", sa.BigInteger),
    sa.column("next_fit_at", UTCDateTime),
    sa.column("reviews", sa.Integer),
    sa.column("members", sa.Integer),
    sa.column("held_out", sa.Integer),
    sa.column("rescheduled", sa.Integer),
)
CARD_COLUMNS = ("card", "due", "last_review", "reviews", "lapses", "open_mistake", "last_wrong_at")
# Rewrites one card (executemany with b_ parameters); also used by `bot.learning.memory_store`.
UPDATE_CARD = (
    sa.update(review_card)
    .where(
        review_card.c.user_id == sa.bindparam("b_user_id"),
        review_card.c.question_id == sa.bindparam("b_question_id"),
    )
    .values({name: sa.bindparam(name, type_=review_card.c[name].type) for name in CARD_COLUMNS})
)


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


def _log_rows(conn: Connection, rows: Iterable[Any], source: str) -> set[tuple[int, str]]:
    """Insert these answers into the log where their source is not there yet; their cards."""
    values = [
        {
            "source": source,
            "ref": str(ref),
            "user_id": int(user_id),
            "question_id": question_id,
            "rating": int(rating_for(bool(correct))),
            "correct": bool(correct),
            "reviewed_at": as_utc(when),
            "guild_id": guild_id,
        }
        for ref, user_id, question_id, correct, when, guild_id in rows
    ]
    if not values:
        return set()
    inserted = conn.execute(
        _insert(conn)(review_log)
        .on_conflict_do_nothing()
        .returning(review_log.c.user_id, review_log.c.question_id),
        values,
    )
    return {(int(u), str(q)) for u, q in inserted}


def insert_old_answers(conn: Connection) -> tuple[int, set[tuple[int, str]]]:
    """Step 2: (answers inserted, their cards)."""
    touched: set[tuple[int, str]] = set()
    inserted = 0
    quiz = (
        sa.select(
            quiz_result.c.session_id,
            quiz_result.c.user_id,
            quiz_result.c.question_id,
            quiz_result.c.correct,
            quiz_result.c.answered_at,
            quiz_session.c.guild_id,
        )
        .join(quiz_session, quiz_session.c.id == quiz_result.c.session_id)
        .order_by(quiz_result.c.session_id, quiz_result.c.question_id)
        .limit(BATCH)
    )
    daily = (
        sa.select(
            daily_answer.c.post_id,
            daily_answer.c.user_id,
            daily_post.c.question_id,
            daily_answer.c.correct,
            daily_answer.c.answered_at,
            daily_post.c.guild_id,
        )
        .join(daily_post, daily_post.c.id == daily_answer.c.post_id)
        .where(daily_post.c.settled.is_(True))  # open posts are applied when they settle
        .order_by(daily_answer.c.post_id, daily_answer.c.user_id)
        .limit(BATCH)
    )
    for query, source, keys in (
        (quiz, QUIZ, (quiz_result.c.session_id, quiz_result.c.question_id)),
        (daily, DAILY, (daily_answer.c.post_id, daily_answer.c.user_id)),
    ):
        after: tuple[Any, Any] | None = None
        while True:
            page = query if after is None else query.where(sa.tuple_(*keys) > sa.tuple_(*after))
            rows = conn.execute(page).all()
            if not rows:
                break
            last = rows[-1]
            after = (last[0], last[2] if source == QUIZ else last[1])
            won = _log_rows(conn, rows, source)
            inserted += len(won)
            touched |= won
    return inserted, touched


def _zones(conn: Connection) -> dict[int, tzinfo]:
    zones: dict[int, tzinfo] = {}
    for guild_id, name in conn.execute(sa.select(daily_config.c.guild_id, daily_config.c.timezone)):
        try:
            zones[int(guild_id)] = ZoneInfo(name)
        except Exception:
            continue
    return zones


def replay_cards(conn: Connection, touched: set[tuple[int, str]], result: Replayed) -> None:
    """Step 3: replay every member's cards; rewrite the touched ones; recount the days."""
    zones = _zones(conn)
    conn.execute(sa.delete(member_activity))
    last_user: int | None = None
    while True:
        users_query = sa.select(review_log.c.user_id).distinct().order_by(review_log.c.user_id)
        if last_user is not None:
            users_query = users_query.where(review_log.c.user_id > last_user)
        users = [int(u) for (u,) in conn.execute(users_query.limit(USERS))]
        if not users:
            break
        last_user = users[-1]
        rows = conn.execute(
            sa.select(
                review_log.c.user_id,
                review_log.c.question_id,
                review_log.c.rating,
                review_log.c.correct,
                review_log.c.reviewed_at,
                review_log.c.guild_id,
            )
            .where(review_log.c.user_id.in_(users))
            .order_by(
                review_log.c.user_id,
                review_log.c.question_id,
                review_log.c.reviewed_at,
                review_log.c.id,
            )
        )
        histories: dict[tuple[int, str], list[Any]] = {}
        for row in rows:
            histories.setdefault((int(row[0]), str(row[1])), []).append(row)
        days: dict[tuple[int, Any], list[int]] = {}
        cards = []
        for key, history in histories.items():
            card = replay([(r[2], bool(r[3]), as_utc(r[4])) for r in history], SCHEDULER)
            result.reviews += len(history)
            for r, due in zip(history, card.due_flags, strict=True):
                zone = zones.get(int(r[5]), UTC) if r[5] is not None else UTC
                counts = days.setdefault((key[0], as_utc(r[4]).astimezone(zone).date()), [0] * 4)
                counts[0] += 1
                counts[1] += int(bool(r[3]))
                counts[2] += int(due)
                counts[3] += int(due and bool(r[3]))
            if key in touched:
                cards.append(
                    {
                        "user_id": key[0],
                        "question_id": key[1],
                        **{c: getattr(card, c) for c in CARD_COLUMNS},
                    }
                )
        if cards:
            statement = _insert(conn)(review_card)
            conn.execute(
                statement.on_conflict_do_update(
                    index_elements=["user_id", "question_id"],
                    set_={c: statement.excluded[c] for c in CARD_COLUMNS},
                ),
                cards,
            )
            result.cards += len(cards)
        if days:
            conn.execute(
                sa.insert(member_activity),
                [
                    {
                        "user_id": u,
                        "day": d,
                        "answers": c[0],
                        "right": c[1],
                        "due_reviews": c[2],
                        "due_right": c[3],
                    }
                    for (u, d), c in days.items()
                ],
            )


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
    fill_log_guilds(conn)
    result.inserted, touched = insert_old_answers(conn)
    replay_cards(conn, touched, result)
    add_models(conn, now)
    return result
