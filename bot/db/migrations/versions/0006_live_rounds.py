"""Live rounds (issue 22): live_round, live_question, live_player, live_answer,
live_config; the outbox also owes a live round's reveals and scoreboard (outbox.round_id,
outbox.number; outbox.post_id may be NULL).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ACTIVE = sa.text("status != 'ended'")


def upgrade() -> None:
    op.create_table(
        "live_round",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("thread_id", sa.BigInteger(), nullable=True),
        sa.Column("in_thread", sa.Boolean(), nullable=False),
        sa.Column("host_id", sa.BigInteger(), nullable=False),
        sa.Column("locale", sa.String(length=8), nullable=False),
        sa.Column("topic", sa.String(length=40), nullable=True),
        sa.Column("question_ids", sa.JSON(), nullable=False),
        sa.Column("choice_orders", sa.JSON(), nullable=False),
        sa.Column("seconds", sa.Integer(), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("lobby_message_id", sa.BigInteger(), nullable=True),
        sa.Column("next_at", sa.DateTime(), nullable=True),
        sa.Column("idle", sa.Integer(), nullable=False),
        sa.Column("stop_requested", sa.Boolean(), nullable=False),
        sa.Column("end_reason", sa.String(length=12), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "uq_live_round_channel",
        "live_round",
        ["channel_id"],
        unique=True,
        sqlite_where=ACTIVE,
        postgresql_where=ACTIVE,
    )
    op.create_index(
        "uq_live_round_slot",
        "live_round",
        ["guild_id", "slot"],
        unique=True,
        sqlite_where=ACTIVE,
        postgresql_where=ACTIVE,
    )
    op.create_index("ix_live_round_status", "live_round", ["status", "claimed_until"])
    op.create_index("ix_live_round_thread", "live_round", ["thread_id"])
    op.create_table(
        "live_question",
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("question_id", sa.String(length=40), nullable=False),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("opened_at", sa.DateTime(), nullable=True),
        sa.Column("closes_at", sa.DateTime(), nullable=True),
        sa.Column("closed_at", sa.DateTime(), nullable=True),
        sa.Column("answered", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["round_id"], ["live_round.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("round_id", "number"),
    )
    op.create_table(
        "live_player",
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["round_id"], ["live_round.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("round_id", "user_id"),
    )
    op.create_table(
        "live_answer",
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("choice", sa.Integer(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("answered_at", sa.DateTime(), nullable=False),
        sa.Column("ms", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["round_id"], ["live_round.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("round_id", "number", "user_id"),
    )
    op.create_index("ix_live_answer_user", "live_answer", ["user_id"])
    op.create_table(
        "live_config",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("locale", sa.String(length=8), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id"),
    )
    with op.batch_alter_table("outbox") as batch:
        batch.alter_column("post_id", existing_type=sa.Integer(), nullable=True)
        batch.add_column(sa.Column("round_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("number", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            "fk_outbox_round_id_live_round", "live_round", ["round_id"], ["id"], ondelete="CASCADE"
        )
        batch.create_unique_constraint("uq_outbox_kind_round", ["kind", "round_id", "number"])


def downgrade() -> None:
    op.execute("DELETE FROM outbox WHERE post_id IS NULL")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_constraint("uq_outbox_kind_round", type_="unique")
        batch.drop_constraint("fk_outbox_round_id_live_round", type_="foreignkey")
        batch.drop_column("number")
        batch.drop_column("round_id")
        batch.alter_column("post_id", existing_type=sa.Integer(), nullable=False)
    op.drop_table("live_config")
    op.drop_index("ix_live_answer_user", table_name="live_answer")
    op.drop_table("live_answer")
    op.drop_table("live_player")
    op.drop_table("live_question")
    op.drop_index("ix_live_round_thread", table_name="live_round")
    op.drop_index("ix_live_round_status", table_name="live_round")
    op.drop_index("uq_live_round_slot", table_name="live_round")
    op.drop_index("uq_live_round_channel", table_name="live_round")
    op.drop_table("live_round")
