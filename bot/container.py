"""The bot's services, built once per process (`start_services`) and closed once.

The Discord client holds one `Services`; the cogs reach it through the client. Nothing
here knows discord.py.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from bot.common.cooldowns import Cooldown
from bot.common.settings import Settings
from bot.common.times import utcnow
from bot.community.custom_quizzes import UploadGate, load_custom_quizzes
from bot.community.reports import Notices, Reports
from bot.community.suggestions import Suggestions
from bot.daily.service import DailyService
from bot.db.database import Database, EngineOptions
from bot.db.health import opening_errors
from bot.demos.generated import InstancePool
from bot.demos.runner import DemoRunner
from bot.learning.memory import CHECK_EVERY, MemoryModels
from bot.learning.recall_backfill import ClassBackfill
from bot.learning.reminder_rules import RUN_EVERY as REMINDERS_EVERY
from bot.learning.reminders import REMINDERS_SEND_S, Reminders
from bot.live.rounds import LiveRounds
from bot.quiz import sessions_store
from bot.quiz.sessions import DEFAULT_MAX_AGE, QuizSessions
from bot.quizbank import QuizBank
from bot.quizbank.files import SHIPPED_DIR, load_bank
from bot.scheduler import DrainingScheduler, every
from bot.shards.service import IdentifyGate
from bot.stats.charts import ChartRenderer
from bot.stats.progress import ProgressReports

log = logging.getLogger("quiztutor")


@dataclass
class Services:
    """The services the cogs call."""

    db: Database
    bank: QuizBank
    daily: DailyService
    sessions: QuizSessions
    progress: ProgressReports
    live: LiveRounds
    demos: DemoRunner | None
    generated: InstancePool
    scheduler: DrainingScheduler
    # Per member: one /quiz start or review, one demo, per cooldown (abuse limits).
    quiz_cooldown: Cooldown
    uploads: UploadGate
    demo_cooldown: Cooldown
    suggestions: Suggestions
    reports: Reports
    notices: Notices
    memory: MemoryModels  # Learning II: each server's memory model, its weekly fit
    reminders: Reminders  # Learning II: members' review reminders by DM
    fits: bool = False  # whether this process runs the weekly fits (DEMO_WORKER=true)
    charts: ChartRenderer = field(default_factory=ChartRenderer)
    demo_warmup: asyncio.Task[None] | None = None
    # Where the daily driver and the outbox decide (tests shift it: testkit.processes).
    clock: Callable[[], datetime] = utcnow
    identify: IdentifyGate | None = None  # IDENTIFY turns shared with the other shards
    # What an upgrade left to fold into the class recall, folded after start.
    backfill: ClassBackfill | None = None
    closed: bool = False

    def demo_state(self, configured_device: str) -> str:
        """The demo worker's state for the `ready:` log line."""
        if self.demos is None:
            return "demos off (DEMO_WORKER=false)"
        warmup = self.demo_warmup
        if warmup is None or not warmup.done():
            return f"demo device {configured_device}, worker starting"
        if warmup.cancelled() or warmup.exception() is not None:
            return (
                f"demo device {configured_device}, worker failed to start (retried on first /demo)"
            )
        info = self.demos.worker_info
        return (
            f"demo device {info.get('device', configured_device)}, worker ready "
            f"(torch {info.get('torch', '?')})"
        )

    def start_housekeeping(self, owns_guild: Callable[[int], bool] = lambda guild_id: True) -> None:
        async def expire_quiz_sessions() -> None:
            # Idle sessions hold no memory (state is in the database), but their rows and
            # buttons should stop working after a while.
            expired = await sessions_store.expire_idle(self.db, utcnow(), DEFAULT_MAX_AGE)
            if expired:
                log.info("expired %d idle quiz sessions", expired)

        every(self.scheduler, 15 * 60, expire_quiz_sessions, "housekeeping:sessions")
        # Review reminders: checked every minute (owed through the outbox, spread over a
        # minute), and what is owed sent every few seconds.
        check_s = REMINDERS_EVERY.total_seconds()
        every(self.scheduler, check_s, self.reminders.run, "reminders:check", owns_guild)
        every(self.scheduler, REMINDERS_SEND_S, self.reminders.pump, "reminders:send", owns_guild)
        if self.fits:
            # Weekly memory-model fits, each in a child process (torch), one at a time.
            fit_s = CHECK_EVERY.total_seconds()
            every(self.scheduler, fit_s, self.memory.run_job, "memory:fits", owns_guild)
        self.scheduler.start()

    async def close(self) -> None:
        """Once: let running jobs finish, write what is queued, stop the children."""
        if self.closed:
            return
        self.closed = True
        await self.scheduler.stop()
        if self.backfill is not None:
            await self.backfill.close()  # between two of its short transactions
        if self.demo_warmup is not None and not self.demo_warmup.done():
            self.demo_warmup.cancel()
        await self.live.writer.close()  # writes every queued answer
        await self.daily.close()  # writes every answer still queued
        if self.demos is not None:
            await self.demos.close()  # first: a refill in flight ends with DemoRunnerClosed
        await self.generated.close()
        await self.charts.close()
        await self.db.close()


