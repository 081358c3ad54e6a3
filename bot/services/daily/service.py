"""The daily question service: one object over the parts (configuration, posts, grading,
settling, statistics), Discord-free, used by the scheduler driver and the cog.
"""

from __future__ import annotations

from bot.services.daily.config import DailyConfigs
from bot.services.daily.settling import DailySettling
from bot.services.daily.stats import DailyStats


class DailyService(DailyConfigs, DailySettling, DailyStats):
    """`service = DailyService(db, bank); await service.start(); ...; await service.close()`."""

    async def start(self) -> None:
        await self.writer.start()
        await self.refresh_cache()

    async def close(self) -> None:
        await self.writer.close()
