"""Reliability III (issue 28): the outbox remembers attempts whose outcome is unknown
(`claimed_at`, `unsure_since`), and shard processes on one database share Discord's
IDENTIFY buckets (`identify_bucket`).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("claimed_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("unsure_since", sa.DateTime(), nullable=True))
    op.create_table(
        "identify_bucket",
        sa.Column("bucket", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("last_at", sa.DateTime(), nullable=False),
        sa.Column("holder", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("bucket"),
    )


def downgrade() -> None:
    op.drop_table("identify_bucket")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("unsure_since")
        batch.drop_column("claimed_at")