def _warn_if_warmup_failed(task: asyncio.Task[None]) -> None:
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None:
        log.warning("demos unavailable for now (%s); /demo tries again on first use", exc)


async def start_services(settings: Settings, *, clock: Callable[[], datetime] = utcnow) -> Services:
    """Open the database (migrating it), load the quizzes, start the answer writer and,
    alongside the gateway login, the demo worker."""
    async with opening_errors(settings.database_url):
        db = await Database.open(
            settings.database_url, options=EngineOptions.from_settings(settings)
        )
    bank = load_bank([SHIPPED_DIR, *settings.quiz_dirs])
    await load_custom_quizzes(db, bank)
    suggestions = Suggestions(db, bank)
    await suggestions.load()
    reports = Reports(db, bank)
    await reports.load()
    demos: DemoRunner | None = None
    warmup: asyncio.Task[None] | None = None
    if settings.demo_worker:
        demos = DemoRunner(
            timeout=settings.demo_timeout_s,
            max_queue=settings.demo_queue_size,
            device=settings.demo_device,
        )
        # The worker imports torch (seconds): warm it up alongside the gateway login.
        warmup = asyncio.create_task(demos.start(), name="demo-warmup")
        warmup.add_done_callback(_warn_if_warmup_failed)
    # Generated questions: a few instances per template made ahead in the worker.
    pool = InstancePool(
        demos.generate_batch if demos is not None else None,
        bank.templates,
        size=settings.generated_pool_size,
    )
    pool.start()
    daily = DailyService(db, bank, clock=clock, pool=pool)  # a day may ask a template's instance
    await daily.start()
    backfill = ClassBackfill(db, clock)
    backfill.start()
    sessions = QuizSessions(db, bank, pool=pool)
    live = LiveRounds(db, bank, max_rounds=settings.live_max_rounds_per_server, pool=pool)
    await live.writer.start()
    return Services(
        db=db,
        bank=bank,
        daily=daily,
        sessions=sessions,
        progress=ProgressReports(db, bank, sessions.reviews),
        live=live,
        demos=demos,
        generated=pool,
        scheduler=DrainingScheduler(),
        quiz_cooldown=Cooldown(settings.quiz_cooldown_s),
        uploads=UploadGate(settings.upload_cooldown_s),
        demo_cooldown=Cooldown(settings.demo_cooldown_s),
        demo_warmup=warmup,
        suggestions=suggestions,
        reports=reports,
        notices=Notices(db),
        memory=MemoryModels(db),
        reminders=Reminders(db, sessions.reviews),
        fits=settings.demo_worker,
        clock=clock,
        identify=IdentifyGate(db, settings.identify_spacing_s),
        backfill=backfill,
    )
