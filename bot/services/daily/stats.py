"""A server's participation and accuracy over recent days, and its class analytics
(`/daily stats`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sqlalchemy import case, func
from sqlalchemy import select as sa_select

from bot.services.analytics import DEFAULT_WEEKS, ClassAnalytics, class_analytics, server_today
from bot.services.daily.base import DailyBase
from bot.storage import (
    DailyAnswer,
    DailyPost,
)


@dataclass(frozen=True)
class DayParticipation:
    day: date
    question_id: str
    answered: int
    correct: int


@dataclass(frozen=True)
class GuildOverview:
    days: list[DayParticipation]  # most recent first
    members: int  # members who ever answered
    answered: int
    correct: int

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.answered if self.answered else None


class DailyStats(DailyBase):
    async def guild_overview(self, guild_id: int, days: int = 14) -> GuildOverview:
        answers = DailyAnswer.__table__  # type: ignore[attr-defined]
        posts = DailyPost.__table__  # type: ignore[attr-defined]
        per_day = (
            sa_select(
                posts.c.day,
                posts.c.question_id,
                func.count(answers.c.user_id),
                func.coalesce(func.sum(case((answers.c.correct, 1), else_=0)), 0),
            )
            .select_from(posts.outerjoin(answers, answers.c.post_id == posts.c.id))
            .where(posts.c.guild_id == guild_id)
            .group_by(posts.c.id)
            .order_by(posts.c.day.desc())
            .limit(days)
        )
        totals = (
            sa_select(
                func.count(func.distinct(answers.c.user_id)),
                func.count(),
                func.coalesce(func.sum(case((answers.c.correct, 1), else_=0)), 0),
            )
            .select_from(answers.join(posts, answers.c.post_id == posts.c.id))
            .where(posts.c.guild_id == guild_id)
        )
        async with self.db.engine.connect() as conn:
            rows = (await conn.execute(per_day)).all()
            members, answered, correct = (await conn.execute(totals)).one()
        return GuildOverview(
            days=[DayParticipation(day, qid, n, c) for day, qid, n, c in rows],
            members=members,
            answered=answered,
            correct=correct,
        )

    async def class_analytics(self, guild_id: int, weeks: int = DEFAULT_WEEKS) -> ClassAnalytics:
        """Per-question accuracy, common wrong answers, weekly participation up to the
        server's today (its time zone; UTC before `/daily setup`)."""
        today = await server_today(self.db, guild_id, self.clock())
        return await class_analytics(self.db, guild_id, today, weeks)
