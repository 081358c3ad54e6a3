"""The Discord client: connects, loads the cogs, and holds the services they call.

All start-up work happens in `setup_hook` (it runs once per process), never in
`on_ready`, which fires again after every reconnect. The services are Discord-free
(`bot.common`); the cogs are the adapter on top of this client. `started` is set once
the services run and every cog is loaded: a cog that has start-up work waits on it.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable
from typing import Any

import discord
from discord.ext import commands

from bot.common.settings import Settings
from bot.container import Services, start_services
from bot.discord.translator import CommandTranslator

log = logging.getLogger("quiztutor")

# Loaded in this order; `cogs.interactions` first: the error handler and shared buttons.
EXTENSIONS = (
    "cogs.interactions",
    "cogs.quiz",
    "cogs.live",  # adds /quiz live under cogs.quiz's group: after it
    "cogs.daily",
    "cogs.stats",
    "cogs.demo",
    "cogs.admin",
    "cogs.help",
)


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
        self._ready_logged = False
        self.setup_started = False  # set once logged in: failures after it are not Discord's
        self._max_concurrency: int | None = None  # GET /gateway/bot's, read at the first IDENTIFY
        # Start-up work of the cogs (e.g. the daily driver's): ended before the services.
        self.background: set[asyncio.Task[None]] = set()
        # Called synchronously with every raw_reaction_add (see `dispatch`).
        self.reaction_hooks: list[Callable[[discord.RawReactionActionEvent], None]] = []

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        # Answer reactions come hundreds a second, each in its own gateway frame: the
        # daily cog grades them right here instead of in the task discord.py creates per
        # listener and event (a tenth of the bot's CPU per reaction at a steady 500/s,
        # `bench.steady`). Every listener still gets the event from discord.py below.
        if event_name == "raw_reaction_add":
            for hook in self.reaction_hooks:
                try:
                    hook(*args)
                except Exception:  # the gateway reader is the caller: never let it fail
                    log.exception("a reaction hook failed")
        super().dispatch(event_name, *args, **kwargs)

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

    @property
    def has_services(self) -> bool:
        """False in `quiztutor sync`, which only registers the commands."""
        return self._services is not None

    async def setup_hook(self) -> None:
        self.setup_started = True
        await self.tree.set_translator(CommandTranslator())
        if not self.sync_only:
            self._services = await start_services(self.settings)
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        if self._services is not None:
            self._services.start_housekeeping(self.owns_guild)
        # Everything loaded so far lives as long as the process: keep it out of the
        # collector's scans, which otherwise pause the reaction hot path.
        gc.collect()
        gc.freeze()
        self.started.set()

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
        if self._services is None:
            return "demos off (DEMO_WORKER=false)"
        return self._services.demo_state(self.settings.demo_device)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Wait for this shard's turn in Discord's IDENTIFY bucket, shared through the
        database with every shard process (README, Scaling out)."""
        services = self._services
        if services is None or services.identify is None:
            await super().before_identify_hook(shard_id, initial=initial)
            return
        if self._max_concurrency is None:
            limits = await self.fetch_session_start_limits()
            self._max_concurrency = max(1, limits.max_concurrency)
        await services.identify.wait_turn(shard_id or 0, self._max_concurrency)

    async def close(self) -> None:
        services = self._services
        if services is not None:
            # Jobs already running finish (a reveal being sent is recorded), no new ones
            # start; then the gateway: no reaction may arrive after the writer closed.
            await services.scheduler.stop()
            if services.demos is not None:
                # While Discord can still be reached: the member of a running demo is told.
                await services.demos.close()
            for task in self.background:
                task.cancel()
            await asyncio.gather(*self.background, return_exceptions=True)
        # Unloads the cogs (each stops what it owns, e.g. the live driver), then closes
        # the connection to Discord.
        await super().close()
        if services is not None:
            await services.close()
