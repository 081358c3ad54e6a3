"""Quizzes a server's admins uploaded (`custom_quiz`): the YAML text as uploaded."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import LargeBinary, cast, func
from sqlmodel import col, select

from bot.common.errors import UserError
from bot.db.database import Database
from bot.db.tables.daily import GuildDailyConfig
from bot.db.tables.quiz import CustomQuiz


async def all_quizzes(db: Database) -> list[CustomQuiz]:
    async with db.session() as session:
        return list((await session.exec(select(CustomQuiz))).all())


async def ids_of(db: Database, guild_id: int) -> list[str]:
    """The ids this server stored, including any that failed to load (so they can be removed)."""
    async with db.session() as session:
        rows = await session.exec(
            select(CustomQuiz.quiz_id)
            .where(col(CustomQuiz.guild_id) == guild_id)
            .order_by(col(CustomQuiz.quiz_id))
        )
        return list(rows.all())


def kib(size: int) -> int:
    """Bytes in KiB, rounded up (what a message about sizes shows)."""
    return -(-size // 1024)


async def save(
    db: Database,
    guild_id: int,
    quiz_id: str,
    source: str,
    user_id: int,
    now: datetime,
    max_per_guild: int,
    max_bytes_per_guild: int,
) -> bool:
    """Store (or replace) a server's quiz; True when it replaced one. A UserError when the
    server has `max_per_guild` quizzes already and this is a new one, or when its quizzes
    (this one in place of the one it replaces) would take over `max_bytes_per_guild`."""
    async with db.session() as session:
        stored = (
            await session.exec(
                select(CustomQuiz.quiz_id).where(col(CustomQuiz.guild_id) == guild_id)
            )
        ).all()
        existing = await session.get(CustomQuiz, (guild_id, quiz_id))
        if existing is None and len(stored) >= max_per_guild:
            raise UserError("admin.too_many", limit=max_per_guild)
        text = col(CustomQuiz.source)
        octets = (
            func.octet_length(text)
            if (await session.connection()).dialect.name == "postgresql"
            else func.length(cast(text, LargeBinary))  # SQLite: a text's UTF-8 bytes
        )
        others = await session.exec(
            select(func.coalesce(func.sum(octets), 0)).where(
                col(CustomQuiz.guild_id) == guild_id, col(CustomQuiz.quiz_id) != quiz_id
            )
        )
        used, size = int(others.one()), len(source.encode())
        if used + size > max_bytes_per_guild:
            raise UserError(
                "admin.quota_full",
                limit_kib=max_bytes_per_guild // 1024,
                used_kib=kib(used),
                size_kib=kib(size),
            )
        if existing is None:
            session.add(
                CustomQuiz(guild_id=guild_id, quiz_id=quiz_id, source=source, added_by=user_id)
            )
        else:
            existing.source = source
            existing.added_by = user_id
            existing.added_at = now
            session.add(existing)
        await session.commit()
    return existing is not None


async def delete(db: Database, guild_id: int, quiz_id: str) -> None:
    """Remove a server's quiz; refused while it is that server's daily topic."""
    async with db.session() as session:
        row = await session.get(CustomQuiz, (guild_id, quiz_id))
        if row is None:
            raise UserError("admin.no_such_quiz", quiz_id=quiz_id)
        config = await session.get(GuildDailyConfig, guild_id)
        if config is not None and config.enabled and config.topic == quiz_id:
            # Removing it would silently stop tomorrow's daily question.
            raise UserError("admin.quiz_is_daily_topic", quiz_id=quiz_id)
        await session.delete(row)
        await session.commit()
