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
from datetime import datetime

from bot.core.errors import PublishRefused
from bot.core.outbox import Owed, retry_delay
from bot.core.times import utcnow
from bot.storage import Database, Outbox
from bot.storage import outbox as table
from bot.storage.retry import retry_transient

log = logging.getLogger("quiztutor.outbox")


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

    async def pending(self, guild_id: int) -> list[Outbox]:
        """Owed (of the kinds this service sends) and not yet delivered (nor refused for
        good), oldest first."""
        return await table.pending(self.db, guild_id, list(self.senders))

    async def item(self, kind: Owed, post_id: int) -> Outbox | None:
        return await table.item(self.db, kind, post_id)

    async def item_of_round(self, kind: Owed, round_id: int, number: int) -> Outbox | None:
        return await table.item_of_round(self.db, kind, round_id, number)

    async def _finish(self, item_id: int, **values: object) -> None:
        await retry_transient(
            lambda: table.finish(self.db, item_id, self.owner, **values),
            f"recording outbox item {item_id}",
        )

    async def deliver(self, item_id: int) -> bool:
        """Send one owed item if it is ours to send now; True when it was delivered."""
        item = await retry_transient(
            lambda: table.claim(self.db, item_id, self.owner, self.clock()),
            "claiming an outbox item",
        )
        if item is None:
            return False  # delivered, refused, not due, or another process is sending it
        extra = {
            "guild_id": item.guild_id,
            "post_id": item.post_id,
            "round_id": item.round_id,
            "kind": item.kind,
        }
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

    async def deliver_for_round(self, kind: Owed, round_id: int, number: int) -> bool:
        item = await self.item_of_round(kind, round_id, number)
        return item is not None and item.id is not None and await self.deliver(item.id)

    async def pump(self, owns_guild: Callable[[int], bool] = lambda guild_id: True) -> int:
        """Deliver everything due (of the kinds this service sends, in this process's
        guilds); the number delivered. Each feature's service claims only its own kinds."""
        delivered = 0
        kinds = list(self.senders)
        due = await retry_transient(
            lambda: table.due_ids(self.db, self.clock(), kinds), "reading the outbox"
        )
        for item_id, guild_id in due:
            if owns_guild(guild_id):
                try:
                    delivered += await self.deliver(item_id)
                except Exception:
                    log.exception("outbox delivery failed", extra={"guild_id": guild_id})
        return delivered
