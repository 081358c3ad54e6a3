"""A member's write before the background's (`Database.priority`).

SQLite has one write lock, and a writer that finds it taken polls for it (the busy
timeout: sleeps of up to 100 ms) while another writer that comes back at once gets it
first. Background work that writes transaction after transaction (the class fold after
an upgrade, a settled day's review cards) therefore kept a member's write waiting for
seconds: the first `/daily now` after an upgrade waited 2.6 s for its claim.

So the background takes turns: each of its transactions runs inside `background()`,
one at a time, and only while no member's write is in progress (`urgent()`); `urgent()`
stops new background transactions and waits for the one in flight, if any, then writes
with the lock free. A background transaction is short (tens of ms), so a member's write
waits for at most one. Background work still completes: it only pauses while a member's
write runs. Within one process, and only on SQLite (`one_writer`): PostgreSQL's writers
lock rows, not the database, and run side by side.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class WritePriority:
    def __init__(self, one_writer: bool) -> None:
        self.one_writer = one_writer  # False: both contexts do nothing
        self._urgent = 0  # members' writes in progress
        self._busy = False  # a background transaction in flight
        self._changed = asyncio.Condition()

    @asynccontextmanager
    async def urgent(self) -> AsyncIterator[None]:
        """A member's writes: no background transaction starts meanwhile, and the one in
        flight, if any, is waited for first."""
        if not self.one_writer:
            yield
            return
        async with self._changed:
            self._urgent += 1
        try:
            async with self._changed:
                await self._changed.wait_for(lambda: not self._busy)
            yield
        finally:
            async with self._changed:
                self._urgent -= 1
                self._changed.notify_all()

    @asynccontextmanager
    async def background(self) -> AsyncIterator[None]:
        """One background transaction, one at a time (they do not queue for SQLite's
        lock among themselves), once no member's write is in progress."""
        if not self.one_writer:
            yield
            return
        async with self._changed:
            await self._changed.wait_for(lambda: not self._urgent and not self._busy)
            self._busy = True
        try:
            yield
        finally:
            async with self._changed:
                self._busy = False
                self._changed.notify_all()
