"""The tables of migration 0008's replay (`bot.learning.replay_store`) with their columns
as of revision 0008, whatever the models become, and its statements."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from bot.db.base import UTCDateTime

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


def insert_missing(query: sa.Select[Any], columns: list[str]) -> sa.Insert:
    """PostgreSQL: INSERT of the rows of `query` the log lacks (by source), with ids
    drawn from the log's sequence in the query's order (a volatile column of a sorted
    subquery is computed after the sort)."""
    numbered = query.add_columns(sa.Sequence("review_log_id_seq").next_value().label("id"))
    rows = numbered.subquery("old")
    log = review_log.alias("logged")
    have = sa.exists().where(
        *[log.c[name] == rows.c[name] for name in ("source", "ref", "user_id", "question_id")]
    )
    keep = ["id", *columns, "guild_id"]
    return sa.insert(review_log).from_select(
        keep, sa.select(*[rows.c[name] for name in keep]).where(~have)
    )
