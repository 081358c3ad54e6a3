"""The composition root: builds the Discord client and wires the core services into it.

Everything else in `bot/` is Discord-free; this module, `bot/discord_internals.py` (the
endpoint redirect), `bot/startup.py` (what a failure to log in or connect means) and `bot/cli.py` are the only places in `bot/` that know discord.py
(`tests/test_layering.py` holds the rest to it). All start-up work happens in
`setup_hook` (it runs once per process), never in `on_ready`, which fires again
after every reconnect.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from discord.ext import commands

from bot.cli.logs import setup_logging
from bot.core.errors import SetupError
from bot.core.quizbank import SHIPPED_DIR, QuizBank
from bot.core.settings import Settings
from bot.discord.internals import redirect_discord
from bot.discord.startup import (
    discord_failure,
    preflight,
    start_failure,
    token_or_fail,
    warn_if_warmup_failed,
)
from bot.services.charts import ChartRenderer
from cogs.ui.replies import ErrorHandlingTree

if TYPE_CHECKING:
    from bot.services.daily import DailyService
    from bot.services.demo_runner import DemoRunner
    from bot.services.progress import ProgressReports
    from bot.services.sessions import QuizSessions
    from bot.services.streaks import Streaks
    from bot.storage import Database

log = logging.getLogger("quiztutor")

EXTENSIONS = (
    "cogs.quiz",
    "cogs.daily",
    "cogs.stats",
    "cogs.demo",
    "cogs.admin",
    "cogs.help",
)


@dataclass
class Services:
    """The core services the cogs call; created once in setup_hook."""

    db: Database
    bank: QuizBank
    daily: DailyService
    streaks: Streaks
    sessions: QuizSessions
    progress: ProgressReports
    demos: DemoRunner | None
    scheduler: AsyncIOScheduler
    charts: ChartRenderer = field(default_factory=ChartRenderer)


def bot_intents() -> discord.Intents:
    # Only non-privileged intents: servers and reactions. No message content, no members.
    intents = discord.Intents.none()
    intents.guilds = True
    intents.guild_reactions = True
    return intents


def shard_options(settings: Settings) -> dict[str, Any]:
    if settings.shard_count is None:
        return {}
    return {"shard_count": settings.shard_count, "shard_ids": settings.shard_ids}


class QuizTutorBot(commands.AutoShardedBot):
    def __init__(self, settings: Settings, *, sync_only: bool = False) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=bot_intents(),
            help_command=None,
            # Reactions are handled as raw events, so the message cache only costs memory
            # and a linear scan per reaction.
            max_messages=None,
            chunk_guilds_at_startup=False,
            allowed_mentions=discord.AllowedMentions.none(),
            # One handler for every slash command's failure: a localized message, and a
            # log line with the ids only when it was not the user's doing.
            tree_cls=ErrorHandlingTree,
            # Several processes split the shards between them (see README, Scaling out).
            **shard_options(settings),
        )
        self.settings = settings
        self.sync_only = sync_only
        self._services: Services | None = None
        self.started = asyncio.Event()
        self._ready_logged = False
        self.setup_started = False  # set once logged in: failures after it are not Discord's
        self._demo_warmup: asyncio.Task[None] | None = None

    def owns_guild(self, guild_id: int) -> bool:
        """Whether this process runs the shard of `guild_id` (Discord's formula)."""
        settings = self.settings
        if settings.shard_count is None or settings.shard_ids is None:
            return True
        return (guild_id >> 22) % settings.shard_count in settings.shard_ids

    @property
    def services(self) -> Services:
        if self._services is None:
            raise RuntimeError("services are created in setup_hook")
        return self._services

    async def setup_hook(self) -> None:
        from cogs.common import CommandTranslator
        from cogs.ui.buttons import PERSISTENT_ITEMS

        self.setup_started = True

        await self.tree.set_translator(CommandTranslator())
        # Every persistent button, once: a press is handled whichever extensions load.
        self.add_dynamic_items(*PERSISTENT_ITEMS)
        if not self.sync_only:
            self._services = await self._start_services()
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        if self._services is not None:
            self._schedule_housekeeping(self._services)
            self._services.scheduler.start()
            # Posting missed dailies and reading reactions made while offline.
            self.dispatch("services_ready")
        # Everything loaded so far lives as long as the process: keep it out of the
        # collector's scans, which otherwise pause the reaction hot path.
        gc.collect()
        gc.freeze()
        self.started.set()

    def _schedule_housekeeping(self, services: Services) -> None:
        from bot.core.times import utcnow

        async def expire_quiz_sessions() -> None:
            # Idle sessions hold no memory (state is in the database), but their rows and
            # buttons should stop working after a while.
            expired = await services.sessions.cleanup_expired(utcnow())
            if expired:
                log.info("expired %d idle quiz sessions", expired)

        services.scheduler.add_job(
            expire_quiz_sessions,
            "interval",
            minutes=15,
            id="housekeeping:sessions",
            replace_existing=True,
        )

    async def _start_services(self) -> Services:
        from bot.services.custom_quizzes import load_custom_quizzes
        from bot.services.daily import DailyService
        from bot.services.demo_runner import DemoRunner
        from bot.services.progress import ProgressReports
        from bot.services.sessions import QuizSessions
        from bot.services.streaks import Streaks
        from bot.storage import Database
        from bot.storage.database import EngineOptions
        from bot.storage.health import opening_errors

        settings = self.settings
        async with opening_errors(settings.database_url):
            db = await Database.open(
                settings.database_url, options=EngineOptions.from_settings(settings)
            )
        bank = QuizBank.load([SHIPPED_DIR, *settings.quiz_dirs])
        await load_custom_quizzes(db, bank)
        daily = DailyService(db, bank)
        await daily.start()
        demos: DemoRunner | None = None
        if settings.demo_worker:
            demos = DemoRunner(
                timeout=settings.demo_timeout_s,
                max_queue=settings.demo_queue_size,
                device=settings.demo_device,
            )
            # The worker imports torch (seconds): warm it up alongside the gateway login.
            self._demo_warmup = asyncio.create_task(demos.start(), name="demo-warmup")
            self._demo_warmup.add_done_callback(warn_if_warmup_failed)
        streaks = Streaks(db)
        sessions = QuizSessions(db, bank)
        return Services(
            db=db,
            bank=bank,
            daily=daily,
            streaks=streaks,
            sessions=sessions,
            progress=ProgressReports(db, bank, streaks, sessions.reviews),
            demos=demos,
            scheduler=AsyncIOScheduler(timezone="UTC"),
        )

    async def on_ready(self) -> None:
        # on_ready fires again after a new session; the host needs the line once.
        if self._ready_logged or self.sync_only:
            return
        self._ready_logged = True
        log.info("%s", self.ready_line())

    def ready_line(self) -> str:
        user = self.user
        who = f"{user} (id {user.id})" if user else "?"
        shards = (
            sorted(self.shard_ids)
            if self.shard_ids is not None
            else list(range(self.shard_count or 1))
        )
        return (
            f"ready: {who} in {len(self.guilds)} server(s), shard(s) {shards} of {self.shard_count or 1}, "
            f"{self.demo_state()}"
        )

    def demo_state(self) -> str:
        settings = self.settings
        demos = self._services.demos if self._services is not None else None
        if demos is None:
            return "demos off (DEMO_WORKER=false)"
        warmup = self._demo_warmup
        if warmup is None or not warmup.done():
            return f"demo device {settings.demo_device}, worker starting"
        if warmup.cancelled() or warmup.exception() is not None:
            return f"demo device {settings.demo_device}, worker failed to start (retried on first /demo)"
        info = demos.worker_info
        return f"demo device {info.get('device', settings.demo_device)}, worker ready (torch {info.get('torch', '?')})"

    async def close(self) -> None:
        services = self._services
        if services is not None and services.scheduler.running:
            services.scheduler.shutdown(wait=False)
        # The gateway first: no reaction may arrive after the answer writer has closed.
        await super().close()
        if services is not None:
            await services.daily.close()  # writes every answer still queued
            if services.demos is not None:
                await services.demos.close()
            await services.charts.close()
            await services.db.close()


def _settings_or_exit() -> Settings:
    """The settings, or a SetupError naming each bad variable (printed by the boundary)."""
    from bot.cli.boundary import load_settings

    return load_settings()


def _apply_endpoints(settings: Settings) -> None:
    if settings.discord_api_base:
        redirect_discord(settings.discord_api_base, settings.discord_gateway_url)


async def _run(settings: Settings, token: str) -> int:

    bot = QuizTutorBot(settings)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with bot:
        runner = asyncio.create_task(bot.start(token), name="discord")
        stopper = asyncio.create_task(stop.wait(), name="signals")
        done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if runner in done:
            stopper.cancel()
            exc = runner.exception()
            if exc is None:
                return 0
            # Logged in but not started: the services (database, quizzes) failed.
            in_setup = bot.setup_started and not bot.started.is_set()
            failure = start_failure(exc, settings, in_setup=in_setup)
            if failure is not None:
                raise failure from exc
            # A bug, not a set-up problem: its traceback belongs in the log for the report.
            log.error("the bot stopped on an unexpected error", exc_info=exc)
            raise exc
        log.info("Shutting down")
        await bot.close()
        await asyncio.gather(runner, return_exceptions=True)
    return 0


def run_bot() -> int:
    settings = _settings_or_exit()
    token = token_or_fail(settings)
    setup_logging(settings.log_level, settings.log_format)
    preflight(settings)
    _apply_endpoints(settings)
    return asyncio.run(_run(settings, token))


async def _sync(settings: Settings, token: str, guild_id: int | None) -> int:
    bot = QuizTutorBot(settings, sync_only=True)
    async with bot:
        try:
            await bot.login(token)
            if guild_id is not None:
                guild = discord.Object(id=guild_id)
                bot.tree.copy_global_to(guild=guild)
                synced = await bot.tree.sync(guild=guild)
            else:
                synced = await bot.tree.sync()
        except discord.Forbidden as exc:
            raise SetupError(
                f"Discord refused to register commands in server {guild_id}.",
                "invite the bot there with the applications.commands scope (README, First run)",
                exit_code=1,
            ) from exc
        except Exception as exc:
            failure = discord_failure(exc, settings)
            if failure is None:
                raise
            raise failure from exc
        if guild_id is not None:
            print(f"Registered {len(synced)} commands in server {guild_id} (available now).")
        else:
            print(
                f"Registered {len(synced)} global commands (Discord may take up to an hour to show them)."
            )
    return 0


def sync_commands(guild_id: int | None = None) -> int:
    settings = _settings_or_exit()
    token = token_or_fail(settings)
    setup_logging(settings.log_level, settings.log_format)
    _apply_endpoints(settings)
    return asyncio.run(_sync(settings, token, guild_id or settings.dev_guild_id))
