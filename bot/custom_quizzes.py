"""Quizzes a server's admins upload (`/quizadmin add`): validated, stored, loaded at start.

Ids are global across the bank (sessions and daily posts refer to question ids), so an
upload may replace its own server's quiz but never a shipped one or another server's.
"""

from __future__ import annotations

from sqlmodel import col, select

from bot.errors import UserError
from bot.quizbank import QuizBank, QuizFileError, parse_quiz
from bot.quizbank.loader import MAX_FILE_BYTES
from bot.storage import CustomQuiz, Database, utcnow

MAX_QUIZZES_PER_GUILD = 25
MAX_PROBLEMS_SHOWN = 15


async def load_custom_quizzes(db: Database, bank: QuizBank) -> list[str]:
    """Add every stored server quiz to the bank; returns the ids that no longer validate."""
    skipped: list[str] = []
    async with db.session() as session:
        rows = (await session.exec(select(CustomQuiz))).all()
    for row in rows:
        try:
            bank.add(parse_quiz(row.source, f"{row.quiz_id}.yaml"), guild_id=row.guild_id)
        except (QuizFileError, ValueError):
            # A schema change may invalidate an old upload: skip it, keep serving the rest.
            skipped.append(row.quiz_id)
    return skipped


async def add_custom_quiz(
    db: Database, bank: QuizBank, guild_id: int, user_id: int, filename: str, data: bytes
) -> str:
    if len(data) > MAX_FILE_BYTES:
        raise UserError("admin.file_too_large", limit_kib=MAX_FILE_BYTES // 1024)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError("admin.not_utf8") from None
    try:
        quiz = parse_quiz(text, filename)
    except QuizFileError as exc:
        shown = "\n".join(str(p) for p in exc.problems[:MAX_PROBLEMS_SHOWN])
        more = len(exc.problems) - MAX_PROBLEMS_SHOWN
        raise UserError("admin.invalid_quiz", problems=shown, more=max(0, more)) from None
    taken = bank.conflicts(quiz, guild_id)
    if taken:
        raise UserError("admin.id_taken", ids=", ".join(taken))
    async with db.session() as session:
        count = len(
            (
                await session.exec(
                    select(CustomQuiz.quiz_id).where(col(CustomQuiz.guild_id) == guild_id)
                )
            ).all()
        )
        existing = await session.get(CustomQuiz, (guild_id, quiz.id))
        if existing is None and count >= MAX_QUIZZES_PER_GUILD:
            raise UserError("admin.too_many", limit=MAX_QUIZZES_PER_GUILD)
        if existing is None:
            session.add(
                CustomQuiz(guild_id=guild_id, quiz_id=quiz.id, source=text, added_by=user_id)
            )
        else:
            existing.source = text
            existing.added_by = user_id
            existing.added_at = utcnow()
            session.add(existing)
        await session.commit()
    bank.add(quiz, guild_id=guild_id)
    return quiz.id


async def remove_custom_quiz(db: Database, bank: QuizBank, guild_id: int, quiz_id: str) -> None:
    async with db.session() as session:
        row = await session.get(CustomQuiz, (guild_id, quiz_id))
        if row is None:
            raise UserError("admin.no_such_quiz", quiz_id=quiz_id)
        await session.delete(row)
        await session.commit()
    bank.remove(quiz_id)
