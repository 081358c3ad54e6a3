"""Spaced review: one card per member and question, and the log of graded answers."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from bot.db.base import snowflake, when


class ReviewCard(SQLModel, table=True):
    """One member's spaced-repetition card of one question (an `fsrs` Card, serialised).

    `due` mirrors the card's due time for the queue's index; `open_mistake` is set by a
    wrong answer and cleared by the next right one (such a question is due at once).
    """

    __tablename__ = "review_card"
    __table_args__ = (sa.Index("ix_review_card_user_due", "user_id", "due"),)

    user_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    question_id: str = Field(primary_key=True, max_length=40)
    card: dict[str, Any] = Field(sa_type=sa.JSON, description="fsrs Card.to_dict()")
    due: datetime = when()
    last_review: datetime = when()
    reviews: int = 0
    lapses: int = 0
    open_mistake: bool = False
    last_wrong_at: datetime | None = when(default=None)


class ReviewLog(SQLModel, table=True):
    """One graded answer applied to a card. UNIQUE on its source: applied exactly once.

    (source, ref): ("quiz", the quiz session id) or ("daily", the daily post id); with the
    member and the question this is the key of the QuizResult or DailyAnswer it comes from.
    """

    __tablename__ = "review_log"
    __table_args__ = (
        sa.UniqueConstraint("source", "ref", "user_id", "question_id", name="uq_review_log_source"),
        sa.Index("ix_review_log_user", "user_id", "reviewed_at"),
        sa.Index("ix_review_log_guild", "guild_id", "reviewed_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    source: str = Field(max_length=8, description="quiz | daily")
    ref: str = Field(max_length=40)
    user_id: int = snowflake()
    question_id: str = Field(max_length=40)
    rating: int = Field(description="fsrs Rating: 1 Again, 3 Good, 4 Easy")
    correct: bool
    reviewed_at: datetime = when()
    # The server the answer was given in (its memory model is fitted to these rows); NULL
    # for an answer outside any server.
    guild_id: int | None = snowflake(default=None)
