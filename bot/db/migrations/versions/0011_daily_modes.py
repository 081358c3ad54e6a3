"""The daily question's modes (issues 23, 24, 25).

* guild_daily_config.answer_mode ("reactions" | "buttons") and .discussion (a thread at
  the reveal);
* daily_post.answer_mode (the mode a post was made with), .choice_order (shown position
  -> index as written; NULL: file order) and .instance (a generated question's instance);
* live_round.instances (the generated questions of a round, fixed when it opens).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-09
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("guild_daily_config") as batch:
        batch.add_column(
            sa.Column(
                "answer_mode",
                sa.String(length=10),
                nullable=False,
                server_default="reactions",
            )
        )
        batch.add_column(
            sa.Column("discussion", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("daily_post") as batch:
        batch.add_column(
            sa.Column(
                "answer_mode",
                sa.String(length=10),
                nullable=False,
                server_default="reactions",
            )
        )
        batch.add_column(sa.Column("choice_order", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("instance", sa.JSON(), nullable=True))
    with op.batch_alter_table("live_round") as batch:
        batch.add_column(sa.Column("instances", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("live_round") as batch:
        batch.drop_column("instances")
    with op.batch_alter_table("daily_post") as batch:
        batch.drop_column("instance")
        batch.drop_column("choice_order")
        batch.drop_column("answer_mode")
    with op.batch_alter_table("guild_daily_config") as batch:
        batch.drop_column("discussion")
        batch.drop_column("answer_mode")
