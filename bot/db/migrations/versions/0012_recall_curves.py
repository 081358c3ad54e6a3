"""The class recall under each server's own forgetting curve.

Until this revision every server's `class_recall` sums followed fsrs's default curve (a
server with a fitted memory model of another decay had its choice read card by card).
Now each server's sums follow its own model's curve: the servers whose fitted parameters
have another decay than the default get their sums cleared and their members marked not
counted, and the bot's background fold (`bot.learning.recall_backfill`) counts them in
again under their curve after start. No table changes.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# fsrs 6's default decay (its 21st parameter), the curve every server's sums followed.
DEFAULT_DECAY = 0.1542

memory_model = sa.table("memory_model", sa.column("guild_id"), sa.column("parameters", sa.JSON))
class_member = sa.table("class_member", sa.column("guild_id"), sa.column("counted", sa.Boolean))
class_recall = sa.table("class_recall", sa.column("guild_id"))


def upgrade() -> None:
    conn = op.get_bind()
    models = conn.execute(
        sa.select(memory_model.c.guild_id, memory_model.c.parameters).where(
            memory_model.c.parameters.is_not(None)
        )
    )
    guilds = [
        guild_id
        for guild_id, parameters in models
        if parameters and not math.isclose(float(parameters[20]), DEFAULT_DECAY, rel_tol=1e-9)
    ]
    for start in range(0, len(guilds), 500):
        chunk = guilds[start : start + 500]
        conn.execute(
            sa.update(class_member)
            .where(class_member.c.guild_id.in_(chunk))
            .values(counted=sa.false())
        )
        conn.execute(sa.delete(class_recall).where(class_recall.c.guild_id.in_(chunk)))


def downgrade() -> None:
    """The sums are dropped alike: the older bot counts the members in under the default
    curve (its background fold)."""
    upgrade()
