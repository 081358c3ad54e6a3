"""Class analytics of a server's daily question (`/daily stats`, `quiztutor stats`), up to
the server's own today: the figures are `bot.daily.analytics_store`, the types `bot.daily.analytics_rules`."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from bot.common.schedule import local_day, parse_timezone
from bot.daily import configs_store
from bot.daily.analytics_rules import DEFAULT_WEEKS, ClassAnalytics
from bot.daily.analytics_store import class_analytics
from bot.db.database import Database


async def server_today(db: Database, guild_id: int, now: datetime) -> date:
    """The server's local day: its `/daily setup` time zone, UTC before any setup."""
    config = await configs_store.get(db, guild_id)
    tz = parse_timezone(config.timezone) if config and config.timezone else ZoneInfo("UTC")
    return local_day(now, tz)


async def class_report(
    db: Database, guild_id: int, now: datetime, weeks: int = DEFAULT_WEEKS
) -> ClassAnalytics:
    """Per-question accuracy, common wrong answers and weekly participation up to today."""
    return await class_analytics(db, guild_id, await server_today(db, guild_id, now), weeks)
