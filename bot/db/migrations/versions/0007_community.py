"""The community's questions (issue 24): suggestions and their audit, reports (one per
member and question, counted per server and question), hidden questions, member notices.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "suggestion",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("author_id", sa.BigInteger(), nullable=False),
        sa.Column("author_locale", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("content", sa.JSON(), nullable=False),
        sa.Column("prompt_key", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("decided_by", sa.BigInteger(), nullable=True),
        sa.Column("decided_at", sa.DateTime(), nullable=True),
        sa.Column("reason", sa.String(length=300), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_suggestion_queue", "suggestion", ["guild_id", "status", "id"])
    op.create_index("ix_suggestion_author", "suggestion", ["guild_id", "author_id", "status"])
    op.create_index("ix_suggestion_prompt", "suggestion", ["guild_id", "prompt_key"])
    op.create_table(
        "community_action",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("actor_id", sa.BigInteger(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("suggestion_id", sa.Integer(), nullable=True),
        sa.Column("question_id", sa.String(length=40), nullable=True),
        sa.Column("detail", sa.String(length=300), nullable=True),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_community_action_guild", "community_action", ["guild_id", "id"])
    op.create_table(
        "question_report",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("question_id", sa.String(length=40), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.Column("note", sa.String(length=200), nullable=True),
        sa.Column("fingerprint", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("question_id", "user_id", name="uq_report_member"),
    )
    op.create_table(
        "report_summary",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("question_id", sa.String(length=40), nullable=False),
        sa.Column("wrong_answer", sa.Integer(), nullable=False),
        sa.Column("two_right", sa.Integer(), nullable=False),
        sa.Column("unclear", sa.Integer(), nullable=False),
        sa.Column("typo", sa.Integer(), nullable=False),
        sa.Column("other", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.DateTime(), nullable=False),
        sa.Column("last_note", sa.String(length=200), nullable=True),
        sa.PrimaryKeyConstraint("guild_id", "question_id"),
    )
    op.create_index("ix_report_summary_recent", "report_summary", ["guild_id", "last_at"])
    op.create_table(
        "hidden_question",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("question_id", sa.String(length=40), nullable=False),
        sa.Column("fingerprint", sa.String(length=16), nullable=False),
        sa.Column("hidden_by", sa.BigInteger(), nullable=False),
        sa.Column("hidden_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "question_id"),
    )
    op.create_table(
        "member_notice",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("locale", sa.String(length=8), nullable=False),
        sa.Column("key", sa.String(length=40), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("delivered_at", sa.DateTime(), nullable=True),
        sa.Column("via", sa.String(length=8), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_member_notice_pending", "member_notice", ["user_id", "delivered_at"])


def downgrade() -> None:
    op.drop_index("ix_member_notice_pending", table_name="member_notice")
    op.drop_table("member_notice")
    op.drop_table("hidden_question")
    op.drop_index("ix_report_summary_recent", table_name="report_summary")
    op.drop_table("report_summary")
    op.drop_table("question_report")
    op.drop_index("ix_community_action_guild", table_name="community_action")
    op.drop_table("community_action")
    op.drop_index("ix_suggestion_prompt", table_name="suggestion")
    op.drop_index("ix_suggestion_author", table_name="suggestion")
    op.drop_index("ix_suggestion_queue", table_name="suggestion")
    op.drop_table("suggestion")
