"""Performance III (issue 27): indexes and kept-up aggregates.

- `daily_answer(user_id, post_id)`: a member's daily answers (`/me`).
- `daily_post(guild_id, settled, day)`: a server's earlier unsettled posts (the settle's
  day order); `daily_post.graded` and a partial index of the posts not graded yet (a
  settle applies the answers to the review cards in short transactions after its own).
- `class_member`, `class_recall`: the class of each server and its recall per question,
  for the daily choice. Existing members who answered a settled post in the last 30
  days are entered as not yet counted; the first choice or settle of their server folds
  their cards into `class_recall` (in short transactions).
- `daily_question_tally`, `daily_wrong_tally`, `daily_week_tally`, `daily_week_member`:
  `/daily stats` from tallies of settled posts, filled here from the history.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import op

from bot.learning.replay_store import large_page_cache

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ACTIVE_DAYS = 30  # bot.daily.choice_rules.ACTIVE_DAYS when this revision was written


def _ids(*names: str) -> list[sa.Column[int]]:
    return [sa.Column(name, sa.BigInteger(), autoincrement=False, nullable=False) for name in names]


def upgrade() -> None:
    # Plain ALTER TABLE and CREATE INDEX, never a batch "move and copy" of these tables:
    # copying daily_post would drop the original, and its ON DELETE CASCADE would take
    # every daily answer with it (foreign keys are on).
    op.create_index("ix_daily_answer_user", "daily_answer", ["user_id", "post_id"], unique=False)
    op.add_column(
        "daily_post", sa.Column("graded", sa.Boolean(), nullable=False, server_default=sa.true())
    )
    op.create_index(
        "ix_daily_post_guild_open", "daily_post", ["guild_id", "settled", "day"], unique=False
    )
    op.create_index(
        "ix_daily_post_ungraded",
        "daily_post",
        ["id"],
        unique=False,
        sqlite_where=sa.text("NOT graded"),
        postgresql_where=sa.text("NOT graded"),
    )
    op.create_table(
        "class_member",
        *_ids("guild_id", "user_id"),
        sa.Column("last_answered_at", sa.DateTime(), nullable=False),
        sa.Column("counted", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "user_id"),
    )
    op.create_index("ix_class_member_user", "class_member", ["user_id"], unique=False)
    op.create_index(
        "ix_class_member_last", "class_member", ["guild_id", "last_answered_at"], unique=False
    )
    op.create_index(
        "ix_class_member_counted", "class_member", ["guild_id", "counted", "user_id"], unique=False
    )
    op.create_table(
        "class_recall",
        *_ids("guild_id"),
        sa.Column("question_id", sa.String(length=40), nullable=False),
        sa.Column("cards", sa.Integer(), nullable=False),
        sa.Column("sums", sa.JSON(), nullable=False),
        sa.Column("as_of", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "question_id"),
    )
    op.create_table(
        "daily_question_tally",
        *_ids("guild_id"),
        sa.Column("question_id", sa.String(length=40), nullable=False),
        sa.Column("posts", sa.Integer(), nullable=False),
        sa.Column("answered", sa.Integer(), nullable=False),
        sa.Column("correct", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "question_id"),
    )
    op.create_table(
        "daily_wrong_tally",
        *_ids("guild_id"),
        sa.Column("question_id", sa.String(length=40), nullable=False),
        sa.Column("choice", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("picks", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "question_id", "choice"),
    )
    op.create_table(
        "daily_week_tally",
        *_ids("guild_id"),
        sa.Column("week", sa.Date(), nullable=False),
        sa.Column("members", sa.Integer(), nullable=False),
        sa.Column("answers", sa.Integer(), nullable=False),
        sa.Column("posts", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "week"),
    )
    op.create_table(
        "daily_week_member",
        *_ids("guild_id"),
        sa.Column("week", sa.Date(), nullable=False),
        *_ids("user_id"),
        sa.PrimaryKeyConstraint("guild_id", "week", "user_id"),
    )
    _backfill()


def _backfill() -> None:
    """The tallies and the class from the settled history, in set-based statements."""
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        week = "CAST(date_trunc('week', p.day) AS DATE)"
        cutoff: object = datetime.now(UTC).replace(tzinfo=None) - timedelta(days=ACTIVE_DAYS)
    else:  # Monday of the day: weekday 0 = Sunday in strftime('%w')
        week = "date(p.day, printf('-%d days', (CAST(strftime('%w', p.day) AS INTEGER) + 6) % 7))"
        cutoff = (datetime.now(UTC) - timedelta(days=ACTIVE_DAYS)).strftime("%Y-%m-%d %H:%M:%S.%f")
    joined = "daily_post p JOIN daily_answer a ON a.post_id = p.id"
    # Each post's answers counted once (a year of answers is grouped by its 365 posts, not
    # sorted for COUNT(DISTINCT ...)); a week's members are its daily_week_member rows.
    per_post = (
        "daily_post p LEFT JOIN (SELECT post_id, COUNT(*) AS n,"
        " SUM(CASE WHEN correct THEN 1 ELSE 0 END) AS r FROM daily_answer GROUP BY post_id) a"
        " ON a.post_id = p.id"
    )
    statements = [
        "INSERT INTO daily_question_tally (guild_id, question_id, posts, answered, correct)"
        " SELECT p.guild_id, p.question_id, COUNT(*), COALESCE(SUM(a.n), 0),"
        f" COALESCE(SUM(a.r), 0) FROM {per_post} WHERE p.settled GROUP BY p.guild_id, p.question_id",
        "INSERT INTO daily_wrong_tally (guild_id, question_id, choice, picks)"
        f" SELECT p.guild_id, p.question_id, a.choice, COUNT(*) FROM {joined}"
        " WHERE p.settled AND NOT a.correct GROUP BY p.guild_id, p.question_id, a.choice",
        # In key order: appended to the primary key's index, not inserted all over it.
        "INSERT INTO daily_week_member (guild_id, week, user_id)"
        f" SELECT DISTINCT p.guild_id, {week}, a.user_id FROM {joined} WHERE p.settled"
        " ORDER BY 1, 2, 3",
        "INSERT INTO daily_week_tally (guild_id, week, members, answers, posts)"
        " SELECT w.guild_id, w.week, COALESCE(m.members, 0), w.answers, w.posts FROM"
        f" (SELECT p.guild_id, {week} AS week, COALESCE(SUM(a.n), 0) AS answers,"
        f" COUNT(*) AS posts FROM {per_post} WHERE p.settled GROUP BY p.guild_id, {week}) w"
        " LEFT JOIN (SELECT guild_id, week, COUNT(*) AS members FROM daily_week_member"
        " GROUP BY guild_id, week) m ON m.guild_id = w.guild_id AND m.week = w.week",
    ]
    with large_page_cache(bind):  # a year of answers sorted and counted five times
        for statement in statements:
            bind.execute(sa.text(statement))
        bind.execute(
            sa.text(
                "INSERT INTO class_member (guild_id, user_id, last_answered_at, counted)"
                f" SELECT p.guild_id, a.user_id, MAX(a.answered_at), false FROM {joined}"
                " WHERE p.settled AND a.answered_at >= :cutoff GROUP BY p.guild_id, a.user_id"
            ),
            {"cutoff": cutoff},
        )


def downgrade() -> None:
    for table in (
        "daily_week_member",
        "daily_week_tally",
        "daily_wrong_tally",
        "daily_question_tally",
        "class_recall",
    ):
        op.drop_table(table)
    for index in ("ix_class_member_counted", "ix_class_member_last", "ix_class_member_user"):
        op.drop_index(index, table_name="class_member")
    op.drop_table("class_member")
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35 or later), not a copy of the table (above).
    op.drop_index("ix_daily_post_ungraded", table_name="daily_post")
    op.drop_index("ix_daily_post_guild_open", table_name="daily_post")
    op.drop_column("daily_post", "graded")
    op.drop_index("ix_daily_answer_user", table_name="daily_answer")
