"""Budget 6: 10,000 guilds with a daily question, 1,000 of them due in the same minute.

The real bot registers one APScheduler cron job per guild at start (`DailyJobs.start`).
The 1,000 same-minute jobs are then made due at one instant (`modify_job(...,
next_run_time=...)`), so APScheduler's own wake-up submits them, and each job makes its
real post through discord.py to the stand-in, which enforces a per-channel limit
(`channel_rate_limit` = 5 posts / 5 s, 429 above it). Checked: one post per guild, its
answer reactions in order 🇦 🇧 🇨 🇩, no request refused as over the limit. Reported:
the scheduler's overhead (registering the jobs, due -> job submitted lag) and the wall
time for all posts, median of 3 rounds, each in 1,000 guilds of its own. Baseline (same run): the same posts + reactions made straight
through discord.py's HTTP client (no scheduler, no database), same concurrency (32).

Discord's global limit (50 requests/s per bot) is not simulated: 5 requests per post
make 1,000 posts take >= 100 s there, whatever the bot does (stated in the report).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.events import EVENT_JOB_SUBMITTED, JobSubmissionEvent
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bench.common import (
    Row,
    jobs_of,
    median,
    ms,
    noon_zone,
    percentile,
    rss_mib,
    running_bot,
    seed_database,
    stand_in,
    summary,
    workdir,
)
from bot.daily import configs_store
from bot.daily.jobs import MAX_CONCURRENT_POSTS, DailyJobs, guild_job_id
from bot.daily.reaction_rules import ANSWER_EMOJI

NAME = "schedule"


async def raw_posts(bot: Any, channel_ids: list[int]) -> float:
    """Baseline: post + 4 reactions per channel via discord.py's HTTP client only."""
    slots = asyncio.Semaphore(MAX_CONCURRENT_POSTS)

    async def one(channel_id: int) -> None:
        async with slots:
            channel = bot.get_partial_messageable(channel_id)
            message = await channel.send("baseline")
            for emoji in ANSWER_EMOJI[:4]:
                await message.add_reaction(emoji)

    start = time.perf_counter()
    await asyncio.gather(*(one(c) for c in channel_ids))
    return time.perf_counter() - start


REPEATS = 3


@dataclass
class Round:
    rate: float
    wall_s: float
    baseline_rate: float
    one_each: int
    in_order: int
    refused: int
    displacement: int
    lags: list[float]


async def one_round(
    bot: Any, fake: Any, posting: list[Any], spare: list[Any], refused_before: int
) -> Round:
    """Make `posting`'s jobs due at one instant; wait until every post and its
    reactions are out; then the raw-HTTP baseline on `spare`'s channels."""
    scheduler = bot.services.scheduler
    submitted: dict[str, float] = {}

    def on_submit(event: JobSubmissionEvent) -> None:
        # Only the daily posts: the outbox pump and housekeeping run meanwhile.
        if event.job_id.startswith("daily:"):
            submitted[event.job_id] = time.perf_counter()

    scheduler.add_listener(on_submit, EVENT_JOB_SUBMITTED)
    due = datetime.now(UTC) + timedelta(seconds=1)
    for guild in posting:
        scheduler.modify_job(guild_job_id(guild.id), next_run_time=due)
    due_perf = time.perf_counter() + (due - datetime.now(UTC)).total_seconds()
    channel_ids = {g.text_channels[0].id for g in posting}

    def all_out() -> bool:
        return all(
            any(len(m.reactions) >= 4 for m in fake.messages(c) if m.author is fake.bot_user)
            for c in channel_ids
        )

    await fake.wait_until(all_out, 600, "every daily post with its reactions")
    wall_s = time.perf_counter() - due_perf
    scheduler.remove_listener(on_submit)

    posts = {c: list(fake.messages(c)) for c in channel_ids}
    one_each = sum(len(v) == 1 for v in posts.values())
    in_order = sum(
        len(v) == 1 and list(v[0].reactions)[:4] == list(ANSWER_EMOJI[:4]) for v in posts.values()
    )
    post_calls = sorted(
        (c.time, int(c.path.split("/")[2]))
        for c in fake.calls
        if c.method == "POST" and c.path.endswith("/messages") and c.status == 200
    )
    # FIFO: how far a post's place differs from its job's place in the queue.
    guild_of = {g.text_channels[0].id: g.id for g in posting}
    fired = [int(j.split(":")[1]) for j, _ in sorted(submitted.items(), key=lambda x: x[1])]
    posted = [guild_of[c] for _, c in post_calls if c in guild_of]
    place = {g: i for i, g in enumerate(fired)}
    displacement = max((abs(place[g] - i) for i, g in enumerate(posted)), default=0)
    baseline_s = await raw_posts(bot, [g.text_channels[0].id for g in spare])
    return Round(
        len(posting) / wall_s,
        wall_s,
        len(spare) / baseline_s,
        one_each,
        in_order,
        len(fake.rate_limited) - refused_before,
        displacement,
        [ms(t - due_perf) for t in submitted.values()],
    )


