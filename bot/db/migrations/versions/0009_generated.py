"""Generated questions and shuffled daily choices (issues 23, 25).

Issue 23: quiz_session.instances, the generated questions a session asks, stored when the
session starts ({position: the instance as plain data}) so each is fixed for the session.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("quiz_session") as batch:
        batch.add_column(sa.Column("instances", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("quiz_session") as batch:
        batch.drop_column("instances")
