"""Review reminders: a member turns them on in a server; each minute the reminders whose
time has come are checked, and a DM is owed (through the outbox: restart-safe, once per
member and local day, never twice with several processes) to those with at least
`min_due` reviews due. The DM itself is the Discord adapter's (`cogs.quiz.reminders`).

Rules: `bot.learning.reminder_rules`; SQL: `bot.learning.reminders_store`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.common.errors import UserError
from bot.common.schedule import format_post_time, local_day, parse_post_time, parse_timezone
from bot.common.times import utcnow
from bot.db.database import Database
from bot.db.retry import log_failure
from bot.db.tables.learning import Reminder
from bot.learning import reminders_store
from bot.learning.reminder_rules import (
    BATCH,
    next_reminder_at,
    outbox_ref,
    parse_min_due,
    parse_remind_time,
    spread,
    too_late,
)
from bot.learning.review import Reviews
from bot.outbox.service import OutboxService

log = logging.getLogger("quiztutor.reminders")

# What is owed is sent this often (the owed DMs are spread over a minute).
REMINDERS_SEND_S = 5


class Reminders:
    def __init__(
        self, db: Database, reviews: Reviews, clock: Callable[[], datetime] = utcnow
    ) -> None:
        self.db = db
        self.reviews = reviews
        self.clock = clock
        # Reminders are owed and sent by their own outbox service (only the reminder kind);
        # the Discord adapter registers the sender (`outbox.register`).
        self.outbox = OutboxService(db, clock=lambda: self.clock())

    async def turn_on(
        self,
        user_id: int,
        guild_id: int | None,
        locale: str,
        time: str | None = None,
        min_due: int | None = None,
        timezone: str | None = None,
    ) -> Reminder:
        """Reminders for this member, counting and reviewing this server's questions."""
        if guild_id is None:
            raise UserError("perm.guild_only")
        at = parse_remind_time(time)
        due = parse_min_due(min_due)
        name = (
            timezone.strip()
            if timezone
            else await reminders_store.server_timezone(self.db, guild_id)
        )
        tz = parse_timezone(name or "UTC")
        now = self.clock()
        return await reminders_store.save(
            self.db,
            Reminder(
                user_id=user_id,
                guild_id=guild_id,
                locale=locale,
                remind_at=format_post_time(at),
                timezone=str(tz.key),
                min_due=due,
                next_at=next_reminder_at(now, at, tz),
                updated_at=now,
            ),
        )

    async def turn_off(self, user_id: int) -> bool:
        return await reminders_store.turn_off(
            self.db, user_id, self.clock(), reminders_store.OFF_BY_MEMBER
        )

    async def dms_closed(self, reminder: Reminder) -> None:
        """Discord refused the DM (403): reminders off, and the member is told at their
        next command (a notice)."""
        notice = {
            "guild_id": reminder.guild_id,
            "locale": reminder.locale,
            "key": "remind.dm_closed",
        }
        if await reminders_store.turn_off(
            self.db, reminder.user_id, self.clock(), reminders_store.OFF_DM_CLOSED, notice
        ):
            log.info("reminders off: DMs closed", extra={"user_id": reminder.user_id})

    async def due_count(self, reminder: Reminder, now: datetime | None = None) -> int:
        """The member's reviews due now, of the questions of the reminder's server."""
        counts = await self.reviews.counts(reminder.user_id, reminder.guild_id, now or self.clock())
        return counts.due_now

    async def owe_due(self, owns_guild: Callable[[int], bool] = lambda guild_id: True) -> int:
        """Check the reminders whose time has come (at most BATCH): owe a DM, spread over a
        minute, to those with enough reviews due; move each to its next day. The number owed."""
        now = self.clock()
        checked: list[tuple[Reminder, datetime, str | None]] = []
        for reminder in await reminders_store.due(self.db, now, BATCH):
            if not owns_guild(reminder.guild_id):
                continue
            tz = ZoneInfo(reminder.timezone)
            at = parse_post_time(reminder.remind_at)
            send = not too_late(reminder.next_at, now) and (
                await self.due_count(reminder, now) >= reminder.min_due
            )
            ref = outbox_ref(reminder.user_id, local_day(reminder.next_at, tz)) if send else None
            checked.append((reminder, next_reminder_at(max(now, reminder.next_at), at, tz), ref))
        offsets = iter(spread(sum(1 for _, _, ref in checked if ref)))
        owed = 0
        for reminder, next_at, ref in checked:
            owe = (ref, now + next(offsets)) if ref else None
            owed += await reminders_store.advance(self.db, reminder, next_at, now, owe)
        return owed

    async def run(self, owns_guild: Callable[[int], bool] = lambda guild_id: True) -> int:
        """One round of the reminder job: owe what is due, send what is owed (due by now)."""
        try:
            await self.owe_due(owns_guild)
        except Exception as exc:
            log_failure(log, "checking reminders", exc)
        return await self.pump(owns_guild)

    async def pump(self, owns_guild: Callable[[int], bool] = lambda guild_id: True) -> int:
        try:
            return await self.outbox.pump(owns_guild)
        except Exception as exc:
            log_failure(log, "sending reminders", exc)
            return 0
