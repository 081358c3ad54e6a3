"""Times: every instant is an aware UTC datetime inside quiztutor.

The database stores naive UTC (`bot.db.tables.UTCDateTime`); these two functions
are the one place a datetime is checked and converted on its way in.
"""

from __future__ import annotations

from datetime import UTC, datetime


def as_utc(when: datetime) -> datetime:
    """`when` in UTC; a naive datetime is refused (its zone would be a guess)."""
    if when.tzinfo is None:
        raise ValueError("naive datetimes are refused: pass an aware (UTC) datetime")
    return when.astimezone(UTC)


def naive_utc(when: datetime) -> datetime:
    """`when` as the naive UTC value a TIMESTAMP WITHOUT TIME ZONE column holds."""
    return as_utc(when).replace(tzinfo=None)


def utcnow() -> datetime:
    return datetime.now(UTC)
