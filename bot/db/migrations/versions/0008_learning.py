"""Learning II (issue 26): memory models per server, retention, reminders.

memory_model (a server's fitted FSRS parameters and the figures of its last fit),
reminder (a member's review reminder), member_activity (answers per member and day);
review_log.guild_id (the server an answer was given in), guild_daily_config.retention
(target retention), outbox.ref (a reminder: member and day). Then the
answers recorded before review cards existed are replayed into the cards, once
(`bot.learning.replay_store`).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.common.times import utcnow
from bot.learning.replay_store import replay_history

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger("quiztutor")


def upgrade() -> None:
    op.create_table(
        "memory_model",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("parameters", sa.JSON(), nullable=True),
        sa.Column("adopted_at", sa.DateTime(), nullable=True),
        sa.Column("decision", sa.String(length=20), nullable=True),
        sa.Column("reason", sa.String(length=300), nullable=True),
        sa.Column("candidate", sa.JSON(), nullable=True),
        sa.Column("reviews", sa.Integer(), nullable=False),
        sa.Column("members", sa.Integer(), nullable=False),
        sa.Column("held_out", sa.Integer(), nullable=False),
        sa.Column("log_loss_default", sa.Float(), nullable=True),
        sa.Column("log_loss_fitted", sa.Float(), nullable=True),
        sa.Column("rmse_default", sa.Float(), nullable=True),
        sa.Column("rmse_fitted", sa.Float(), nullable=True),
        sa.Column("rescheduled", sa.Integer(), nullable=False),
        sa.Column("fit_seconds", sa.Float(), nullable=True),
        sa.Column("fitted_at", sa.DateTime(), nullable=True),
        sa.Column("next_fit_at", sa.DateTime(), nullable=False),
        sa.Column("claimed_until", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("guild_id"),
    )
    op.create_index("ix_memory_model_next_fit", "memory_model", ["next_fit_at"])
    op.create_table(
        "reminder",
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("locale", sa.String(length=8), nullable=False),
        sa.Column("remind_at", sa.String(length=5), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("min_due", sa.Integer(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("next_at", sa.DateTime(), nullable=False),
        sa.Column("off_reason", sa.String(length=20), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("user_id"),
    )
    op.create_index("ix_reminder_due", "reminder", ["enabled", "next_at"])
    op.create_table(
        "member_activity",
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("answers", sa.Integer(), nullable=False),
        sa.Column("right", sa.Integer(), nullable=False),
        sa.Column("due_reviews", sa.Integer(), nullable=False),
        sa.Column("due_right", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "day"),
    )
    with op.batch_alter_table("review_log") as batch:
        batch.add_column(sa.Column("guild_id", sa.BigInteger(), nullable=True))
    with op.batch_alter_table("guild_daily_config") as batch:
        batch.add_column(sa.Column("retention", sa.Float(), nullable=False, server_default="0.9"))
    with op.batch_alter_table("outbox") as batch:  # post_id is nullable since 0006
        batch.add_column(sa.Column("ref", sa.String(length=40), nullable=True))
        batch.create_unique_constraint("uq_outbox_kind_ref", ["kind", "ref"])
    done = replay_history(op.get_bind(), utcnow())
    # After the replay filled the log (an index built once, not grown a row at a time).
    op.create_index("ix_review_log_guild", "review_log", ["guild_id", "reviewed_at"])
    if done.inserted:
        log.info(
            "replayed %d answers recorded before review cards into %d cards",
            done.inserted,
            done.cards,
        )


def downgrade() -> None:
    op.execute("DELETE FROM outbox WHERE ref IS NOT NULL")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_constraint("uq_outbox_kind_ref", type_="unique")
        batch.drop_column("ref")
    with op.batch_alter_table("guild_daily_config") as batch:
        batch.drop_column("retention")
    op.drop_index("ix_review_log_guild", table_name="review_log")
    with op.batch_alter_table("review_log") as batch:
        batch.drop_column("guild_id")
    op.drop_table("member_activity")
    op.drop_index("ix_reminder_due", table_name="reminder")
    op.drop_table("reminder")
    op.drop_index("ix_memory_model_next_fit", table_name="memory_model")
    op.drop_table("memory_model")
