"""A member's own progress (`/me`): streak, accuracy per topic, reviews due.

Accuracy counts every graded answer: quiz answers, and daily answers once their day is
settled (an open daily question must not give its answer away). Topics are the quizzes
the server may see; each is listed once, the weakest first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import case, func
from sqlmodel import col, select

from bot.core.quizbank import QuizBank
from bot.core.review import ReviewCounts
from bot.core.streaks import MemberStreak
from bot.core.times import utcnow
from bot.services.review import Reviews
from bot.services.streaks import Streaks
from bot.storage import DailyAnswer, DailyPost, Database, QuizResult


@dataclass(frozen=True)
class TopicAccuracy:
    quiz_id: str
    answered: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered


@dataclass(frozen=True)
class Progress:
    streak: MemberStreak | None  # None outside a server (streaks belong to a server)
    topics: list[TopicAccuracy]  # weakest first
    reviews: ReviewCounts


class ProgressReports:
    def __init__(
        self,
        db: Database,
        bank: QuizBank,
        streaks: Streaks,
        reviews: Reviews,
        clock: Callable[[], datetime] = utcnow,
    ):
        self.db = db
        self.bank = bank
        self.streaks = streaks
        self.reviews = reviews
        self.clock = clock

    async def _answers_per_question(self, user_id: int) -> tuple[Counter[str], Counter[str]]:
        answered: Counter[str] = Counter()
        correct: Counter[str] = Counter()
        quiz = (
            select(
                QuizResult.question_id,
                func.count(),
                func.sum(case((col(QuizResult.correct), 1), else_=0)),
            )
            .where(QuizResult.user_id == user_id)
            .group_by(col(QuizResult.question_id))
        )
        daily = (
            select(
                DailyPost.question_id,
                func.count(),
                func.sum(case((col(DailyAnswer.correct), 1), else_=0)),
            )
            .join(DailyPost, col(DailyPost.id) == col(DailyAnswer.post_id))
            .where(DailyAnswer.user_id == user_id, col(DailyPost.settled).is_(True))
            .group_by(col(DailyPost.question_id))
        )
        async with self.db.session() as session:
            for query in (quiz, daily):
                for question_id, n, right in (await session.exec(query)).all():
                    answered[question_id] += int(n)
                    correct[question_id] += int(right or 0)
        return answered, correct

    async def of(self, user_id: int, guild_id: int | None, now: datetime | None = None) -> Progress:
        now = now or self.clock()
        answered, correct = await self._answers_per_question(user_id)
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
        streak = await self.streaks.streak(guild_id, user_id) if guild_id is not None else None
        return Progress(streak, topics, await self.reviews.counts(user_id, guild_id, now))


__all__ = ["Progress", "ProgressReports", "TopicAccuracy"]
