"""Each server's memory model: what `/daily stats` shows of it, the class's retention curve,
and the weekly fit.

The fit runs in a process of its own, never on the bot's event loop: the weekly job starts
`python -m bot memory fit --guild ID` (the same code as `quiztutor memory fit`, which
imports torch through the `fsrs` optimizer), one server at a time, and waits for it
without blocking. The fit claims its server in the database, so several bot processes
never fit one server twice at once. A server with fewer than 1,000 reviews is recorded as
such without starting a process. Processes started with `DEMO_WORKER=false` (no torch
there) run no fits.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.common.times import utcnow
from bot.db.database import Database
from bot.db.retry import log_failure
from bot.learning import memory_store
from bot.learning.memory_rules import (
    CURVE_CARDS,
    CURVE_DAYS,
    MIN_REVIEWS,
    TOO_LITTLE,
    card_stability,
    retention_curve,
)

log = logging.getLogger("quiztutor.memory")

FIT_EVERY = timedelta(days=7)
CHECK_EVERY = timedelta(hours=1)
# A fit process running longer than this is stopped (its lease frees the server later).
FIT_TIMEOUT_S = 1800.0


@dataclass(frozen=True)
class ClassCurve:
    recall: list[float]  # mean predicted recall today (0) .. in CURVE_DAYS days
    cards: int
    target: float


class MemoryModels:
    def __init__(self, db: Database, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self.clock = clock
        self._running: asyncio.Task[None] | None = None

    async def class_curve(self, guild_id: int) -> ClassCurve:
        """The predicted recall of the cards the class reviewed here in the last 30 days
        (at most CURVE_CARDS), today and on each of the next 30 days, by the server's model."""
        now = self.clock()
        rules = await memory_store.rules_for(self.db, guild_id)
        cards = await memory_store.class_cards(
            self.db, guild_id, now - timedelta(days=30), CURVE_CARDS
        )

        def curve() -> list[float]:  # ~50 ms for 5,000 cards: off the loop
            points = [p for p in (card_stability(c) for c in cards) if p is not None]
            return retention_curve(points, rules.scheduler, now, CURVE_DAYS)

        recall = await asyncio.to_thread(curve)
        return ClassCurve(recall, len(cards), rules.retention)

    # -- the weekly fit ------------------------------------------------------------------

    async def fit_due(self, owns_guild: Callable[[int], bool] = lambda guild_id: True) -> int:
        """Fit the servers whose weekly fit is due, one after the other; the number checked."""
        checked = 0
        for guild_id in await memory_store.due_for_fit(self.db, self.clock()):
            if not owns_guild(guild_id):
                continue
            checked += 1
            now = self.clock()
            reviews = await memory_store.review_count(self.db, guild_id, MIN_REVIEWS)
            if reviews < MIN_REVIEWS:
                if await memory_store.claim_fit(self.db, guild_id, now):
                    await memory_store.save_fit(
                        self.db,
                        guild_id,
                        {
                            "decision": TOO_LITTLE,
                            "reason": f"{reviews} reviews; a fit needs at least {MIN_REVIEWS}",
                            "counts": {"reviews": reviews},
                        },
                        now,
                        now + FIT_EVERY,
                    )
                continue
            await self.fit_in_process(guild_id)
        return checked

    async def fit_in_process(self, guild_id: int) -> int:
        """`python -m bot memory fit --guild ID --quiet` in a child process; its exit status."""
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "memory",
            "fit",
            "--guild",
            str(guild_id),
            "--quiet",
            # The child reads this process's database, however its settings were given.
            env={**os.environ, "DATABASE_URL": self.db.url},
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            _, err = await asyncio.wait_for(process.communicate(), FIT_TIMEOUT_S)
        except TimeoutError:
            process.kill()
            await process.wait()
            log.warning("memory fit of server %s stopped after %.0f s", guild_id, FIT_TIMEOUT_S)
            return -9
        if process.returncode:
            log.warning(
                "memory fit of server %s failed (exit %s): %s",
                guild_id,
                process.returncode,
                err.decode(errors="replace").strip()[-300:],
                extra={"guild_id": guild_id},
            )
        else:
            log.info("memory fit of server %s done", guild_id, extra={"guild_id": guild_id})
        return int(process.returncode or 0)

    async def run_job(self, owns_guild: Callable[[int], bool] = lambda guild_id: True) -> None:
        try:
            await self.fit_due(owns_guild)
        except Exception as exc:
            log_failure(log, "weekly memory fits", exc)
