"""A server's participation and accuracy over recent days, and its class analytics
(`/daily stats`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from bot.daily.analytics import class_report
from bot.daily.analytics_rules import DEFAULT_WEEKS, ClassAnalytics, GuildOverview
from bot.daily.analytics_store import guild_overview
from bot.db.database import Database


class DailyStats:
    def __init__(self, db: Database, clock: Callable[[], datetime]) -> None:
        self.db = db
        self.clock = clock

    async def guild_overview(self, guild_id: int, days: int = 14) -> GuildOverview:
        return await guild_overview(self.db, guild_id, days)

    async def class_analytics(self, guild_id: int, weeks: int = DEFAULT_WEEKS) -> ClassAnalytics:
        """Per-question accuracy, common wrong answers, weekly participation up to the
        server's today (its time zone; UTC before `/daily setup`)."""
        return await class_report(self.db, guild_id, self.clock(), weeks)
