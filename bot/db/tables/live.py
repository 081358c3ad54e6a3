"""Live rounds: the round, its questions, its players and their answers, and each
server's setting for rounds."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from bot.common.times import utcnow
from bot.db.base import snowflake, when

# A round still running (its rows in the partial unique indexes below).
ACTIVE_WHERE = sa.text("status != 'ended'")


class LiveRound(SQLModel, table=True):
    """One live round in one channel (played in `thread_id`, the channel itself when the
    bot may not create threads there).

    At most one running round per channel and `slot`s 1..N per server: both are partial
    UNIQUE indexes over the rounds not ended, so two concurrent `/quiz live` commands
    cannot both win. The driver of one process holds the round under a lease
    (`claimed_by`, `claimed_until`, the database's clock), like the outbox's.
    """

    __tablename__ = "live_round"
    __table_args__ = (
        sa.Index(
            "uq_live_round_channel",
            "channel_id",
            unique=True,
            sqlite_where=ACTIVE_WHERE,
            postgresql_where=ACTIVE_WHERE,
        ),
        sa.Index(
            "uq_live_round_slot",
            "guild_id",
            "slot",
            unique=True,
            sqlite_where=ACTIVE_WHERE,
            postgresql_where=ACTIVE_WHERE,
        ),
        sa.Index("ix_live_round_status", "status", "claimed_until"),
        sa.Index("ix_live_round_thread", "thread_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = snowflake()
    channel_id: int = snowflake(description="where /quiz live ran")
    thread_id: int | None = snowflake(default=None, description="where the round plays")
    in_thread: bool = True
    host_id: int = snowflake()
    locale: str = Field(max_length=8)
    topic: str | None = Field(default=None, max_length=40)
    question_ids: list[str] = Field(sa_type=sa.JSON)
    # Per question: display position -> index of the choice as written.
    choice_orders: list[list[int]] = Field(sa_type=sa.JSON)
    # Generated questions: {str(number - 1): the instance (`GeneratedQuestion.stored()`)},
    # fixed when the round opens; their `question_ids` are the templates' keys (gen:NAME).
    instances: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)
    seconds: int
    slot: int
    status: str = Field(default="setup", max_length=10)
    position: int = -1
    lobby_message_id: int | None = snowflake(default=None)
    next_at: datetime | None = when(default=None)
    idle: int = 0
    stop_requested: bool = False
    end_reason: str | None = Field(default=None, max_length=12)
    created_at: datetime = when(default_factory=utcnow)
    started_at: datetime | None = when(default=None)
    ended_at: datetime | None = when(default=None)
    claimed_by: str | None = Field(default=None, max_length=64)
    claimed_until: datetime | None = when(default=None)


class LiveQuestion(SQLModel, table=True):
    """A question of a round once opened. `answered` counts its answers (kept by the
    answer writer in the transaction that inserts them)."""

    __tablename__ = "live_question"

    round_id: int = Field(foreign_key="live_round.id", primary_key=True, ondelete="CASCADE")
    number: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    question_id: str = Field(max_length=40)
    status: str = Field(default="posting", max_length=8)
    message_id: int | None = snowflake(default=None)
    opened_at: datetime | None = when(default=None)
    closes_at: datetime | None = when(default=None)
    closed_at: datetime | None = when(default=None)
    answered: int = 0


class LivePlayer(SQLModel, table=True):
    """A member who joined (pressed Join, or answered)."""

    __tablename__ = "live_player"

    round_id: int = Field(foreign_key="live_round.id", primary_key=True, ondelete="CASCADE")
    user_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    joined_at: datetime = when(default_factory=utcnow)


class LiveAnswer(SQLModel, table=True):
    """A member's first answer to a question of a round (the only one that counts)."""

    __tablename__ = "live_answer"
    __table_args__ = (sa.Index("ix_live_answer_user", "user_id"),)

    round_id: int = Field(foreign_key="live_round.id", primary_key=True, ondelete="CASCADE")
    number: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    user_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    position: int = Field(description="display position pressed")
    choice: int = Field(description="index of the choice as written")
    correct: bool
    answered_at: datetime = when()
    ms: int = Field(description="milliseconds from the question's opening")
    points: int = 0


class LiveConfig(SQLModel, table=True):
    """A server's setting for live rounds: their language (None: the host's)."""

    __tablename__ = "live_config"

    guild_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    locale: str | None = Field(default=None, max_length=8)
    updated_at: datetime = when(default_factory=utcnow)
