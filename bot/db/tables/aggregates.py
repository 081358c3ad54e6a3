"""Aggregates kept up to date as answers are graded and days settled, so that what a big
server's history would cost to recount is read from a few rows (issue 27):

- the class of a server (`class_member`) and its recall per question (`class_recall`),
  for the daily choice (`bot.learning.recall_store`);
- per question and per week tallies of settled daily posts, for `/daily stats`
  (`bot.daily.tallies_store`).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from bot.db.base import when


def _key() -> Any:
    """A part of the primary key that is a Discord id (never autoincremented)."""
    return Field(sa_type=sa.BigInteger, primary_key=True, sa_column_kwargs={"autoincrement": False})


class ClassMember(SQLModel, table=True):
    """A member who answered one of the server's daily questions (settled) recently.

    `counted`: their review cards are in the server's `class_recall` sums; a member who
    just joined (False) is folded in by the next `fold`, which also removes members whose
    last answer is older than the active window.
    """

    __tablename__ = "class_member"
    __table_args__ = (
        sa.Index("ix_class_member_user", "user_id"),
        sa.Index("ix_class_member_last", "guild_id", "last_answered_at"),
        sa.Index("ix_class_member_counted", "guild_id", "counted", "user_id"),
    )

    guild_id: int = _key()
    user_id: int = _key()
    last_answered_at: datetime = when()
    counted: bool = False


class ClassRecall(SQLModel, table=True):
    """Running sums of the class's cards of one question (`bot.learning.recall_rules`)."""

    __tablename__ = "class_recall"

    guild_id: int = _key()
    question_id: str = Field(primary_key=True, max_length=40)
    cards: int = 0
    sums: list[float] = Field(sa_type=sa.JSON, description="RecallSums terms at `as_of`")
    as_of: datetime = when()


class QuestionTally(SQLModel, table=True):
    """A question's settled daily posts in a server: posts, answers, right answers."""

    __tablename__ = "daily_question_tally"

    guild_id: int = _key()
    question_id: str = Field(primary_key=True, max_length=40)
    posts: int = 0
    answered: int = 0
    correct: int = 0


class WrongTally(SQLModel, table=True):
    """How often a wrong choice of a question was picked in a server's settled posts."""

    __tablename__ = "daily_wrong_tally"

    guild_id: int = _key()
    question_id: str = Field(primary_key=True, max_length=40)
    choice: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    picks: int = 0


class WeekTally(SQLModel, table=True):
    """A server's settled daily posts of one week (from its Monday, local days)."""

    __tablename__ = "daily_week_tally"

    guild_id: int = _key()
    week: date = Field(primary_key=True)
    members: int = 0
    answers: int = 0
    posts: int = 0


class WeekMember(SQLModel, table=True):
    """A member who answered a settled post of that week (counts `WeekTally.members` once)."""

    __tablename__ = "daily_week_member"

    guild_id: int = _key()
    week: date = Field(primary_key=True)
    user_id: int = _key()
