"""The process's APScheduler, stopped without cutting a job off mid-statement.

APScheduler 3's asyncio executor cancels every running job at `shutdown` (the job then
logs "raised an exception CancelledError", possibly with a message sent but not yet
recorded). At shutdown the scheduler is paused first (no new runs), the running jobs
are given a few seconds to finish, and only what is still running then is cancelled.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from apscheduler.executors.asyncio import AsyncIOExecutor
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.schedulers.base import BaseScheduler

log = logging.getLogger("quiztutor")

# How long running jobs may take to finish at shutdown (SIGTERM ends the bot in 10 s).
DRAIN_S = 4.0


def every(
    scheduler: BaseScheduler,
    seconds: float,
    job: Callable[..., Any],
    job_id: str,
    *args: Any,
    **options: Any,
) -> None:
    """Run `job(*args)` every `seconds` under `job_id` (replacing a job of that id). One
    run at a time, and runs missed meanwhile coalesced into one: APScheduler's defaults."""
    scheduler.add_job(
        job, "interval", seconds=seconds, args=args, id=job_id, replace_existing=True, **options
    )


class DrainingExecutor(AsyncIOExecutor):
    """`AsyncIOExecutor` whose running jobs can be awaited (`drain`)."""

    async def drain(self, within_s: float) -> int:
        """Wait up to `within_s` for the running jobs; how many were still running then."""
        running = {f for f in getattr(self, "_pending_futures", set()) if not f.done()}
        if not running:
            return 0
        _, pending = await asyncio.wait(running, timeout=within_s)
        return len(pending)


class DrainingScheduler(AsyncIOScheduler):
    """The process's scheduler (UTC); `stop` ends it without cutting jobs off."""

    def __init__(self) -> None:
        self.executor = DrainingExecutor()
        super().__init__(timezone="UTC", executors={"default": self.executor})

    async def stop(self, within_s: float = DRAIN_S) -> None:
        """Pause, let the running jobs finish (up to `within_s`), then shut down."""
        if not self.running:
            return
        self.pause()
        left = await self.executor.drain(within_s)
        if left:
            log.warning(
                "%d scheduled jobs still running after %.0f s are cancelled", left, within_s
            )
        self.shutdown(wait=False)
