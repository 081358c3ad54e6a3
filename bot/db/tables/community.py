"""The community's questions: suggestions and their review, reports, hidden questions, the
audit of what admins did, and notices owed to members."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from bot.common.times import utcnow
from bot.db.base import snowflake, when


class Suggestion(SQLModel, table=True):
    """A question a member suggested (`/quiz suggest`), pending until an admin decides.

    Approved ones are the server's community quiz (question id `community-q{id}`).
    """

    __tablename__ = "suggestion"
    __table_args__ = (
        sa.Index("ix_suggestion_queue", "guild_id", "status", "id"),
        sa.Index("ix_suggestion_author", "guild_id", "author_id", "status"),
        sa.Index("ix_suggestion_prompt", "guild_id", "prompt_key"),
    )

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = snowflake()
    author_id: int = snowflake()
    author_locale: str = Field(max_length=8, description="the author's language, for notices")
    status: str = Field(default="pending", max_length=16, description="pending|approved|rejected")
    content: dict[str, Any] = Field(
        sa_type=sa.JSON, description="prompt, choices, answer, explanation, locale"
    )
    prompt_key: str = Field(max_length=32, description="the normalised prompt's hash")
    created_at: datetime = when(default_factory=utcnow)
    decided_by: int | None = snowflake(default=None)
    decided_at: datetime | None = when(default=None)
    reason: str | None = Field(default=None, max_length=300)


class CommunityAction(SQLModel, table=True):
    """The audit: who did what, when, to a suggestion or a question (admins' actions)."""

    __tablename__ = "community_action"
    __table_args__ = (sa.Index("ix_community_action_guild", "guild_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = snowflake()
    actor_id: int = snowflake()
    action: str = Field(max_length=16, description="approved|edited|rejected|hid|unhid")
    suggestion_id: int | None = Field(default=None)
    question_id: str | None = Field(default=None, max_length=40)
    detail: str | None = Field(default=None, max_length=300)
    at: datetime = when(default_factory=utcnow)


class QuestionReport(SQLModel, table=True):
    """One member's report of one question (at most one per member and question).

    guild_id 0: reported outside a server (a quiz in DMs).
    """

    __tablename__ = "question_report"
    __table_args__ = (sa.UniqueConstraint("question_id", "user_id", name="uq_report_member"),)

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = snowflake()
    question_id: str = Field(max_length=40)
    user_id: int = snowflake()
    reason: str = Field(max_length=16)
    note: str | None = Field(default=None, max_length=200)
    fingerprint: str = Field(max_length=16, description="the question's version reported")
    created_at: datetime = when(default_factory=utcnow)


class ReportSummary(SQLModel, table=True):
    """Reports per server and question, counted as they come (lists read no history)."""

    __tablename__ = "report_summary"
    __table_args__ = (sa.Index("ix_report_summary_recent", "guild_id", "last_at"),)

    guild_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    question_id: str = Field(primary_key=True, max_length=40)
    wrong_answer: int = 0
    two_right: int = 0
    unclear: int = 0
    typo: int = 0
    other: int = 0
    total: int = 0
    last_at: datetime = when(default_factory=utcnow)
    last_note: str | None = Field(default=None, max_length=200)


class HiddenQuestion(SQLModel, table=True):
    """A question a server hid until it is fixed (while its fingerprint is unchanged)."""

    __tablename__ = "hidden_question"

    guild_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    question_id: str = Field(primary_key=True, max_length=40)
    fingerprint: str = Field(max_length=16)
    hidden_by: int = snowflake()
    hidden_at: datetime = when(default_factory=utcnow)


class MemberNotice(SQLModel, table=True):
    """Something the bot owes a member (a decision on their suggestion): sent by DM, or
    with their next command when DMs are closed. `delivered_at` set = delivered (or
    claimed by the process sending it; a failed send sets it back to NULL)."""

    __tablename__ = "member_notice"
    __table_args__ = (sa.Index("ix_member_notice_pending", "user_id", "delivered_at"),)

    id: int | None = Field(default=None, primary_key=True)
    user_id: int = snowflake()
    guild_id: int = snowflake()
    locale: str = Field(max_length=8)
    key: str = Field(max_length=40, description="the text (the texts modules, bot.common.i18n)")
    params: dict[str, Any] = Field(sa_type=sa.JSON)
    created_at: datetime = when(default_factory=utcnow)
    delivered_at: datetime | None = when(default=None)
    via: str | None = Field(default=None, max_length=8, description="dm|command")
