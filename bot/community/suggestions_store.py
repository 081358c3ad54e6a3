"""Suggestions in the database: the pending queue per server, decisions taken once (a
conditional UPDATE, so two admins or two processes cannot both decide), the audit of
every admin action and the notice owed to the author, in the decision's transaction."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.common.errors import UserError
from bot.db.database import Database
from bot.db.tables.community import CommunityAction, MemberNotice, Suggestion

PENDING, APPROVED, REJECTED = "pending", "approved", "rejected"


def audit(
    session: AsyncSession,
    guild_id: int,
    actor_id: int,
    action: str,
    now: datetime,
    *,
    suggestion_id: int | None = None,
    question_id: str | None = None,
    detail: str | None = None,
) -> None:
    """Record an admin's action in the caller's transaction."""
    session.add(
        CommunityAction(
            guild_id=guild_id,
            actor_id=actor_id,
            action=action,
            suggestion_id=suggestion_id,
            question_id=question_id,
            detail=detail,
            at=now,
        )
    )


async def add(
    db: Database,
    suggestion: Suggestion,
    *,
    max_per_member: int,
    max_per_guild: int,
) -> int:
    """Store a pending suggestion; a UserError when the member or the server has too many
    pending, or the same prompt is pending or approved in this server already."""
    async with db.session() as session:
        pending = col(Suggestion.status) == PENDING
        in_guild = col(Suggestion.guild_id) == suggestion.guild_id
        mine = await session.exec(
            select(func.count())
            .select_from(Suggestion)
            .where(in_guild, pending, col(Suggestion.author_id) == suggestion.author_id)
        )
        if mine.one() >= max_per_member:
            raise UserError("suggest.too_many_pending", limit=max_per_member)
        # Bounded: the count stops mattering at the limit.
        queued = await session.exec(
            select(Suggestion.id).where(in_guild, pending).limit(max_per_guild)
        )
        if len(queued.all()) >= max_per_guild:
            raise UserError("suggest.queue_full")
        twin = await session.exec(
            select(Suggestion.id)
            .where(
                in_guild,
                col(Suggestion.prompt_key) == suggestion.prompt_key,
                col(Suggestion.status).in_([PENDING, APPROVED]),
            )
            .limit(1)
        )
        if twin.first() is not None:
            raise UserError("suggest.duplicate")
        session.add(suggestion)
        await session.commit()
        assert suggestion.id is not None
        return suggestion.id


async def get(db: Database, suggestion_id: int) -> Suggestion | None:
    async with db.session() as session:
        return await session.get(Suggestion, suggestion_id)


async def next_pending(db: Database, guild_id: int, after_id: int = 0) -> Suggestion | None:
    """The oldest pending suggestion after `after_id` (then from the start: a Skip wraps)."""
    async with db.session() as session:
        base = (
            select(Suggestion)
            .where(col(Suggestion.guild_id) == guild_id, col(Suggestion.status) == PENDING)
            .order_by(col(Suggestion.id))
            .limit(1)
        )
        found = (await session.exec(base.where(col(Suggestion.id) > after_id))).first()
        if found is None and after_id:
            found = (await session.exec(base)).first()
        return found


async def pending_count(db: Database, guild_id: int, limit: int) -> int:
    async with db.session() as session:
        rows = await session.exec(
            select(Suggestion.id)
            .where(col(Suggestion.guild_id) == guild_id, col(Suggestion.status) == PENDING)
            .limit(limit)
        )
        return len(rows.all())


async def approved(db: Database, guild_id: int | None, limit: int) -> list[Suggestion]:
    """Approved suggestions, oldest first: of one server (at most `limit`), or of all
    servers when `guild_id` is None (at start, to build every community quiz)."""
    async with db.session() as session:
        query = select(Suggestion).where(col(Suggestion.status) == APPROVED)
        if guild_id is not None:
            query = query.where(col(Suggestion.guild_id) == guild_id).limit(limit)
        query = query.order_by(col(Suggestion.guild_id), col(Suggestion.id))
        return list((await session.exec(query)).all())


async def edit(
    db: Database,
    suggestion_id: int,
    guild_id: int,
    actor_id: int,
    content: dict[str, Any],
    prompt_key: str,
    now: datetime,
) -> bool:
    """Replace a pending suggestion's content; False if it is no longer pending here."""
    async with db.session() as session:
        changed = await session.exec(
            update(Suggestion)
            .where(
                col(Suggestion.id) == suggestion_id,
                col(Suggestion.guild_id) == guild_id,
                col(Suggestion.status) == PENDING,
            )
            .values(content=content, prompt_key=prompt_key)
        )
        if changed.rowcount != 1:
            await session.rollback()
            return False
        audit(session, guild_id, actor_id, "edited", now, suggestion_id=suggestion_id)
        await session.commit()
        return True


async def decide(
    db: Database,
    suggestion_id: int,
    guild_id: int,
    actor_id: int,
    status: str,
    now: datetime,
    *,
    reason: str | None = None,
    notice: tuple[str, dict[str, Any]],
    max_approved: int | None = None,
) -> tuple[Suggestion, int] | None:
    """Approve or reject a pending suggestion of this server, once: with the audit row and
    the author's notice (`(key, params)`) in the same transaction. Returns the suggestion
    and the notice's id, or None when it was not pending here (decided, gone, elsewhere)."""
    async with db.session() as session:
        if max_approved is not None:
            count = await session.exec(
                select(func.count())
                .select_from(Suggestion)
                .where(col(Suggestion.guild_id) == guild_id, col(Suggestion.status) == APPROVED)
            )
            if count.one() >= max_approved:
                raise UserError("community.full", limit=max_approved)
        changed = await session.exec(
            update(Suggestion)
            .where(
                col(Suggestion.id) == suggestion_id,
                col(Suggestion.guild_id) == guild_id,
                col(Suggestion.status) == PENDING,
            )
            .values(status=status, decided_by=actor_id, decided_at=now, reason=reason)
        )
        if changed.rowcount != 1:
            await session.rollback()
            return None
        row = await session.get(Suggestion, suggestion_id)
        assert row is not None
        audit(session, guild_id, actor_id, status, now, suggestion_id=suggestion_id, detail=reason)
        key, params = notice
        owed = MemberNotice(
            user_id=row.author_id,
            guild_id=guild_id,
            locale=row.author_locale,
            key=key,
            params=params,
            created_at=now,
        )
        session.add(owed)
        await session.commit()
        assert owed.id is not None
        return row, owed.id


async def recent_actions(db: Database, guild_id: int, limit: int = 3) -> list[CommunityAction]:
    async with db.session() as session:
        rows = await session.exec(
            select(CommunityAction)
            .where(col(CommunityAction.guild_id) == guild_id)
            .order_by(col(CommunityAction.id).desc())
            .limit(limit)
        )
        return list(rows.all())