async def run(quick: bool) -> list[Row]:
    total, due_now = (200, 20) if quick else (10_000, 1_000)
    rounds: list[Round] = []
    async with stand_in() as fake:
        # Each round posts in its own 1,000 guilds (a guild posts once a day).
        posting = [
            [fake.add_guild(f"p{r}-{i}", channels=("daily",)) for i in range(due_now)]
            for r in range(REPEATS)
        ]
        spare = [
            [fake.add_guild(f"b{r}-{i}", channels=("base",)) for i in range(due_now // 5)]
            for r in range(REPEATS)
        ]
        _, local = noon_zone()
        same_minute = (local + timedelta(minutes=30)).strftime("%H:%M")
        flat = [g for group in posting for g in group]
        others = total - len(flat)
        ids = [g.id for g in flat] + [10**16 + i for i in range(others)]
        channels = [g.text_channels[0].id for g in flat] + [2 * 10**16 + i for i in range(others)]
        times = [same_minute] * len(flat) + [
            (local + timedelta(minutes=31 + i % 600)).strftime("%H:%M") for i in range(others)
        ]
        with workdir() as tmp:
            await seed_database(tmp, channels, ids, times)
            fake.channel_rate_limit = (5, 5.0)
            async with running_bot(fake, tmp) as bot:
                jobs = jobs_of(bot)
                await asyncio.wait_for(jobs.started.wait(), 120)
                scheduler = bot.services.scheduler
                assert len(scheduler.get_jobs()) >= total, "a guild job is missing"

                # Scheduler overhead 1: registering every guild's job (as start() does).
                configs = await configs_store.enabled(bot.services.daily.db)
                spare_scheduler = AsyncIOScheduler(timezone="UTC")
                probe = DailyJobs(bot.services.daily, jobs.publisher, spare_scheduler)
                rss0 = rss_mib()
                start = time.perf_counter()
                for config in configs:
                    probe.schedule_guild(config)
                register_s = time.perf_counter() - start
                job_mib = rss_mib() - rss0
                del probe, spare_scheduler

                # Scheduler overhead 2 and the posts: 1,000 jobs due at one instant.
                for group, base in zip(posting, spare, strict=True):
                    rounds.append(await one_round(bot, fake, group, base, len(fake.rate_limited)))
    rate, reps, spread = summary([r.rate for r in rounds])
    baseline_rate = summary([r.baseline_rate for r in rounds])[0]
    p99s = [percentile(r.lags, 99) for r in rounds]
    lag_p99, _, lag_spread = summary(p99s)
    ok = all(r.one_each == due_now and r.in_order == due_now and r.refused == 0 for r in rounds)
    walls = [r.wall_s for r in rounds]
    return [
        Row(
            NAME,
            f"{due_now:,} same-minute posts ({total:,} guilds)",
            rate,
            "posts/s",
            "all out, in order, within limits",
            ok,
            checked=ok,
            baseline=baseline_rate,
            baseline_what=f"raw HTTP, {len(spare[0])} posts",
            n=reps,
            spread=spread,
            note=f"all out in {min(walls):.1f}\u2013{max(walls):.1f} s; per run"
            f" {min(r.one_each for r in rounds)}/{due_now} one post each,"
            f" {min(r.in_order for r in rounds)} with reactions A-D in order,"
            f" {sum(r.refused for r in rounds)} requests refused (429) in all;"
            f" posting order vs job order: max displacement"
            f" {max(r.displacement for r in rounds)} (concurrency {MAX_CONCURRENT_POSTS})",
        ),
        Row(
            NAME,
            "scheduler: due -> job submitted, p99",
            lag_p99,
            "ms",
            "(info)",
            None,
            n=reps,
            spread=lag_spread,
            note=f"{len(rounds[0].lags)} jobs per run; p50"
            f" {median([percentile(r.lags, 50) for r in rounds]):.0f} ms, max"
            f" {max(max(r.lags) for r in rounds):.0f} ms; registering {total:,} jobs"
            f" {register_s:.2f} s ({ms(register_s) / total * 1000:.0f} us/job),"
            f" ~{job_mib:.1f} MiB RSS",
        ),
    ]
