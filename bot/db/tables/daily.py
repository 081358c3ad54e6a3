"""The daily question: a server's configuration, its posts, the answers and the members' streaks."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from bot.common.times import utcnow
from bot.db.base import snowflake, when


class GuildDailyConfig(SQLModel, table=True):
    __tablename__ = "guild_daily_config"

    guild_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    channel_id: int = snowflake()
    post_time: str = Field(max_length=5, description="HH:MM, local time of `timezone`")
    timezone: str = Field(max_length=64, description="IANA name, e.g. Asia/Jakarta")
    topic: str | None = Field(
        default=None, max_length=40, description="quiz id; None = all quizzes"
    )
    reveal_after_hours: int | None = Field(
        default=None, description="1..23; None = just before the next post"
    )
    enabled: bool = True
    # Always set by `/daily setup` (its language, else the server's); "id" is the column's
    # default since the first schema.
    locale: str = Field(default="id", max_length=8)
    # No daily question is posted again within this many days (capped by the pool's size).
    repeat_after_days: int = Field(default=30, sa_column_kwargs={"server_default": "30"})
    # The target retention of review scheduling and of the daily choice (0.80-0.97).
    retention: float = Field(default=0.9, sa_column_kwargs={"server_default": "0.9"})
    # How members answer: "reactions" (🇦 🇧 ...) or "buttons" (A-D, answers hidden until
    # the reveal); a post keeps the mode it was made with.
    answer_mode: str = Field(
        default="reactions", max_length=10, sa_column_kwargs={"server_default": "reactions"}
    )
    # Open a discussion thread on the post at its reveal.
    discussion: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    # Set when Discord refused for good: posting (403/404) stops until an admin reconfigures;
    # "threads_forbidden" (403 on a discussion thread) turns only the discussion off.
    disabled_reason: str | None = Field(default=None, max_length=200)
    admin_notified: bool = False
    updated_at: datetime = when(default_factory=utcnow)


class DailyPost(SQLModel, table=True):
    """One daily question in one guild. UNIQUE(guild_id, day) is the one-post-per-day guarantee."""

    __tablename__ = "daily_post"
    __table_args__ = (
        sa.UniqueConstraint("guild_id", "day", name="uq_daily_post_guild_day"),
        sa.Index("ix_daily_post_open", "settled", "reveal_at"),
        # A server's unsettled posts before a day (the settle's day order), without
        # walking its history.
        sa.Index("ix_daily_post_guild_open", "guild_id", "settled", "day"),
        # The few settled posts whose answers are not all on their review cards yet.
        sa.Index(
            "ix_daily_post_ungraded",
            "id",
            sqlite_where=sa.text("NOT graded"),
            postgresql_where=sa.text("NOT graded"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = snowflake()
    day: date = Field(description="local day in the guild's timezone")
    question_id: str = Field(max_length=40)
    channel_id: int = snowflake()
    # NULL between the claim and Discord's answer; indexed for the reaction handler's lookup.
    message_id: int | None = snowflake(default=None, index=True)
    claimed_at: datetime = when(default_factory=utcnow)
    posted_at: datetime | None = when(default=None)
    reveal_at: datetime = when()
    settled: bool = False
    summary: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)
    # Members found with two or more answer letters when reactions made while the bot was
    # offline were read back (the order is unknown, so none of theirs counts).
    unclear_users: list[int] | None = Field(default=None, sa_type=sa.JSON)
    # False from the settle's commit until every answer is on its review card (the cards
    # follow in short transactions of their own: `bot.daily.settle_store`).
    graded: bool = Field(default=True, sa_column_kwargs={"server_default": sa.true()})
    # Why the question was chosen (bot.daily.choice.Reason.to_dict()); None on older posts.
    choice: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)
    # The mode the post was made with (`GuildDailyConfig.answer_mode`).
    answer_mode: str = Field(
        default="reactions", max_length=10, sa_column_kwargs={"server_default": "reactions"}
    )
    # Shown position -> index of the choice as written; None (older posts): file order.
    choice_order: list[int] | None = Field(default=None, sa_type=sa.JSON)
    # A generated question's instance (`GeneratedQuestion.stored()`), fixed for the post;
    # `question_id` is then the template's key (gen:NAME).
    instance: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)


class DailyAnswer(SQLModel, table=True):
    """PK(post_id, user_id): a member's first reaction is their answer."""

    __tablename__ = "daily_answer"
    # A member's daily answers (`/me`) without reading every post's answers.
    __table_args__ = (sa.Index("ix_daily_answer_user", "user_id", "post_id"),)

    post_id: int = Field(foreign_key="daily_post.id", primary_key=True, ondelete="CASCADE")
    user_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    choice: int = Field(description="index of the choice as written in the quiz file")
    correct: bool
    answered_at: datetime = when()


class MemberStats(SQLModel, table=True):
    __tablename__ = "member_stats"
    __table_args__ = (
        sa.Index("ix_member_stats_streak", "guild_id", "current_streak"),
        sa.Index("ix_member_stats_correct", "guild_id", "correct"),
    )

    guild_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    user_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    current_streak: int = 0
    longest_streak: int = 0
    answered: int = 0
    correct: int = 0
    last_settled_day: date | None = None
    updated_at: datetime = when(default_factory=utcnow)
