"""The daily choice: guild_daily_config.repeat_after_days (no repeat within K days) and
daily_post.choice (why that day's question was chosen).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("guild_daily_config") as batch:
        batch.add_column(
            sa.Column("repeat_after_days", sa.Integer(), nullable=False, server_default="30")
        )
    with op.batch_alter_table("daily_post") as batch:
        batch.add_column(sa.Column("choice", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("daily_post") as batch:
        batch.drop_column("choice")
    with op.batch_alter_table("guild_daily_config") as batch:
        batch.drop_column("repeat_after_days")
