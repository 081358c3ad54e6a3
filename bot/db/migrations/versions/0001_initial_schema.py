"""Initial schema: daily config, posts, answers, member stats, quiz sessions and results, custom quizzes.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "custom_quiz",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("quiz_id", sa.String(length=40), nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("added_by", sa.BigInteger(), nullable=False),
        sa.Column("added_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "quiz_id"),
    )
    op.create_table(
        "daily_post",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("question_id", sa.String(length=40), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("claimed_at", sa.DateTime(), nullable=False),
        sa.Column("posted_at", sa.DateTime(), nullable=True),
        sa.Column("reveal_at", sa.DateTime(), nullable=False),
        sa.Column("settled", sa.Boolean(), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("guild_id", "day", name="uq_daily_post_guild_day"),
    )
    with op.batch_alter_table("daily_post", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_daily_post_message_id"), ["message_id"], unique=False)
        batch_op.create_index("ix_daily_post_open", ["settled", "reveal_at"], unique=False)

    op.create_table(
        "guild_daily_config",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("post_time", sa.String(length=5), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("topic", sa.String(length=40), nullable=True),
        sa.Column("reveal_after_hours", sa.Integer(), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("locale", sa.String(length=8), nullable=False),
        sa.Column("disabled_reason", sa.String(length=200), nullable=True),
        sa.Column("admin_notified", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id"),
    )
    op.create_table(
        "member_stats",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("current_streak", sa.Integer(), nullable=False),
        sa.Column("longest_streak", sa.Integer(), nullable=False),
        sa.Column("answered", sa.Integer(), nullable=False),
        sa.Column("correct", sa.Integer(), nullable=False),
        sa.Column("last_settled_day", sa.Date(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "user_id"),
    )
    with op.batch_alter_table("member_stats", schema=None) as batch_op:
        batch_op.create_index("ix_member_stats_correct", ["guild_id", "correct"], unique=False)
        batch_op.create_index(
            "ix_member_stats_streak", ["guild_id", "current_streak"], unique=False
        )

    op.create_table(
        "quiz_session",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("quiz_id", sa.String(length=40), nullable=True),
        sa.Column("locale", sa.String(length=8), nullable=False),
        sa.Column("question_ids", sa.JSON(), nullable=False),
        sa.Column("choice_orders", sa.JSON(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("answered_current", sa.Boolean(), nullable=False),
        sa.Column("chosen", sa.Integer(), nullable=True),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("last_activity_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("quiz_session", schema=None) as batch_op:
        batch_op.create_index("ix_quiz_session_user_status", ["user_id", "status"], unique=False)

    op.create_table(
        "daily_answer",
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("choice", sa.Integer(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("answered_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["post_id"], ["daily_post.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("post_id", "user_id"),
    )
    op.create_table(
        "quiz_result",
        sa.Column("session_id", sa.String(length=32), nullable=False),
        sa.Column("question_id", sa.String(length=40), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("chosen", sa.Integer(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("answered_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["session_id"], ["quiz_session.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("session_id", "question_id"),
    )
    with op.batch_alter_table("quiz_result", schema=None) as batch_op:
        batch_op.create_index("ix_quiz_result_user", ["user_id", "question_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("quiz_result", schema=None) as batch_op:
        batch_op.drop_index("ix_quiz_result_user")

    op.drop_table("quiz_result")
    op.drop_table("daily_answer")
    with op.batch_alter_table("quiz_session", schema=None) as batch_op:
        batch_op.drop_index("ix_quiz_session_user_status")

    op.drop_table("quiz_session")
    with op.batch_alter_table("member_stats", schema=None) as batch_op:
        batch_op.drop_index("ix_member_stats_streak")
        batch_op.drop_index("ix_member_stats_correct")

    op.drop_table("member_stats")
    op.drop_table("guild_daily_config")
    with op.batch_alter_table("daily_post", schema=None) as batch_op:
        batch_op.drop_index("ix_daily_post_open")
        batch_op.drop_index(batch_op.f("ix_daily_post_message_id"))

    op.drop_table("daily_post")
    op.drop_table("custom_quiz")
