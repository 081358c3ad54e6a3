"""The tables (SQLModel). Discord ids are 64-bit snowflakes, hence BigInteger.

Every timestamp is stored as naive UTC and read back as an aware UTC datetime
(`UTCDateTime`), so no caller ever compares naive with aware values.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from bot.core.times import naive_utc, utcnow


class UTCDateTime(sa.types.TypeDecorator[datetime]):
    impl = sa.DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        return None if value is None else naive_utc(value)

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


def _snowflake(**kw: Any) -> Any:
    return Field(sa_type=sa.BigInteger, **kw)


def _when(**kw: Any) -> Any:
    return Field(sa_type=UTCDateTime, **kw)


class GuildDailyConfig(SQLModel, table=True):
    __tablename__ = "guild_daily_config"

    guild_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    channel_id: int = _snowflake()
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
    # Set when Discord refused posting (403/404): posting stops until an admin reconfigures.
    disabled_reason: str | None = Field(default=None, max_length=200)
    admin_notified: bool = False
    updated_at: datetime = _when(default_factory=utcnow)


class DailyPost(SQLModel, table=True):
    """One daily question in one guild. UNIQUE(guild_id, day) is the one-post-per-day guarantee."""

    __tablename__ = "daily_post"
    __table_args__ = (
        sa.UniqueConstraint("guild_id", "day", name="uq_daily_post_guild_day"),
        sa.Index("ix_daily_post_open", "settled", "reveal_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = _snowflake()
    day: date = Field(description="local day in the guild's timezone")
    question_id: str = Field(max_length=40)
    channel_id: int = _snowflake()
    # NULL between the claim and Discord's answer; indexed for the reaction handler's lookup.
    message_id: int | None = _snowflake(default=None, index=True)
    claimed_at: datetime = _when(default_factory=utcnow)
    posted_at: datetime | None = _when(default=None)
    reveal_at: datetime = _when()
    settled: bool = False
    summary: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)
    # Members found with two or more answer letters when reactions made while the bot was
    # offline were read back (the order is unknown, so none of theirs counts).
    unclear_users: list[int] | None = Field(default=None, sa_type=sa.JSON)
    # Why the question was chosen (bot.services.daily.choice.Reason.to_dict()); None on older posts.
    choice: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON)


class DailyAnswer(SQLModel, table=True):
    """PK(post_id, user_id): a member's first reaction is their answer."""

    __tablename__ = "daily_answer"

    post_id: int = Field(foreign_key="daily_post.id", primary_key=True, ondelete="CASCADE")
    user_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    choice: int = Field(description="index of the choice as written in the quiz file")
    correct: bool
    answered_at: datetime = _when()


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
    updated_at: datetime = _when(default_factory=utcnow)


class QuizSession(SQLModel, table=True):
    __tablename__ = "quiz_session"
    __table_args__ = (sa.Index("ix_quiz_session_user_status", "user_id", "status"),)

    id: str = Field(
        primary_key=True, max_length=32, description="url-safe token used in custom_ids"
    )
    user_id: int = _snowflake()
    guild_id: int | None = _snowflake(default=None)
    quiz_id: str | None = Field(default=None, max_length=40)
    locale: str = Field(max_length=8)
    question_ids: list[str] = Field(sa_type=sa.JSON)
    # Per question: display position -> index of the choice as written.
    choice_orders: list[list[int]] = Field(sa_type=sa.JSON)
    position: int = 0
    answered_current: bool = False
    chosen: int | None = Field(
        default=None, description="display position chosen for the current question"
    )
    score: int = 0
    started_at: datetime = _when(default_factory=utcnow)
    last_activity_at: datetime = _when(default_factory=utcnow)
    finished_at: datetime | None = _when(default=None)
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
    user_id: int = _snowflake()
    chosen: int = Field(description="index of the choice as written")
    correct: bool
    answered_at: datetime = _when()


class CustomQuiz(SQLModel, table=True):
    """A quiz file an admin uploaded for one guild (the YAML text, validated on upload)."""

    __tablename__ = "custom_quiz"

    guild_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    quiz_id: str = Field(primary_key=True, max_length=40)
    source: str
    added_by: int = _snowflake()
    added_at: datetime = _when(default_factory=utcnow)


class Outbox(SQLModel, table=True):
    """A message the bot owes a channel, recorded with the state change that owes it.

    UNIQUE(kind, post_id): at most one announcement of each kind per post. Delivery is
    claimed with a lease (`claimed_by`, `claimed_until`) so one process sends it, and a
    row is done when `delivered_at` (sent) or `gave_up` (refused for good) is set.
    """

    __tablename__ = "outbox"
    __table_args__ = (
        sa.UniqueConstraint("kind", "post_id", name="uq_outbox_kind_post"),
        sa.Index("ix_outbox_pending", "delivered_at", "due_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=20, description="reveal | reactions")
    guild_id: int = _snowflake()
    post_id: int = Field(foreign_key="daily_post.id", ondelete="CASCADE")
    created_at: datetime = _when(default_factory=utcnow)
    due_at: datetime = _when(default_factory=utcnow)
    attempts: int = 0
    claimed_by: str | None = Field(default=None, max_length=64)
    claimed_until: datetime | None = _when(default=None)
    delivered_at: datetime | None = _when(default=None)
    message_id: int | None = _snowflake(default=None)
    gave_up: str | None = Field(default=None, max_length=40)
    last_error: str | None = Field(default=None, max_length=200)


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
    due: datetime = _when()
    last_review: datetime = _when()
    reviews: int = 0
    lapses: int = 0
    open_mistake: bool = False
    last_wrong_at: datetime | None = _when(default=None)


class ReviewLog(SQLModel, table=True):
    """One graded answer applied to a card. UNIQUE on its source: applied exactly once.

    (source, ref): ("quiz", the quiz session id) or ("daily", the daily post id); with the
    member and the question this is the key of the QuizResult or DailyAnswer it comes from.
    """

    __tablename__ = "review_log"
    __table_args__ = (
        sa.UniqueConstraint("source", "ref", "user_id", "question_id", name="uq_review_log_source"),
        sa.Index("ix_review_log_user", "user_id", "reviewed_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    source: str = Field(max_length=8, description="quiz | daily")
    ref: str = Field(max_length=40)
    user_id: int = _snowflake()
    question_id: str = Field(max_length=40)
    rating: int = Field(description="fsrs Rating: 1 Again, 3 Good, 4 Easy")
    correct: bool
    reviewed_at: datetime = _when()
