"""A member's own progress (`/me`): streak, accuracy per topic, reviews due.

Accuracy counts every graded answer: quiz answers, and daily answers once their day is
settled (an open daily question must not give its answer away). Topics are the quizzes
the server may see; each is listed once, the weakest first.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from bot.common.times import utcnow
from bot.daily.streaks_store import member_streak
from bot.db.database import Database
from bot.learning.activity_rules import Habit, window_start
from bot.learning.activity_store import days_of
from bot.learning.memory_rules import TRUE_RETENTION_DAYS
from bot.learning.memory_store import rules_for
from bot.learning.review import Reviews
from bot.quizbank import QuizBank
from bot.stats.progress_rules import Progress, TopicAccuracy
from bot.stats.progress_store import answers_per_question


class ProgressReports:
    def __init__(
        self,
        db: Database,
        bank: QuizBank,
        reviews: Reviews,
        clock: Callable[[], datetime] = utcnow,
    ):
        self.db = db
        self.bank = bank
        self.reviews = reviews
        self.clock = clock

    async def of(self, user_id: int, guild_id: int | None, now: datetime | None = None) -> Progress:
        now = now or self.clock()
        answered, correct = await answers_per_question(self.db, user_id)
        per_quiz: dict[str, list[int]] = {}
        for question_id, n in answered.items():
            try:
                quiz_id = self.bank.quiz_of(question_id).id
            except KeyError:  # the question left the bank
                continue
            if not self.bank.is_visible(quiz_id, guild_id):
                continue
            totals = per_quiz.setdefault(quiz_id, [0, 0])
            totals[0] += n
            totals[1] += correct[question_id]
        topics = sorted(
            (TopicAccuracy(q, n, c) for q, (n, c) in per_quiz.items()),
            key=lambda topic: (topic.accuracy, topic.quiz_id),
        )
        streak = await member_streak(self.db, guild_id, user_id) if guild_id is not None else None
        return Progress(streak, topics, await self.reviews.counts(user_id, guild_id, now))

    async def habit(
        self,
        user_id: int,
        guild_id: int | None,
        next_due: datetime | None,
        now: datetime | None = None,
    ) -> Habit:
        """The member's answers per day over 26 weeks (days of this server's timezone) and
        their true retention over 30 days against this server's target (`bot.learning.activity_rules`):
        at most 26 weeks of one member's `member_activity` rows."""
        now = now or self.clock()
        rules = await rules_for(self.db, guild_id)
        today = now.astimezone(rules.tz).date()
        recent = today - timedelta(days=TRUE_RETENTION_DAYS - 1)
        rows = await days_of(self.db, user_id, min(window_start(today), recent))
        counts = {day: n for day, n, _, _ in rows if day >= window_start(today) and n}
        due = [(d, r) for day, _, d, r in rows if day >= recent]
        return Habit(
            today,
            counts,
            next_due,
            sum(d for d, _ in due),
            sum(r for _, r in due),
            rules.retention,
        )


__all__ = ["ProgressReports"]
