"""The class recall's deferred work, done in the background after start.

Revision 0005 enters every recently active member of a server as not yet counted (their
cards are not in the server's sums), and so can a settle whose fold failed. Folding
8,746 members of a big server takes seconds; done by the first daily choice, it made
that choice (and `/daily now`) wait for it. Instead `ClassBackfill` starts with the bot
and folds every server that has such members, one after another, in the short
transactions of `recall_store.fold` (FOLD_CHUNK members each, the event loop free in
between, a member's write first: `Database.priority`), before the first post is
usually due. A choice that comes first folds only for its own budget
(`bot.daily.choice_store.CHOICE_FOLD_S`) and chooses from the sums as they are.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import false, select
from sqlmodel import SQLModel

from bot.db.database import Database
from bot.db.retry import log_failure, retry_transient
from bot.db.tables.aggregates import ClassMember
from bot.learning.recall_store import fold

log = logging.getLogger("quiztutor")

_MEMBER = SQLModel.metadata.tables[ClassMember.__tablename__]
# One `fold` call runs for at most this long before the task looks whether to stop.
SLICE_S = 1.0


async def unfolded_guilds(db: Database, guild_id: int | None = None) -> list[int]:
    """The servers (or only `guild_id`, if so) with members not yet counted in their
    class recall."""
    query = select(_MEMBER.c.guild_id).where(_MEMBER.c.counted == false())
    if guild_id is not None:
        query = query.where(_MEMBER.c.guild_id == guild_id).limit(1)
    async with db.engine.connect() as conn:
        rows = await conn.execute(query.distinct())
        return sorted(int(g) for g in rows.scalars())


class ClassBackfill:
    """`start()` once the database is open; `close()` stops it between two transactions."""

    def __init__(self, db: Database, clock: Callable[[], datetime]) -> None:
        self.db = db
        self.clock = clock
        self.folded = 0  # members counted in (or out) so far
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="class-backfill")

    async def done(self) -> None:
        """Until every server found at start is folded (or the task has stopped)."""
        if self._task is not None:
            await asyncio.shield(self._task)

    async def close(self) -> None:
        self._stop.set()
        if self._task is not None:
            await self._task

    async def _slice(self, guild_id: int) -> int:
        return await fold(self.db, guild_id, self.clock(), SLICE_S)

    async def _run(self) -> None:
        try:
            guilds = await retry_transient(
                lambda: unfolded_guilds(self.db), "finding servers to fold"
            )
            for guild_id in guilds:
                # A slice may count no one (a choice's fold took the same members first)
                # and still leave some: the server is done when none are left.
                while not self._stop.is_set():
                    self.folded += await retry_transient(
                        functools.partial(self._slice, guild_id),
                        "folding members into the class",
                    )
                    if not await unfolded_guilds(self.db, guild_id):
                        break
        except Exception as exc:  # a later choice or settle folds what is left
            log_failure(log, "folding the classes at start", exc)
        else:
            if self.folded:
                log.info("counted %d members into their class recall", self.folded)
