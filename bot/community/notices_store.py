"""Notices owed to members (`member_notice`): claimed before they are sent, so a DM and
the member's next command never both deliver one; a failed send gives it back."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import update
from sqlmodel import col, select

from bot.db.database import Database
from bot.db.tables.community import MemberNotice


async def claim(db: Database, notice_id: int, now: datetime, via: str) -> MemberNotice | None:
    """Take one notice to send it; None when it was delivered (or taken) already."""
    async with db.session() as session:
        taken = await session.exec(
            update(MemberNotice)
            .where(col(MemberNotice.id) == notice_id, col(MemberNotice.delivered_at).is_(None))
            .values(delivered_at=now, via=via)
        )
        await session.commit()
        if taken.rowcount != 1:
            return None
        return await session.get(MemberNotice, notice_id)


async def pending_ids(db: Database, user_id: int, limit: int) -> list[int]:
    async with db.session() as session:
        rows = await session.exec(
            select(MemberNotice.id)
            .where(col(MemberNotice.user_id) == user_id, col(MemberNotice.delivered_at).is_(None))
            .order_by(col(MemberNotice.id))
            .limit(limit)
        )
        return [int(i) for i in rows.all() if i is not None]


async def release(db: Database, notice_id: int) -> None:
    """Sending failed: owed again (at the member's next command)."""
    async with db.session() as session:
        await session.exec(
            update(MemberNotice)
            .where(col(MemberNotice.id) == notice_id)
            .values(delivered_at=None, via=None)
        )
        await session.commit()
