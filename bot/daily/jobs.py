"""The driver of the daily question: APScheduler jobs and the post/reveal/catch-up decisions.

Discord-free: everything that talks to Discord goes through a `DailyPublisher` (the
daily cog implements it with discord.py). The database decides who posts
(`DailyPosts.claim`: UNIQUE(guild_id, day)), so two bot processes on one
database, or a restart in the middle of a post, never post twice for a guild and day.

Jobs (all in the scheduler's in-memory store, re-created at every start):
* `daily:{guild_id}`: a CronTrigger at the guild's local post time. It first reveals
  the guild's previous open question (the default "reveal just before the next
  post") and then posts today's.
* `daily-reveal:{post_id}`: a DateTrigger at the post's reveal time.

Start-up (`start`, run once per process when the bot's services are up):
read the reactions of open posts made while the bot was away, reveal what is
overdue, re-create the reveal jobs, register the guild jobs and make missed posts
whose day is not over (`should_catch_up`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from apscheduler.jobstores.base import JobLookupError
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.triggers.date import DateTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.common.errors import PublishRefused
from bot.common.schedule import (
    DailySchedule,
    local_day,
    next_post_at,
    post_trigger,
    reveal_at,
    should_catch_up,
)
from bot.common.times import utcnow
from bot.daily import configs_store, posts_store
from bot.daily.announcements import Announcements
from bot.daily.configs import schedule_for
from bot.daily.posts import Plan
from bot.daily.publisher import DailyPublisher
from bot.daily.reactions import ReactionHandler
from bot.daily.service import DailyService
from bot.daily.types import RevealSummary
from bot.db.retry import log_failure, retry_transient
from bot.db.tables.daily import DailyPost, GuildDailyConfig
from bot.outbox.rules import Owed, nonce
from bot.outbox.service import OutboxService

log = logging.getLogger("quiztutor.daily")

# A post job that fires late (event loop busy, 1,000 guilds in one minute) still runs:
# the job itself decides whether today's post is still worth making.
POST_MISFIRE_GRACE_S = 6 * 3600

# Posts being made at once; discord.py queues the HTTP calls behind its rate limits
# anyway, this only bounds open DB sessions and in-flight tasks.
MAX_CONCURRENT_POSTS = 32


# How often each process looks for owed messages that are due again (after a failure).
OUTBOX_PUMP_S = 5

SCHEDULE_CHUNK = 200


@dataclass(frozen=True)
class PostResult:
    post: DailyPost | None  # the day's post (new or existing); None if nothing was posted
    created: bool  # this call made the post
    refused: str | None = None  # Discord refused: the guild is disabled now


def guild_job_id(guild_id: int) -> str:
    return f"daily:{guild_id}"


def reveal_job_id(post_id: int) -> str:
    return f"daily-reveal:{post_id}"


class DailyJobs:
    """`jobs = DailyJobs(daily, publisher, scheduler); await jobs.start()`.

    `scheduler` may be None (tests, benchmarks): job functions are then only called
    directly. `clock` returns aware UTC datetimes. Answer reactions go to
    `jobs.reactions`; what the outbox sends is `jobs.announcements`.
    """

    def __init__(
        self,
        daily: DailyService,
        publisher: DailyPublisher,
        scheduler: BaseScheduler | None = None,
        *,
        clock: Callable[[], datetime] = utcnow,
        max_concurrent_posts: int = MAX_CONCURRENT_POSTS,
        owns_guild: Callable[[int], bool] = lambda guild_id: True,
        outbox: OutboxService | None = None,
        own_user_id: Callable[[], int | None] = lambda: None,
    ) -> None:
        self.daily = daily
        self.db = daily.db
        # What is owed to channels (answer reactions, reveals) until Discord has it.
        self.outbox = outbox or OutboxService(daily.db, clock=clock)
        self.announcements = Announcements(daily, publisher, self.unschedule_guild)
        self.outbox.register(Owed.REACTIONS, self.announcements.send_reactions)
        self.outbox.register(
            Owed.REVEAL, self.announcements.send_reveal, self.announcements.find_reveal
        )
        self.outbox.register(Owed.DISCUSSION, self.announcements.send_discussion)
        # With several bot processes (shards split across hosts) each one schedules only
        # the guilds of its own shards; the UNIQUE(guild_id, day) claim stays the backstop.
        self.owns_guild = owns_guild
        self.publisher = publisher
        self.scheduler = scheduler
        self.clock = clock
        self._post_slots = asyncio.Semaphore(max_concurrent_posts)
        # Serialises the decisions of one guild in this process (job vs /daily now).
        self._guild_locks: dict[int, asyncio.Lock] = {}
        self._revealing: set[int] = set()
        self.started = asyncio.Event()
        self.reactions = ReactionHandler(daily, publisher, owns_guild, own_user_id)

    def schedule_guild(self, config: GuildDailyConfig) -> None:
        if self.scheduler is None:
            return
        self.scheduler.add_job(
            self.run_post_job,
            post_trigger(schedule_for(config)),
            args=[config.guild_id],
            id=guild_job_id(config.guild_id),
            name=guild_job_id(config.guild_id),
            replace_existing=True,
            misfire_grace_time=POST_MISFIRE_GRACE_S,
            coalesce=True,
            max_instances=1,
        )

    def unschedule_guild(self, guild_id: int) -> None:
        self._remove_job(guild_job_id(guild_id))

    def schedule_reveal(self, post: DailyPost) -> None:
        if self.scheduler is None or post.id is None:
            return
        self.scheduler.add_job(
            self.run_reveal_job,
            DateTrigger(run_date=post.reveal_at),
            args=[post.id, post.guild_id],
            id=reveal_job_id(post.id),
            name=reveal_job_id(post.id),
            replace_existing=True,
            misfire_grace_time=None,  # a late reveal is still a reveal
            coalesce=True,
        )

    def _remove_job(self, job_id: str) -> None:
        if self.scheduler is None:
            return
        try:
            self.scheduler.remove_job(job_id)
        except JobLookupError:
            pass

    def _lock(self, guild_id: int) -> asyncio.Lock:
        lock = self._guild_locks.get(guild_id)
        if lock is None:
            lock = self._guild_locks[guild_id] = asyncio.Lock()
        return lock

    async def start(self) -> None:
        """Once per process, after the services exist (never again on reconnect)."""
        try:
            now = self.clock()
            if self.scheduler is not None:
                self.scheduler.add_job(
                    self.run_outbox_job,
                    IntervalTrigger(seconds=OUTBOX_PUMP_S),
                    id="outbox",
                    name="outbox",
                    replace_existing=True,
                    coalesce=True,
                    max_instances=1,
                )
            configs = [
                c for c in await configs_store.enabled(self.db) if self.owns_guild(c.guild_id)
            ]
            # Cheap and first: the day's posts must not wait for the slow REST reads below.
            for index, config in enumerate(configs, start=1):
                self.schedule_guild(config)
                if index % SCHEDULE_CHUNK == 0:
                    # ~0.3 ms per job: with thousands of guilds, let the gateway and
                    # interactions run between chunks instead of stalling READY.
                    await asyncio.sleep(0)
            await self.reactions.recover_all()
            try:  # a settled day whose review cards a crash interrupted
                await self.daily.settling.finish_grading()
            except Exception as exc:
                log_failure(log, "finishing the review cards of a settled day", exc)
            for post in await posts_store.due_reveals(self.db, now):
                if self.owns_guild(post.guild_id):
                    await self.run_reveal_job(post.id, post.guild_id)
            for post in await posts_store.open_posts(self.db):
                if self.owns_guild(post.guild_id):
                    self.schedule_reveal(post)
            last_days = await posts_store.last_post_days(self.db)
            await asyncio.gather(
                *(self._catch_up(config, last_days.get(config.guild_id), now) for config in configs)
            )
            # What an earlier run (or another process that died) still owed.
            await self.run_outbox_job()
        finally:
            self.started.set()

    async def _catch_up(
        self, config: GuildDailyConfig, last_day: date | None, now: datetime
    ) -> None:
        try:
            if should_catch_up(now, schedule_for(config), last_day):
                log.info("catching up a missed daily post", extra={"guild_id": config.guild_id})
                await self.post_today(config.guild_id)
        except Exception as exc:
            log_failure(log, "daily catch-up", exc, guild_id=config.guild_id)

    async def run_post_job(self, guild_id: int) -> None:
        """The cron job of one guild: reveal the previous question, post today's."""
        try:
            config = await configs_store.get(self.db, guild_id)
            if config is None or not config.enabled:
                self.unschedule_guild(guild_id)
                return
            await self.post_today(guild_id, scheduled=True)
        except Exception as exc:
            log_failure(log, "daily post job", exc, guild_id=guild_id)

    async def post_today(self, guild_id: int, *, scheduled: bool = False) -> PostResult:
        """Make today's post (local day of the guild) unless it exists; also `/daily now`.

        Reveals the guild's earlier open questions first, so members see yesterday's
        answer before today's question.
        """
        async with self._lock(guild_id):
            config = await configs_store.get(self.db, guild_id)
            if config is None:
                return PostResult(None, False)
            now = self.clock()
            schedule = schedule_for(config)
            today = local_day(now, schedule.tz)
            await self._reveal_before(guild_id, today, now)
            existing = await posts_store.for_day(self.db, guild_id, today)
            if existing is not None:
                return PostResult(existing, False)
            if scheduled and now >= reveal_at(today, schedule):
                return PostResult(None, False)  # a fired-late job: today is over
            return await self._publish(config, today, self._reveal_time(today, schedule, now))

    @staticmethod
    def _reveal_time(today: date, schedule: DailySchedule, now: datetime) -> datetime:
        due = reveal_at(today, schedule)
        if due > now:
            return due
        # `/daily now` after today's reveal time (e.g. reveal_after=1 at 07:00, now 15:00):
        # give members the same time to answer, but reveal before the next post.
        hours = schedule.reveal_after_hours or 1
        upcoming = next_post_at(now, schedule) - timedelta(minutes=1)
        return max(min(now + timedelta(hours=hours), upcoming), now + timedelta(minutes=1))

    async def _publish(self, config: GuildDailyConfig, day: date, reveal: datetime) -> PostResult:
        plan = await self.daily.posts.plan(
            config.guild_id, day, config.topic, config.repeat_after_days
        )
        # From the claim to the answer reactions, the post's writes go before background
        # work's (an upgrade's class fold, a settled day's cards): `Database.priority`.
        async with self.db.priority.urgent():
            return await self._post(config, day, reveal, plan)

    async def _post(
        self, config: GuildDailyConfig, day: date, reveal: datetime, plan: Plan
    ) -> PostResult:
        guild_id = config.guild_id
        question_id = plan.choice.question_id
        post = await posts_store.claim(
            self.daily.db,
            guild_id,
            day,
            question_id,
            config.channel_id,
            reveal,
            self.clock(),
            plan.choice.reason.to_dict(),
            answer_mode=config.answer_mode,
            choice_order=plan.order,
            instance=plan.instance,
        )
        if post is None:  # another process (or a restarted one) has the day
            return PostResult(await posts_store.for_day(self.db, guild_id, day), False)
        assert post.id is not None
        post_id = post.id
        async with self._post_slots:
            try:
                message_id = await self.publisher.post(
                    config, post, plan.question, nonce("post", post_id)
                )
            except PublishRefused as refused:
                await retry_transient(
                    lambda: posts_store.release_claim(self.db, post_id), "releasing a daily claim"
                )
                await configs_store.disable(self.db, guild_id, refused.reason, self.clock())
                self.unschedule_guild(guild_id)
                log.warning(
                    "Discord refused the daily post; schedule disabled",
                    extra={
                        "guild_id": guild_id,
                        "channel_id": config.channel_id,
                        "reason": refused.reason,
                    },
                )
                return PostResult(None, False, refused.reason)
            except Exception:
                # Nothing was posted (as far as we know): free the day for a retry. A
                # cancellation (shutdown) keeps the claim: the message may be out already.
                await retry_transient(
                    lambda: posts_store.release_claim(self.db, post_id), "releasing a daily claim"
                )
                raise
            # The message is in the channel: its id must be recorded, however busy the
            # database is (the answer reactions are owed in the same transaction).
            post = await retry_transient(
                lambda: self.daily.posts.set_message(post_id, message_id), "recording a daily post"
            )
            self.schedule_reveal(post)
            await self.outbox.deliver_for_post(Owed.REACTIONS, post_id)
        log.info(
            "daily question posted",
            extra={"guild_id": guild_id, "day": day.isoformat(), "question_id": question_id},
        )
        return PostResult(post, True)

    async def run_reveal_job(
        self, post_id: int | None, guild_id: int | None = None
    ) -> RevealSummary | None:
        """The scheduled reveal (and the catch-up's): a failure is logged, not raised."""
        if post_id is None:
            return None
        try:
            return await self.reveal(post_id)
        except Exception as exc:
            log_failure(log, "daily reveal", exc, guild_id=guild_id, post_id=post_id)
            return None

    async def _reveal_before(self, guild_id: int, today: date, now: datetime) -> None:
        for post in await posts_store.unsettled_before(self.db, guild_id, today, now):
            await self.run_reveal_job(post.id, guild_id)

    async def reveal_open(self, guild_id: int) -> RevealSummary | None:
        """`/daily reveal`: close the guild's open question now (the latest, if several)."""
        summary = None
        for post in await posts_store.unsettled(self.db, guild_id):
            assert post.id is not None
            summary = await self.reveal(post.id)
        return summary

    async def reveal(self, post_id: int) -> RevealSummary | None:
        """Settle the post and announce it; None if it was settled already (or is busy)."""
        if post_id in self._revealing:
            return None
        self._revealing.add(post_id)
        try:
            post = await posts_store.get(self.db, post_id)
            if post is None or post.settled:
                return None
            if not self.started.is_set() and post.message_id is not None:
                # A job fired while start-up still reads reactions: read this post's first.
                await self.reactions.recover(post)
            summary = await retry_transient(
                lambda: self.daily.settling.settle(post_id), "settling a daily post"
            )
            self._remove_job(reveal_job_id(post_id))
            if post.message_id is not None:
                # Owed since the settle committed: sent now, or by the outbox job later.
                await self.outbox.deliver_for_post(Owed.REVEAL, post_id)
                # Owed with it where the server asked for a discussion thread.
                await self.outbox.deliver_for_post(Owed.DISCUSSION, post_id)
            return summary
        finally:
            self._revealing.discard(post_id)

    async def run_outbox_job(self) -> int:
        try:
            return await self.outbox.pump(self.owns_guild)
        except Exception as exc:
            log_failure(log, "outbox delivery", exc)
            return 0
