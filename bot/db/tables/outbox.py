"""What the bot owes a channel until Discord has it."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from bot.common.times import utcnow
from bot.db.base import snowflake, when


class Outbox(SQLModel, table=True):
    """A message the bot owes a channel, recorded with the state change that owes it.

    What it is about: a daily post (`post_id`), a live round (`round_id`, with the
    question's `number`, 0 for the round's scoreboard), or (`ref`) a member's reminder of a
    day. UNIQUE(kind, post_id), UNIQUE(kind, round_id, number) and UNIQUE(kind, ref): at
    most one announcement of each kind per post or question, one reminder per member and
    day. Delivery is claimed with a lease (`claimed_by`, `claimed_until`) so one process
    sends it, and a row is done when `delivered_at` (sent) or `gave_up` (refused for good)
    is set. `unsure_since` is the start of the earliest attempt whose outcome is unknown
    (the process died holding the claim, or the send failed without Discord's word that
    nothing was made): before sending again, the copy Discord may have is looked for.
    """

    __tablename__ = "outbox"
    __table_args__ = (
        sa.UniqueConstraint("kind", "post_id", name="uq_outbox_kind_post"),
        sa.UniqueConstraint("kind", "round_id", "number", name="uq_outbox_kind_round"),
        sa.UniqueConstraint("kind", "ref", name="uq_outbox_kind_ref"),
        sa.Index("ix_outbox_pending", "delivered_at", "due_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(
        max_length=20, description="reveal | reactions | live-reveal | live-end | reminder"
    )
    guild_id: int = snowflake()
    post_id: int | None = Field(default=None, foreign_key="daily_post.id", ondelete="CASCADE")
    round_id: int | None = Field(default=None, foreign_key="live_round.id", ondelete="CASCADE")
    number: int | None = None
    ref: str | None = Field(default=None, max_length=40, description="reminder: USER:DAY")
    created_at: datetime = when(default_factory=utcnow)
    due_at: datetime = when(default_factory=utcnow)
    attempts: int = 0
    claimed_by: str | None = Field(default=None, max_length=64)
    claimed_until: datetime | None = when(default=None)
    claimed_at: datetime | None = when(default=None)
    unsure_since: datetime | None = when(default=None)
    delivered_at: datetime | None = when(default=None)
    message_id: int | None = snowflake(default=None)
    gave_up: str | None = Field(default=None, max_length=40)
    last_error: str | None = Field(default=None, max_length=200)
