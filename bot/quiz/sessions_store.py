"""Private quiz sessions (`quiz_session`, `quiz_result`): every change is a conditional
UPDATE on the state a click was made against, so a double click (or two processes
handling one click) changes things once."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import col, select

from bot.db.database import Database
from bot.db.tables.quiz import QuizResult, QuizSession
from bot.learning.cards_store import record_grades
from bot.learning.memory_store import rules_on
from bot.learning.review_rules import QUIZ, Grade, Source

ACTIVE, FINISHED, STOPPED, EXPIRED = "active", "finished", "stopped", "expired"


async def begin(db: Database, row: QuizSession, now: datetime) -> QuizSession:
    """Store a new session; the member's running one (if any) is stopped."""
    async with db.session() as session:
        await session.exec(
            update(QuizSession)
            .where(col(QuizSession.user_id) == row.user_id, col(QuizSession.status) == ACTIVE)
            .values(status=STOPPED, finished_at=now)
        )
        session.add(row)
        await session.commit()
    return row


async def get(db: Database, session_id: str) -> QuizSession | None:
    async with db.session() as session:
        return await session.get(QuizSession, session_id)


async def active_for(db: Database, user_id: int) -> QuizSession | None:
    async with db.session() as session:
        query = select(QuizSession).where(
            QuizSession.user_id == user_id, QuizSession.status == ACTIVE
        )
        return (await session.exec(query)).first()


async def record_answer(
    db: Database,
    quiz: QuizSession,
    display_position: int,
    question_id: str,
    chosen: int,
    correct: bool,
    now: datetime,
) -> bool:
    """The answer to the session's current question, its result row and its review card,
    in one transaction; False when a concurrent click answered it first."""
    async with db.session() as session:
        won = await session.exec(
            update(QuizSession)
            .where(
                col(QuizSession.id) == quiz.id,
                col(QuizSession.position) == quiz.position,
                col(QuizSession.answered_current).is_(False),
                col(QuizSession.status) == ACTIVE,
            )
            .values(
                answered_current=True,
                chosen=display_position,
                score=QuizSession.score + int(correct),
                last_activity_at=now,
            )
        )
        if won.rowcount:
            session.add(
                QuizResult(
                    session_id=quiz.id,
                    question_id=question_id,
                    user_id=quiz.user_id,
                    chosen=chosen,
                    correct=correct,
                    answered_at=now,
                )
            )
            # The member's review card, with the answer, in one transaction, with the
            # rules of the session's server (Learning II: its memory model and retention).
            rules = await rules_on(await session.connection(), quiz.guild_id)
            await record_grades(
                session,
                [
                    Grade(
                        quiz.user_id,
                        question_id,
                        correct,
                        now,
                        Source(QUIZ, quiz.id),
                        seconds=(now - quiz.last_activity_at).total_seconds(),
                        guild_id=quiz.guild_id,
                    )
                ],
                rules,
            )
        await session.commit()
    return bool(won.rowcount)


async def advance(db: Database, quiz: QuizSession, now: datetime) -> None:
    """After an answer: the next question, or finished after the last (once)."""
    last = quiz.position + 1 >= len(quiz.question_ids)
    values = (
        {"status": FINISHED, "finished_at": now, "last_activity_at": now}
        if last
        else {
            "position": quiz.position + 1,
            "answered_current": False,
            "chosen": None,
            "last_activity_at": now,
        }
    )
    async with db.session() as session:
        await session.exec(
            update(QuizSession)
            .where(
                col(QuizSession.id) == quiz.id,
                col(QuizSession.position) == quiz.position,
                col(QuizSession.answered_current).is_(True),
                col(QuizSession.status) == ACTIVE,
            )
            .values(**values)
        )
        await session.commit()


async def stop(db: Database, session_id: str, now: datetime) -> None:
    async with db.session() as session:
        await session.exec(
            update(QuizSession)
            .where(col(QuizSession.id) == session_id, col(QuizSession.status) == ACTIVE)
            .values(status=STOPPED, finished_at=now)
        )
        await session.commit()


async def expire_idle(db: Database, now: datetime, max_age: timedelta) -> int:
    """Mark sessions idle for longer than `max_age` as expired; returns how many."""
    async with db.session() as session:
        result = await session.exec(
            update(QuizSession)
            .where(
                col(QuizSession.status) == ACTIVE,
                col(QuizSession.last_activity_at) < now - max_age,
            )
            .values(status=EXPIRED, finished_at=now)
        )
        await session.commit()
    return result.rowcount
