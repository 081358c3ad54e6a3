"""Spaced review: review_card (one fsrs card per member and question) and review_log
(each graded answer applied once, unique on its source).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "review_card",
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("question_id", sa.String(length=40), nullable=False),
        sa.Column("card", sa.JSON(), nullable=False),
        sa.Column("due", sa.DateTime(), nullable=False),
        sa.Column("last_review", sa.DateTime(), nullable=False),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.Column("lapses", sa.Integer(), nullable=False),
        sa.Column("open_mistake", sa.Boolean(), nullable=False),
        sa.Column("last_wrong_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("user_id", "question_id"),
    )
    op.create_index("ix_review_card_user_due", "review_card", ["user_id", "due"])
    op.create_table(
        "review_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=8), nullable=False),
        sa.Column("ref", sa.String(length=40), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("question_id", sa.String(length=40), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("reviewed_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("source", "ref", "user_id", "question_id", name="uq_review_log_source"),
    )
    op.create_index("ix_review_log_user", "review_log", ["user_id", "reviewed_at"])


def downgrade() -> None:
    op.drop_index("ix_review_log_user", table_name="review_log")
    op.drop_table("review_log")
    op.drop_index("ix_review_card_user_due", table_name="review_card")
    op.drop_table("review_card")
