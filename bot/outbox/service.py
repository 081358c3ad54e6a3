"""The outbox: every message the bot owes a channel, kept until it is delivered.

A state change and the announcement it owes are written in one transaction (a post's
message id and its answer reactions; a settled day and its reveal), so a failed send,
a crash or a timeout between the two can no longer lose the announcement. The
delivery loop sends what is owed, with backoff, until Discord takes it or refuses it
for good (403/404). A lease in the database (`claimed_by`, `claimed_until`) lets one
process at a time send an item, with any number of processes on one database; each
send carries a nonce derived from the item, so a resend after a crash between Discord's
answer and our record returns the message Discord already has instead of a second one.

Discord remembers a nonce for a few minutes only. An attempt whose outcome is unknown
(the process died between Discord's answer and the record, or the send failed without
an answer) leaves `unsure_since` on the row; before sending such an item again, the
kind's finder looks in the channel for the copy Discord may already have (e.g. the bot's
reply to the daily post) and records it instead of sending a second one. Kinds whose
resend is harmless (reactions: adding one twice is a no-op) need no finder.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.common.errors import PublishRefused
from bot.common.times import utcnow
from bot.db.database import Database
from bot.db.retry import is_transient, log_failure, outage, retry_transient
from bot.db.tables.outbox import Outbox
from bot.outbox import store
from bot.outbox.rules import Owed, retry_delay

log = logging.getLogger("quiztutor.outbox")


def process_owner() -> str:
    return f"{socket.gethostname()[:30]}:{os.getpid()}:{secrets.token_hex(4)}"


Sender = Callable[[Outbox], Awaitable[int | None]]
# The copy of an owed message Discord may already have, sent after `since`: its id or None.
Finder = Callable[[Outbox, datetime], Awaitable[int | None]]

# The look-back starts this long before the unsure attempt (clocks of several hosts).
LOOKBACK_MARGIN = timedelta(minutes=1)


@dataclass(frozen=True)
class Delivery:
    """What one `deliver` did: sent, found (the copy Discord had), or neither."""

    delivered: bool
    found: bool = False


class OutboxService:
    """Claims, sends and records owed messages. Each feature registers its kinds' senders
    (`register`): the Discord call, and the finder where a resend needs one."""

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
        # Per kind: where to look for a copy before resending after an unknown outcome.
        self.finders: dict[str, Finder] = {}

    def register(self, kind: str, send: Sender, find: Finder | None = None) -> None:
        """This process sends owed items of `kind` with `send`; `find` looks for the copy
        an attempt of unknown outcome may have left (kinds whose resend is harmless need
        none)."""
        self.senders[kind] = send
        if find is not None:
            self.finders[kind] = find

    async def pending(self, guild_id: int) -> list[Outbox]:
        """Owed (of the kinds this service sends) and not yet delivered (nor refused for
        good), oldest first."""
        return await store.pending(self.db, guild_id, list(self.senders))

    async def _finish(self, item_id: int, **values: object) -> None:
        await retry_transient(
            lambda: store.finish(self.db, item_id, self.owner, **values),
            f"recording outbox item {item_id}",
        )

    async def _failed(self, item_id: int, **values: object) -> None:
        await retry_transient(
            lambda: store.failed(self.db, item_id, self.owner, **values),
            f"recording outbox item {item_id}",
        )

    async def _find_copy(self, item: Outbox) -> int | None:
        """The message an earlier attempt of unknown outcome may have left in the channel."""
        finder = self.finders.get(item.kind)
        if item.unsure_since is None or finder is None:
            return None
        return await finder(item, item.unsure_since - LOOKBACK_MARGIN)

    async def deliver(self, item_id: int) -> bool:
        """Send one owed item if it is ours to send now; True when it was delivered."""
        return (await self.attempt(item_id)).delivered

    async def attempt(self, item_id: int) -> Delivery:
        """Claim, look for a copy when an earlier attempt's outcome is unknown, else send."""
        item = await retry_transient(
            lambda: store.claim(self.db, item_id, self.owner, self.clock()),
            "claiming an outbox item",
        )
        if item is None:
            # Delivered, refused, not due, or another process is sending it.
            return Delivery(False)
        extra = {
            "guild_id": item.guild_id,
            "post_id": item.post_id,
            "round_id": item.round_id,
            "kind": item.kind,
        }
        sender = self.senders[item.kind]
        found = False
        try:
            message_id = await self._find_copy(item)
            found = message_id is not None
            if not found:
                message_id = await sender(item)
        except PublishRefused as refused:
            await self._finish(item_id, gave_up=refused.reason)
            log.warning("Discord refused an owed message for good", extra=extra)
            return Delivery(False)
        except Exception as exc:
            # Without Discord's answer nobody knows whether the message is out: the
            # next attempt looks for it first (`unsure_since`).
            attempts = item.attempts + 1
            await self._failed(
                item_id,
                attempts=attempts,
                due_at=self.clock() + retry_delay(attempts),
                last_error=f"{type(exc).__name__}: {exc}"[:200],
            )
            log.warning(
                "sending an owed message failed; retrying in %s",
                retry_delay(attempts),
                exc_info=True,
                extra=extra,
            )
            return Delivery(False)
        await self._finish(item_id, delivered_at=self.clock(), message_id=message_id)
        if found:
            log.info(
                "an owed message was already in the channel; recorded, not sent again",
                extra={**extra, "message_id": message_id},
            )
        return Delivery(True, found)

    async def retry_now(self, item_id: int) -> Delivery:
        """An admin's explicit retry: make the item due now and attempt it (still once:
        the lease and the look-back hold as for the automatic retries)."""
        await retry_transient(
            lambda: store.make_due(self.db, item_id, self.clock()), "retrying an outbox item"
        )
        return await self.attempt(item_id)

    async def retry_owed(self, guild_id: int, kind: Owed) -> list[tuple[Delivery, Outbox]]:
        """`retry_now` for everything of `kind` the guild is owed; each outcome with the
        item as it stands afterwards (delivered, given up, or its next try)."""
        outcomes = []
        for item in await self.pending(guild_id):
            if item.kind != kind.value or item.id is None:
                continue
            delivery = await self.retry_now(item.id)
            after = await store.get(self.db, item.id)
            outcomes.append((delivery, after or item))
        return outcomes

    async def deliver_for_post(self, kind: Owed, post_id: int) -> bool:
        item = await store.item(self.db, kind, post_id)
        return item is not None and item.id is not None and await self.deliver(item.id)

    async def deliver_for_round(self, kind: Owed, round_id: int, number: int) -> bool:
        item = await store.item_of_round(self.db, kind, round_id, number)
        return item is not None and item.id is not None and await self.deliver(item.id)

    async def pump(self, owns_guild: Callable[[int], bool] = lambda guild_id: True) -> int:
        """Deliver everything due (of the kinds this service sends, in this process's
        guilds); the number delivered. Each feature's service claims only its own kinds."""
        delivered = 0
        kinds = list(self.senders)
        try:
            due = await store.due_ids(self.db, self.clock(), kinds)
        except Exception as exc:
            if not is_transient(exc):
                raise
            # The database is away: the next pass (seconds later) tries again; waiting
            # here would only pile the passes up.
            outage.failed("reading the outbox", exc)
            return 0
        for item_id, guild_id in due:
            if owns_guild(guild_id):
                try:
                    delivered += await self.deliver(item_id)
                except Exception as exc:
                    log_failure(log, "outbox delivery", exc, guild_id=guild_id)
        return delivered
