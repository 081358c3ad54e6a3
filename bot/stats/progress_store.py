"""A member's answers per question, for `/me`: quiz answers, daily answers once their
day is settled, and live-round answers once their question is closed (an open question
must not give its answer away)."""

from __future__ import annotations

from collections import Counter

from sqlalchemy import case, func
from sqlmodel import col, select

from bot.db.database import Database
from bot.db.tables.daily import DailyAnswer, DailyPost
from bot.db.tables.live import LiveAnswer, LiveQuestion
from bot.db.tables.quiz import QuizResult
from bot.live.rules import QuestionStatus


async def answers_per_question(db: Database, user_id: int) -> tuple[Counter[str], Counter[str]]:
    """(answered, correct) per question id."""
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
    live = (
        select(
            LiveQuestion.question_id,
            func.count(),
            func.sum(case((col(LiveAnswer.correct), 1), else_=0)),
        )
        .join(
            LiveQuestion,
            (col(LiveQuestion.round_id) == col(LiveAnswer.round_id))
            & (col(LiveQuestion.number) == col(LiveAnswer.number)),
        )
        .where(LiveAnswer.user_id == user_id, col(LiveQuestion.status) == QuestionStatus.CLOSED)
        .group_by(col(LiveQuestion.question_id))
    )
    async with db.session() as session:
        for query in (quiz, daily, live):
            for question_id, n, right in (await session.exec(query)).all():
                answered[question_id] += int(n)
                correct[question_id] += int(right or 0)
    return answered, correct
