"""The outbox: every message the bot owes a channel, kept until it is delivered.

A state change and the announcement it owes are written in one transaction (a post's
message id and its answer reactions; a settled day and its reveal), so a failed send,
a crash or a timeout between the two can no longer lose the announcement. The
delivery loop sends what is owed, with backoff, until Discord takes it or refuses it
for good (403/404). A lease in the database (`claimed_by`, `claimed_until`) lets one
process at a time send an item, with any number of processes on one database; each
send carries a nonce derived from the item, so a resend after a crash between Discord's
answer and our record returns the message Discord already has instead of a second one.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import or_, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.core.errors import PublishRefused
from bot.storage import DailyPost, Database, Outbox, utcnow
from bot.storage.retry import retry_transient

log = logging.getLogger("quiztutor.outbox")

# A claim older than this is taken to be a process that died mid-send.
LEASE = timedelta(seconds=120)
FIRST_RETRY_S = 5
MAX_RETRY_S = 600


class Owed(StrEnum):
    REACTIONS = "reactions"  # the answer reactions under a daily post
    REVEAL = "reveal"  # the reply that reveals a settled daily post


def retry_delay(attempts: int) -> timedelta:
    """5 s, 10 s, 20 s ... capped at 10 minutes."""
    return timedelta(seconds=min(MAX_RETRY_S, FIRST_RETRY_S * 2 ** max(0, attempts - 1)))


def nonce(kind: str, item_id: int) -> str:
    """Discord de-duplicates a bot's messages with the same nonce (25 characters at most)."""
    return f"qt-{kind[:3]}-{item_id}"


def owe(session: AsyncSession, kind: Owed, post: DailyPost, now: datetime) -> None:
    """Record an announcement in the caller's transaction (commit it with the state change)."""
    assert post.id is not None
    session.add(Outbox(kind=kind.value, guild_id=post.guild_id, post_id=post.id, due_at=now))


def process_owner() -> str:
    return f"{socket.gethostname()[:30]}:{os.getpid()}:{secrets.token_hex(4)}"


Sender = Callable[[Outbox], Awaitable[int | None]]


class OutboxService:
    """Claims, sends and records owed messages. `senders` map a kind to the Discord call."""

    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], datetime] = utcnow,
        owner: str | None = None,
    ) -> None:
        self.db = db
        self.clock = clock
        self.owner = owner or process_owner()
        self.senders: dict[str, Sender] = {}

    # -- queries ------------------------------------------------------------------

    async def pending(self, guild_id: int) -> list[Outbox]:
        """Owed and not yet delivered (nor refused for good), oldest first."""
        async with self.db.session() as session:
            query = (
                select(Outbox)
                .where(
                    col(Outbox.guild_id) == guild_id,
                    col(Outbox.delivered_at).is_(None),
                    col(Outbox.gave_up).is_(None),
                )
                .order_by(col(Outbox.id))
            )
            return list((await session.exec(query)).all())

    async def item(self, kind: Owed, post_id: int) -> Outbox | None:
        async with self.db.session() as session:
            query = select(Outbox).where(col(Outbox.kind) == kind.value, Outbox.post_id == post_id)
            return (await session.exec(query)).first()

    async def due_ids(self) -> list[tuple[int, int]]:
        """(item id, guild id) of what may be sent now: due, unclaimed or lease expired."""
        now = self.clock()
        async with self.db.session() as session:
            query = (
                select(Outbox.id, Outbox.guild_id)
                .where(
                    col(Outbox.delivered_at).is_(None),
                    col(Outbox.gave_up).is_(None),
                    col(Outbox.due_at) <= now,
                    or_(col(Outbox.claimed_until).is_(None), col(Outbox.claimed_until) < now),
                )
                .order_by(col(Outbox.due_at))
                .limit(500)
            )
            return [(int(i), int(g)) for i, g in (await session.exec(query)).all() if i is not None]

    # -- the claim and its outcomes -------------------------------------------------

    async def _claim(self, item_id: int) -> Outbox | None:
        now = self.clock()
        async with self.db.session() as session:
            claimed = await session.exec(
                update(Outbox)
                .where(
                    col(Outbox.id) == item_id,
                    col(Outbox.delivered_at).is_(None),
                    col(Outbox.gave_up).is_(None),
                    col(Outbox.due_at) <= now,
                    or_(col(Outbox.claimed_until).is_(None), col(Outbox.claimed_until) < now),
                )
                .values(claimed_by=self.owner, claimed_until=now + LEASE)
            )
            await session.commit()
            if claimed.rowcount != 1:
                return None
            return await session.get(Outbox, item_id)

    async def _finish(self, item_id: int, **values: object) -> None:
        async def step() -> None:
            async with self.db.session() as session:
                await session.exec(
                    update(Outbox)
                    .where(col(Outbox.id) == item_id, col(Outbox.claimed_by) == self.owner)
                    .values(claimed_until=None, **values)
                )
                await session.commit()

        await retry_transient(step, f"recording outbox item {item_id}")

    async def deliver(self, item_id: int) -> bool:
        """Send one owed item if it is ours to send now; True when it was delivered."""
        item = await retry_transient(lambda: self._claim(item_id), "claiming an outbox item")
        if item is None:
            return False  # delivered, refused, not due, or another process is sending it
        extra = {"guild_id": item.guild_id, "post_id": item.post_id, "kind": item.kind}
        sender = self.senders[item.kind]
        try:
            message_id = await sender(item)
        except PublishRefused as refused:
            await self._finish(item_id, gave_up=refused.reason)
            log.warning("Discord refused an owed message for good", extra=extra)
            return False
        except Exception as exc:
            attempts = item.attempts + 1
            await self._finish(
                item_id,
                attempts=attempts,
                due_at=self.clock() + retry_delay(attempts),
                claimed_by=None,
                last_error=f"{type(exc).__name__}: {exc}"[:200],
            )
            log.warning(
                "sending an owed message failed; retrying in %s",
                retry_delay(attempts),
                exc_info=True,
                extra=extra,
            )
            return False
        await self._finish(item_id, delivered_at=self.clock(), message_id=message_id)
        return True

    async def deliver_for_post(self, kind: Owed, post_id: int) -> bool:
        item = await self.item(kind, post_id)
        return item is not None and item.id is not None and await self.deliver(item.id)

    async def pump(self, owns_guild: Callable[[int], bool] = lambda guild_id: True) -> int:
        """Deliver everything due (this process's guilds); the number delivered."""
        delivered = 0
        for item_id, guild_id in await retry_transient(self.due_ids, "reading the outbox"):
            if owns_guild(guild_id):
                try:
                    delivered += await self.deliver(item_id)
                except Exception:
                    log.exception("outbox delivery failed", extra={"guild_id": guild_id})
        return delivered
