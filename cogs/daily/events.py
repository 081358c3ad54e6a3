"""The daily question's events: start-up, new gateway sessions, and answer reactions.

`DailyCog` owns the scheduler driver (`bot.daily.DailyJobs`) of this process and hands
answer reactions to it from `QuizTutorBot.dispatch` (the `raw_reaction_add` event, before
discord.py hands it to the listeners).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.daily.jobs import DailyJobs
from bot.daily.reaction_rules import EMOJI_CHOICE

if TYPE_CHECKING:
    from bot.discord.client import QuizTutorBot


from cogs.daily.publisher import DiscordPublisher

log = logging.getLogger("quiztutor.daily")

# How long the daily start-up waits for the gateway (IDENTIFY turns of many shards).
READY_WAIT_S = 120


class DailyCog(commands.Cog):
    """The daily question's driver and listeners (the commands are `DailyCommands`).

    `jobs` is None only in `quiztutor sync`, which runs no services.
    """

    def __init__(self, bot: QuizTutorBot) -> None:
        self.bot = bot
        self.publisher = DiscordPublisher(bot)
        self.jobs: DailyJobs | None = None
        self._shards_seen: set[int] = set()
        self._start: asyncio.Task[None] | None = None
        self._awaited: set[asyncio.Task[object]] = set()  # reactions on the awaited path
        if bot.has_services:
            services = bot.services
            self.jobs = DailyJobs(
                services.daily,
                self.publisher,
                services.scheduler,
                owns_guild=bot.owns_guild,
                clock=services.clock,
                own_user_id=lambda: bot.user.id if bot.user is not None else None,
            )

    async def cog_load(self) -> None:
        self.bot.reaction_hooks.append(self.on_reaction_event)
        if self.jobs is not None:
            self._start = asyncio.create_task(self._start_jobs(self.jobs), name="daily-start")
            # A stop during the start-up ends it before the database closes.
            self.bot.background.add(self._start)
            self._start.add_done_callback(self.bot.background.discard)

    async def cog_unload(self) -> None:
        self.bot.reaction_hooks.remove(self.on_reaction_event)
        if self._start is not None and not self._start.done():
            self._start.cancel()

    async def _start_jobs(self, jobs: DailyJobs) -> None:
        # Once per process, when every cog is loaded and the scheduler runs; unlike
        # on_ready, which fires again on every reconnect.
        await self.bot.started.wait()
        # Reactions made while the bot was away are read back after READY (a shard may
        # wait seconds for its IDENTIFY turn), so none falls between that read and the
        # first gateway event.
        try:
            await asyncio.wait_for(self.bot.wait_until_ready(), READY_WAIT_S)
        except TimeoutError:
            log.warning("not READY after %d s; starting the daily driver anyway", READY_WAIT_S)
        try:
            await jobs.start()
        except Exception:
            log.exception("daily start-up failed")

    @commands.Cog.listener()
    async def on_shard_ready(self, shard_id: int) -> None:
        # READY after a fresh IDENTIFY (not a RESUME): the events Discord sent to the lost
        # session are gone, so read the open posts' reactions again (idempotent). The
        # first READY of each shard is covered by the start-up recovery.
        if shard_id not in self._shards_seen:
            self._shards_seen.add(shard_id)
            return
        jobs = self.jobs
        if jobs is None:
            return
        await jobs.started.wait()
        try:
            recovered = await jobs.reactions.recover_all()
        except Exception:
            log.exception("re-reading daily reactions after a new gateway session failed")
            return
        if recovered:
            log.info("graded %d reactions missed during a gateway outage", recovered)

    def on_reaction_event(self, payload: discord.RawReactionActionEvent) -> None:
        """Every MESSAGE_REACTION_ADD, called synchronously by `QuizTutorBot.dispatch`
        (thousands a second: no cache, no replies; custom emoji are never answers).

        A reaction that is no answer emoji costs nothing (a 👍 flood makes no task). An
        answer on a post this process holds open is graded here and queued for the writer,
        with no task at all; any other answer emoji (a post of another process) takes the
        awaited path in a task of its own. Never raises: discord.py's gateway reader is
        the caller.
        """
        jobs = self.jobs
        if jobs is None or payload.emoji.id is not None or payload.emoji.name is None:
            return
        choice = EMOJI_CHOICE.get(payload.emoji.name)
        if choice is None:
            jobs.reactions.seen.bump()  # seen and ignored, without a task
            return
        try:
            if jobs.reactions.grade_and_queue(payload.message_id, payload.user_id, choice):
                return
        except Exception:
            log.exception("the fast reaction path failed; grading on the awaited path")
        task = asyncio.create_task(
            jobs.reactions.on_reaction(
                payload.message_id, payload.channel_id, payload.user_id, payload.emoji.name
            ),
            name="daily-reaction",
        )
        self._awaited.add(task)
        task.add_done_callback(self._awaited_done)

    def _awaited_done(self, task: asyncio.Task[object]) -> None:
        self._awaited.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("grading a daily reaction failed", exc_info=task.exception())
