"""Streaks and the leaderboard of a server (`/streak`, `/leaderboard`); the rule itself is
`bot.daily.streak_rules`, the SQL `bot.daily.streaks_store`."""

from __future__ import annotations

from bot.daily.streak_rules import LeaderboardRow, MemberStreak, check_leaderboard
from bot.daily.streaks_store import leaderboard, member_streak
from bot.db.database import Database


class Streaks:
    def __init__(self, db: Database):
        self.db = db

    async def streak(self, guild_id: int, user_id: int) -> MemberStreak:
        return await member_streak(self.db, guild_id, user_id)

    async def leaderboard(
        self, guild_id: int, by: str = "streak", page: int = 1, per_page: int = 10
    ) -> tuple[list[LeaderboardRow], int]:
        """One page of the `by` ranking and the number of pages (0 when nobody qualifies)."""
        check_leaderboard(by, page)
        return await leaderboard(self.db, guild_id, by, page, per_page)
