"""The composition root: builds the Discord client and wires the core services into it.

Everything else in `bot/` is Discord-free; this module and `bot/endpoints.py`
are the only places in `bot/` that know discord.py. All start-up work happens in
`setup_hook` (it runs once per process), never in `on_ready`, which fires again
after every reconnect.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from discord.ext import commands

from bot.endpoints import redirect_discord
from bot.logs import setup_logging
from bot.quizbank import SHIPPED_DIR, QuizBank
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.daily import DailyService
    from bot.demo_runner import DemoRunner
    from bot.sessions import QuizSessions
    from bot.storage import Database
    from bot.streaks import Streaks

log = logging.getLogger("quiztutor")

EXTENSIONS = ("cogs.quiz", "cogs.daily", "cogs.stats", "cogs.demo", "cogs.admin")

TOKEN_HELP = """\
DISCORD_TOKEN is not set.
To run the bot on Discord: create an application at https://discord.com/developers/applications,
add a bot, copy its token, then run:  DISCORD_TOKEN=... quiztutor run
(Invite it with the 'bot' and 'applications.commands' scopes; then run `quiztutor sync` once.)
Without a token you can take the quizzes in the terminal:  quiztutor play --lang en   (or --lang id)"""


@dataclass
class Services:
    """The core services the cogs call; created once in setup_hook."""

    db: Database
    bank: QuizBank
    daily: DailyService
    streaks: Streaks
    sessions: QuizSessions
    demos: DemoRunner | None
    scheduler: AsyncIOScheduler


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
            # Several processes split the shards between them (see README, Scaling out).
            **shard_options(settings),
        )
        self.settings = settings
        self.sync_only = sync_only
        self._services: Services | None = None
        self.started = asyncio.Event()

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
        from cogs.common import CommandTranslator, handle_interaction_error

        await self.tree.set_translator(CommandTranslator())
        # One handler for every slash command's failure: a localized message, and a log
        # line with the ids only when it was not the user's doing.
        self.tree.on_error = handle_interaction_error  # type: ignore[method-assign]
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
        from bot.storage import utcnow

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
        from bot.custom_quizzes import load_custom_quizzes
        from bot.daily import DailyService
        from bot.demo_runner import DemoRunner
        from bot.sessions import QuizSessions
        from bot.storage import Database
        from bot.storage.database import EngineOptions
        from bot.storage.health import opening_errors
        from bot.streaks import Streaks

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
        return Services(
            db=db,
            bank=bank,
            daily=daily,
            streaks=Streaks(db),
            sessions=QuizSessions(db, bank),
            demos=demos,
            scheduler=AsyncIOScheduler(timezone="UTC"),
        )

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
            await services.db.close()


def _settings_or_exit() -> Settings | None:
    from pydantic import ValidationError

    from bot.errors import SetupError

    try:
        return Settings()
    except SetupError as exc:
        print(f"Configuration error: {exc.message}", file=sys.stderr)
        if exc.fix:
            print(f"Fix: {exc.fix}", file=sys.stderr)
        return None
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            field = ".".join(str(p) for p in error["loc"]).upper()
            print(f"Configuration error: {field}: {error['msg']}", file=sys.stderr)
        return None


def _apply_endpoints(settings: Settings) -> None:
    if settings.discord_api_base:
        redirect_discord(settings.discord_api_base, settings.discord_gateway_url)


async def _run(settings: Settings, token: str) -> int:
    from bot.errors import SetupError

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
            if isinstance(exc, discord.LoginFailure):
                print(
                    "Discord refused the token (DISCORD_TOKEN): check it in the developer portal.",
                    file=sys.stderr,
                )
                return 1
            if isinstance(exc, discord.PrivilegedIntentsRequired):
                print("Discord refused a privileged intent; quiztutor needs none.", file=sys.stderr)
                return 1
            if isinstance(exc, SetupError):
                print(f"Error: {exc.message}", file=sys.stderr)
                if exc.fix:
                    print(f"Fix: {exc.fix}", file=sys.stderr)
                return exc.exit_code
            if exc is not None:
                raise exc
            return 0
        log.info("Shutting down")
        await bot.close()
        await asyncio.gather(runner, return_exceptions=True)
    return 0


def run_bot() -> int:
    settings = _settings_or_exit()
    if settings is None:
        return 2
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        print(TOKEN_HELP, file=sys.stderr)
        return 2
    from bot.errors import SetupError
    from bot.storage.health import check_url

    try:
        check_url(settings.database_url)  # before anything is created or connected
    except SetupError as exc:
        print(f"Configuration error: {exc.message}", file=sys.stderr)
        if exc.fix:
            print(f"Fix: {exc.fix}", file=sys.stderr)
        return exc.exit_code
    setup_logging(settings.log_level, settings.log_format)
    _apply_endpoints(settings)
    return asyncio.run(_run(settings, settings.discord_token.get_secret_value().strip()))


async def _sync(settings: Settings, token: str, guild_id: int | None) -> int:
    bot = QuizTutorBot(settings, sync_only=True)
    async with bot:
        try:
            await bot.login(token)
        except discord.LoginFailure:
            print(
                "Discord refused the token (DISCORD_TOKEN): check it in the developer portal.",
                file=sys.stderr,
            )
            return 1
        if guild_id is not None:
            guild = discord.Object(id=guild_id)
            bot.tree.copy_global_to(guild=guild)
            synced = await bot.tree.sync(guild=guild)
            print(f"Registered {len(synced)} commands in server {guild_id} (available now).")
        else:
            synced = await bot.tree.sync()
            print(
                f"Registered {len(synced)} global commands (Discord may take up to an hour to show them)."
            )
    return 0


def sync_commands(guild_id: int | None = None) -> int:
    settings = _settings_or_exit()
    if settings is None:
        return 2
    if settings.discord_token is None:
        print(TOKEN_HELP, file=sys.stderr)
        return 2
    setup_logging(settings.log_level, settings.log_format)
    _apply_endpoints(settings)
    return asyncio.run(
        _sync(
            settings,
            settings.discord_token.get_secret_value().strip(),
            guild_id or settings.dev_guild_id,
        )
    )


def backup_database(destination: Path) -> int:
    """`quiztutor backup FILE` (the work is in bot.storage.backup)."""
    from bot.errors import SetupError
    from bot.storage.backup import backup_database as run_backup

    settings = _settings_or_exit()
    if settings is None:
        return 2
    try:
        print(run_backup(settings.database_url, destination))
    except SetupError as exc:
        print(f"Backup failed: {exc.message}", file=sys.stderr)
        if exc.fix:
            print(f"Fix: {exc.fix}", file=sys.stderr)
        return exc.exit_code
    return 0
