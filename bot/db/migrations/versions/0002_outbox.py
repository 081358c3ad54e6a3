"""The outbox: messages owed to a channel (reveals, answer reactions) until delivered;
daily_post.unclear_users: members whose offline reactions could not be counted.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("due_at", sa.DateTime(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(), nullable=True),
        sa.Column("delivered_at", sa.DateTime(), nullable=True),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("gave_up", sa.String(length=40), nullable=True),
        sa.Column("last_error", sa.String(length=200), nullable=True),
        sa.ForeignKeyConstraint(["post_id"], ["daily_post.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("kind", "post_id", name="uq_outbox_kind_post"),
    )
    op.create_index("ix_outbox_pending", "outbox", ["delivered_at", "due_at"])
    with op.batch_alter_table("daily_post") as batch:
        batch.add_column(sa.Column("unclear_users", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("daily_post") as batch:
        batch.drop_column("unclear_users")
    op.drop_index("ix_outbox_pending", table_name="outbox")
    op.drop_table("outbox")
