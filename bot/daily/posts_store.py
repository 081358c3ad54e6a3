"""Daily posts (`daily_post`): the claim that decides who posts (UNIQUE(guild_id, day), also
across processes), the message id, and the queries the scheduler driver needs."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import delete, false, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from bot.daily.types import REACTIONS
from bot.db.database import Database
from bot.db.tables.daily import DailyAnswer, DailyPost
from bot.outbox.rules import Owed
from bot.outbox.store import owe


async def claim(
    db: Database,
    guild_id: int,
    day: date,
    question_id: str,
    channel_id: int,
    reveal_at: datetime,
    now: datetime,
    choice: dict[str, Any] | None = None,
    *,
    answer_mode: str = REACTIONS,
    choice_order: list[int] | None = None,
    instance: dict[str, Any] | None = None,
) -> DailyPost | None:
    """Reserve (guild, day); None when that day's post exists already (maybe in another
    process). The post's answer mode, shown order and generated instance are fixed here."""
    post = DailyPost(
        guild_id=guild_id,
        day=day,
        question_id=question_id,
        channel_id=channel_id,
        reveal_at=reveal_at,
        claimed_at=now,
        choice=choice,
        answer_mode=answer_mode,
        choice_order=choice_order,
        instance=instance,
    )
    async with db.session() as session:
        session.add(post)
        try:
            await session.commit()
        except IntegrityError:
            await session.rollback()
            return None
    return post


async def release_claim(db: Database, post_id: int) -> None:
    """Give a claim back when posting failed before any message existed (retry later)."""
    async with db.session() as session:
        await session.exec(
            delete(DailyPost).where(
                col(DailyPost.id) == post_id, col(DailyPost.message_id).is_(None)
            )
        )
        await session.commit()


async def set_message(
    db: Database, post_id: int, message_id: int, posted_at: datetime
) -> DailyPost:
    """Record the message of a claimed post; the answer reactions are owed with it."""
    async with db.session() as session:
        post = await session.get(DailyPost, post_id)
        if post is None:
            raise LookupError(f"no daily post {post_id}")
        first = post.message_id is None
        post.message_id = message_id
        post.posted_at = posted_at
        if first and post.answer_mode == REACTIONS:
            # The answer reactions are owed with the message id, in one transaction
            # (a buttons post carries its answers already).
            owe(session, Owed.REACTIONS, post, posted_at)
        await session.commit()
    return post


async def get(db: Database, post_id: int) -> DailyPost | None:
    async with db.session() as session:
        return await session.get(DailyPost, post_id)


async def open_posts(db: Database) -> list[DailyPost]:
    """Posted and not yet settled."""
    async with db.session() as session:
        query = select(DailyPost).where(
            col(DailyPost.settled) == false(), col(DailyPost.message_id).is_not(None)
        )
        return list((await session.exec(query)).all())


async def open_by_message(db: Database, message_id: int) -> DailyPost | None:
    async with db.session() as session:
        query = select(DailyPost).where(
            DailyPost.message_id == message_id, col(DailyPost.settled) == false()
        )
        return (await session.exec(query)).first()


async def due_reveals(db: Database, now: datetime) -> list[DailyPost]:
    """Unsettled posts whose reveal time has come (claimed-but-unposted ones too)."""
    async with db.session() as session:
        query = select(DailyPost).where(
            col(DailyPost.settled) == false(), col(DailyPost.reveal_at) <= now
        )
        return list((await session.exec(query)).all())


async def for_day(db: Database, guild_id: int, day: date) -> DailyPost | None:
    async with db.session() as session:
        query = select(DailyPost).where(DailyPost.guild_id == guild_id, DailyPost.day == day)
        return (await session.exec(query)).first()


async def latest(db: Database, guild_id: int) -> DailyPost | None:
    async with db.session() as session:
        query = (
            select(DailyPost)
            .where(DailyPost.guild_id == guild_id)
            .order_by(col(DailyPost.day).desc())
            .limit(1)
        )
        return (await session.exec(query)).first()


async def unsettled(db: Database, guild_id: int) -> list[DailyPost]:
    """The guild's posts not yet settled, oldest first."""
    async with db.session() as session:
        query = (
            select(DailyPost)
            .where(DailyPost.guild_id == guild_id, col(DailyPost.settled) == false())
            .order_by(col(DailyPost.day))
        )
        return list((await session.exec(query)).all())


async def unsettled_before(
    db: Database, guild_id: int, today: date, now: datetime
) -> list[DailyPost]:
    """Earlier days' open posts and any whose reveal time has come."""
    async with db.session() as session:
        query = select(DailyPost).where(
            DailyPost.guild_id == guild_id,
            col(DailyPost.settled) == false(),
            (col(DailyPost.day) < today) | (col(DailyPost.reveal_at) <= now),
        )
        return list((await session.exec(query)).all())


async def last_post_days(db: Database) -> dict[int, date]:
    """Each guild's latest post day, in one query (10,000 guilds at start-up)."""
    async with db.session() as session:
        rows = await session.exec(
            select(DailyPost.guild_id, func.max(DailyPost.day)).group_by(col(DailyPost.guild_id))
        )
        return {guild_id: day for guild_id, day in rows.all()}


async def note_unclear(db: Database, post_id: int, users: Sequence[int]) -> None:
    """Remember members whose offline reactions named several letters (not counted)."""
    if not users:
        return
    async with db.session() as session:
        post = await session.get(DailyPost, post_id)
        if post is None or post.settled:
            return
        post.unclear_users = sorted(set(post.unclear_users or ()) | set(users))
        await session.commit()


async def answer_of(db: Database, post_id: int, user_id: int) -> int | None:
    """A member's counted answer to a post (the choice as written), None if none."""
    async with db.session() as session:
        answer = await session.get(DailyAnswer, (post_id, user_id))
        return None if answer is None else answer.choice
