"""Learning II: each server's memory model, members' review reminders, and the answers
per member and day behind `/me`'s calendar."""

from __future__ import annotations

from datetime import date, datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from bot.common.times import utcnow
from bot.db.base import snowflake, when


class MemoryModel(SQLModel, table=True):
    """A server's memory model: the FSRS parameters fitted to its review log, used once a
    fit beat the defaults on held-out reviews (`decision` "fitted"), and the figures of
    the last fit (log-loss and RMSE (bins) of the defaults and of the fit, on the latest
    20 % of reviews by time). A row exists for every server with a graded answer;
    `next_fit_at` is when the weekly fit is due, `claimed_until` the lease of a fit
    running now (one process at a time)."""

    __tablename__ = "memory_model"
    __table_args__ = (sa.Index("ix_memory_model_next_fit", "next_fit_at"),)

    guild_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    parameters: list[float] | None = Field(
        default=None, sa_type=sa.JSON, description="the 21 FSRS weights in use; NULL: defaults"
    )
    adopted_at: datetime | None = when(default=None)
    decision: str | None = Field(
        default=None, max_length=20, description="fitted | too_little_history | not_better"
    )
    reason: str | None = Field(default=None, max_length=300)
    candidate: list[float] | None = Field(
        default=None, sa_type=sa.JSON, description="what the last fit produced"
    )
    reviews: int = 0
    members: int = 0
    held_out: int = Field(default=0, description="held-out reviews scored")
    log_loss_default: float | None = None
    log_loss_fitted: float | None = None
    rmse_default: float | None = None
    rmse_fitted: float | None = None
    rescheduled: int = Field(default=0, description="cards replayed at the last adoption")
    fit_seconds: float | None = None
    fitted_at: datetime | None = when(default=None)
    next_fit_at: datetime = when(default_factory=utcnow)
    claimed_until: datetime | None = when(default=None)


class Reminder(SQLModel, table=True):
    """A member's review reminder (one per member, set in one server: `guild_id` is whose
    questions are counted and reviewed from the DM's button). `next_at` is the next
    check (UTC), at `remind_at` in `timezone`; moved a day on with each check."""

    __tablename__ = "reminder"
    __table_args__ = (sa.Index("ix_reminder_due", "enabled", "next_at"),)

    user_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    guild_id: int = snowflake()
    locale: str = Field(max_length=8)
    remind_at: str = Field(max_length=5, description="HH:MM, local time of `timezone`")
    timezone: str = Field(max_length=64)
    min_due: int = 5
    enabled: bool = True
    next_at: datetime = when()
    off_reason: str | None = Field(default=None, max_length=20, description="member | dm_closed")
    updated_at: datetime = when(default_factory=utcnow)


class MemberActivity(SQLModel, table=True):
    """Graded answers of a member on one calendar day (of the server each was given in),
    counted as each answer is applied to its card (so once): all of them, the right ones,
    and those that reviewed a card when it was due (true retention)."""

    __tablename__ = "member_activity"

    user_id: int = Field(
        sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    day: date = Field(primary_key=True)
    answers: int = 0
    right: int = 0
    due_reviews: int = 0
    due_right: int = 0


__all__ = ["MemberActivity", "MemoryModel", "Reminder"]
