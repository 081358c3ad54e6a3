"""Column types every table uses. Discord ids are 64-bit snowflakes, hence BigInteger.

Every timestamp is stored as naive UTC and read back as an aware UTC datetime
(`UTCDateTime`), so no caller ever compares naive with aware values.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field

from bot.common.times import naive_utc


class UTCDateTime(sa.types.TypeDecorator[datetime]):
    impl = sa.DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        return None if value is None else naive_utc(value)

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


def snowflake(**kw: Any) -> Any:
    return Field(sa_type=sa.BigInteger, **kw)


def when(**kw: Any) -> Any:
    return Field(sa_type=UTCDateTime, **kw)


def driver_time(dialect: str) -> Callable[[datetime | None], Any]:
    """A converter to the value the driver takes for a timestamp column, for statements
    that skip SQLAlchemy's per-value type processing (executemany of thousands of rows):
    SQLite's text form of UTCDateTime, or the naive UTC datetime asyncpg takes."""
    if dialect == "sqlite":
        return lambda v: None if v is None else naive_utc(v).strftime("%Y-%m-%d %H:%M:%S.%f")
    return lambda v: None if v is None else naive_utc(v)
