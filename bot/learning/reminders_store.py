"""Review reminders in the database: a member's setting, the reminders due now, and the
check that owes one reminder (an outbox item) per member and local day, once, whatever
the number of processes (`bot.learning.reminder_rules` has the rules)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import SQLModel, col, select

from bot.db.database import Database
from bot.db.tables.community import MemberNotice
from bot.db.tables.daily import GuildDailyConfig
from bot.db.tables.learning import Reminder
from bot.db.tables.outbox import Outbox
from bot.outbox.rules import Owed

_OUTBOX = SQLModel.metadata.tables[Outbox.__tablename__]
OFF_BY_MEMBER, OFF_DM_CLOSED = "member", "dm_closed"


async def get(db: Database, user_id: int) -> Reminder | None:
    async with db.session() as session:
        return await session.get(Reminder, user_id)


async def server_timezone(db: Database, guild_id: int) -> str | None:
    """The server's daily-question timezone, the default of its members' reminders."""
    async with db.session() as session:
        config = await session.get(GuildDailyConfig, guild_id)
        return config.timezone if config is not None else None


async def save(db: Database, reminder: Reminder) -> Reminder:
    """Turn a member's reminder on (replacing any earlier setting, of any server)."""
    async with db.session() as session:
        stored = await session.get(Reminder, reminder.user_id)
        if stored is None:
            session.add(reminder)
        else:
            for name in ("guild_id", "locale", "remind_at", "timezone", "min_due", "next_at"):
                setattr(stored, name, getattr(reminder, name))
            stored.enabled, stored.off_reason, stored.updated_at = True, None, reminder.updated_at
            reminder = stored
        await session.commit()
        await session.refresh(reminder)
    return reminder


async def turn_off(
    db: Database, user_id: int, now: datetime, reason: str, notice: dict[str, Any] | None = None
) -> bool:
    """Turn a member's reminder off; with `notice` (DMs closed), owe them a notice for their
    next command in the same transaction. False when it was off already."""
    async with db.session() as session:
        done = await session.exec(
            update(Reminder)
            .where(col(Reminder.user_id) == user_id, col(Reminder.enabled).is_(True))
            .values(enabled=False, off_reason=reason, updated_at=now)
        )
        if done.rowcount and notice is not None:
            session.add(MemberNotice(user_id=user_id, params={}, created_at=now, **notice))
        await session.commit()
    return bool(done.rowcount)


async def due(db: Database, now: datetime, limit: int) -> list[Reminder]:
    """Reminders whose check time has come, the earliest first (`ix_reminder_due`)."""
    async with db.session() as session:
        rows = await session.exec(
            select(Reminder)
            .where(col(Reminder.enabled).is_(True), col(Reminder.next_at) <= now)
            .order_by(col(Reminder.next_at))
            .limit(limit)
        )
        return list(rows.all())


async def advance(
    db: Database,
    reminder: Reminder,
    next_at: datetime,
    now: datetime,
    owe: tuple[str, datetime] | None,
) -> bool:
    """Move a checked reminder to its next time and, with `owe` (ref, due at), owe the DM:
    in one transaction, and only if no other process moved it first (the conditional
    UPDATE), so a reminder is owed once. True when a DM was owed."""
    async with db.session() as session:
        moved = await session.exec(
            update(Reminder)
            .where(
                col(Reminder.user_id) == reminder.user_id,
                col(Reminder.next_at) == reminder.next_at,
                col(Reminder.enabled).is_(True),
            )
            .values(next_at=next_at)
        )
        owed = False
        if moved.rowcount == 1 and owe is not None:
            conn = await session.connection()
            insert: Any = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
            ref, due_at = owe
            result = await conn.execute(
                insert(_OUTBOX)
                .values(
                    kind=Owed.REMINDER.value,
                    guild_id=reminder.guild_id,
                    ref=ref,
                    created_at=now,
                    due_at=due_at,
                )
                .on_conflict_do_nothing()
            )
            owed = result.rowcount == 1
        await session.commit()
    return owed
