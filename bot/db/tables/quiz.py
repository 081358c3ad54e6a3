"""Private quiz sessions, their answers, and the quizzes servers uploaded."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from bot.common.times import utcnow
from bot.db.base import snowflake, when


class QuizSession(SQLModel, table=True):
    __tablename__ = "quiz_session"
    __table_args__ = (sa.Index("ix_quiz_session_user_status", "user_id", "status"),)

    id: str = Field(
        primary_key=True, max_length=32, description="url-safe token used in custom_ids"
    )
    user_id: int = snowflake()
    guild_id: int | None = snowflake(default=None)
    quiz_id: str | None = Field(default=None, max_length=40)
    locale: str = Field(max_length=8)
    question_ids: list[str] = Field(sa_type=sa.JSON)
    # Per question: display position -> index of the choice as written.
    choice_orders: list[list[int]] = Field(sa_type=sa.JSON)
    # The generated questions it asks, fixed when it starts: {"position": instance data}.
    instances: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)
    position: int = 0
    answered_current: bool = False
    chosen: int | None = Field(
        default=None, description="display position chosen for the current question"
    )
    score: int = 0
    started_at: datetime = when(default_factory=utcnow)
    last_activity_at: datetime = when(default_factory=utcnow)
    finished_at: datetime | None = when(default=None)
    status: str = Field(
        default="active", max_length=16, description="active|finished|stopped|expired"
    )


class QuizResult(SQLModel, table=True):
    __tablename__ = "quiz_result"
    __table_args__ = (sa.Index("ix_quiz_result_user", "user_id", "question_id"),)

    session_id: str = Field(
        foreign_key="quiz_session.id", primary_key=True, ondelete="CASCADE", max_length=32
    )
    question_id: str = Field(primary_key=True, max_length=40)
    user_id: int = snowflake()
    chosen: int = Field(description="index of the choice as written")
    correct: bool
    answered_at: datetime = when()


class CustomQuiz(SQLModel, table=True):
    """A quiz file an admin uploaded for one guild (the YAML text, validated on upload)."""

    __tablename__ = "custom_quiz"

    guild_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    quiz_id: str = Field(primary_key=True, max_length=40)
    source: str
    added_by: int = snowflake()
    added_at: datetime = when(default_factory=utcnow)
