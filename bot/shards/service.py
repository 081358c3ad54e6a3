"""IDENTIFY across shard processes on one database: each of Discord's buckets
(`shard_id % max_concurrency`) starts one session per window, whichever process asks.

The client's `before_identify_hook` waits here, right before discord.py sends IDENTIFY.
Processes on several hosts share the database's bucket rows, so their clocks must agree
to well under the margin (`IDENTIFY_SPACING_S` less Discord's 5 s); NTP does that.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from bot.common.times import utcnow
from bot.db.database import Database
from bot.db.retry import retry_transient
from bot.outbox.service import process_owner
from bot.shards.rules import identify_bucket
from bot.shards.store import take_turn

log = logging.getLogger("quiztutor")


class IdentifyGate:
    def __init__(
        self, db: Database, spacing_s: float, *, clock: Callable[[], datetime] = utcnow
    ) -> None:
        self.db = db
        self.spacing = timedelta(seconds=spacing_s)
        self.clock = clock
        self.holder = process_owner()

    async def wait_turn(self, shard_id: int, max_concurrency: int) -> None:
        """Return when this shard may IDENTIFY (cancellable: a shutdown ends the wait)."""
        bucket = identify_bucket(shard_id, max_concurrency)
        logged = False
        while True:
            wait_s = await retry_transient(
                lambda: take_turn(self.db, bucket, self.holder, self.clock, self.spacing),
                "taking an IDENTIFY turn",
            )
            if wait_s <= 0:
                return
            if not logged:
                logged = True
                log.info(
                    "shard %d waits %.1f s for its IDENTIFY turn (bucket %d of %d)",
                    shard_id,
                    wait_s,
                    bucket,
                    max_concurrency,
                )
            await asyncio.sleep(wait_s)
