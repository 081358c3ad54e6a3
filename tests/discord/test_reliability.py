"""Reliability: SIGKILL mid-flood, two bot processes on one database, gateway drops,
restarts around the scheduled minute, Discord refusals and rate limits.

Subprocess tests run the real `quiztutor run` (tests/support/subprocess_bot.py) against
the Discord stand-in; in-process tests use `start_bot`. Every wait is on observable
state (the stand-in's messages, the database, the bot's start-up marker), bounded.
"""

# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from datetime import UTC, timedelta
from pathlib import Path

import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.daily import configs_store
from bot.daily.jobs import DailyJobs, guild_job_id
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.daily.service import DailyService
from bot.db.database import Database
from bot.quizbank import QuizBank
from bot.quizbank.files import SHIPPED_DIR, load_bank
from testkit.databases import db_rows
from testkit.processes import BotProcess, bot_env, integrity
from testkit.standin import FakeMessage, FakeUser
from testkit.standin.server import FakeDiscord
from testkit.times import Clock, passed_today
from tests.support.bot import StartBot
from tests.support.daily import (
    answers,
    bot_reactions_done,
    choices_of,
    is_daily_post,
    post_todays_question,
    preconfigure_daily,
    setup_daily,
    started,
    the_post,
)
from tests.support.driver import DAY1, G1, G2, T0, FakePublisher, configure
from tests.support.guilds import other_guild
from tests.support.quiz import button, letters

# Real subprocesses (bot processes, the CLI, torch workers): left out by -m 'not slow'.
pytestmark = pytest.mark.slow

WAIT = 20.0
FLOOD_MEMBERS = 400


# -- helpers ----------------------------------------------------------------------------


def add_members(fake: FakeDiscord, n: int) -> list[FakeUser]:
    users = [fake.add_user(f"member{i:04d}") for i in range(n)]
    for user in users:
        fake.add_member(fake.guild, user)
    return users


def answer_rows(db_url: str) -> list[tuple[int, int]]:
    return [
        (int(p), int(u)) for p, u in db_rows(db_url, "SELECT post_id, user_id FROM daily_answer")
    ]


async def wait_rows(db_url: str, at_least: int, timeout: float) -> int:
    """Polls the other process's database until it holds `at_least` answers."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        count = len(await asyncio.to_thread(answer_rows, db_url))
        if count >= at_least:
            return count
        if loop.time() > deadline:
            raise TimeoutError(f"{count} answers stored, expected {at_least} within {timeout}s")
        await asyncio.sleep(0.02)  # a poll interval, not a synchronisation point


async def daily_message(fake: FakeDiscord, n_choices: int | None = None) -> FakeMessage:
    message = await fake.wait_for_message(is_daily_post, WAIT, channel=fake.channel2)
    await fake.wait_until(
        lambda: fake.bot_user.id in message.reactors(ANSWER_EMOJI[1]), WAIT, "bot reactions"
    )
    return message


def daily_posts(fake: FakeDiscord) -> list[FakeMessage]:
    return [m for m in fake.messages(fake.channel2) if is_daily_post(m)]


# -- crash safety -----------------------------------------------------------------------


async def test_sigkill_mid_flood_loses_and_duplicates_no_answer(
    discord_fake: FakeDiscord, tmp_path: Path, db_url: str
) -> None:
    fake = discord_fake
    await preconfigure_daily(db_url, fake)
    members = add_members(fake, FLOOD_MEMBERS)
    env = bot_env(fake.env(), db_url)

    first = await BotProcess(env, tmp_path / "bot1.log").start()
    try:
        assert await first.wait_started(WAIT) == 0
        await fake.wait_connected(WAIT)
        message = await daily_message(fake)
        [(post_id, question_id, n_db)] = [
            (int(r[0]), str(r[1]), 1)
            for r in db_rows(db_url, "SELECT id, question_id, 1 FROM daily_post")
        ]
        assert n_db == 1
        n_choices = len(load_bank([SHIPPED_DIR]).question(question_id).choice_texts("en"))
        await fake.wait_until(
            lambda: all(fake.bot_user.id in message.reactors(e) for e in ANSWER_EMOJI[:n_choices]),
            WAIT,
            "all answer reactions of the bot",
        )

        rng = random.Random(7)
        half = FLOOD_MEMBERS // 2
        delivered_live = 0
        for index, member in enumerate(members):
            if index == half:
                # Mid-flood: the bot lags behind the stand-in (events wait in its socket,
                # answers in its writer's queue). As soon as it demonstrably records,
                # kill it; the second half reaches nobody (made while it is down).
                await wait_rows(db_url, 1, WAIT)
                await first.kill()
                delivered_live = index
            await fake.react(message, member, ANSWER_EMOJI[rng.randrange(n_choices)])
    finally:
        if first.proc is not None and first.proc.returncode is None:
            await first.kill()

    recorded_before = len(answer_rows(db_url))
    assert integrity(db_url) == ["ok"]
    delivered = sum(len(message.reactors(e)) for e in ANSWER_EMOJI) - n_choices  # minus the bot's
    assert delivered == FLOOD_MEMBERS

    second = await BotProcess(env, tmp_path / "bot2.log").start()
    try:
        recovered = await second.wait_started(WAIT)
        rows = answer_rows(db_url)
        await fake.wait_connected(WAIT)
        # Restarted after the post: no second post for the day.
        assert len(daily_posts(fake)) == 1
        assert await second.stop() == 0
    finally:
        if second.proc is not None and second.proc.returncode is None:
            await second.kill()

    users = {u for p, u in rows if p == post_id}
    duplicated = len(rows) - len(set(rows))
    print(
        f"\nkill/flood figures: delivered={delivered} (to the live bot: {delivered_live}, "
        f"after the kill: {delivered - delivered_live}), recorded_before_kill={recorded_before}, "
        f"recovered_at_start={recovered}, final={len(rows)}, duplicated={duplicated}"
    )
    assert users == {m.id for m in members}
    assert len(rows) == len(users) == delivered
    assert recorded_before + recovered == len(rows)
    assert duplicated == 0
    assert 0 < recorded_before < delivered
    assert integrity(db_url) == ["ok"]


# -- exactly one daily post ------------------------------------------------------------


async def test_two_bot_processes_post_once_and_count_each_answer_once(
    discord_fake: FakeDiscord, tmp_path: Path, db_url: str
) -> None:
    fake = discord_fake
    await preconfigure_daily(db_url, fake)
    members = add_members(fake, 40)
    env = bot_env(fake.env(), db_url)
    bots = [BotProcess(env, tmp_path / f"bot{i}.log") for i in (1, 2)]
    try:
        await asyncio.gather(*(b.start() for b in bots))
        # Both ran their start-up catch-up for the same missed post, concurrently.
        await asyncio.gather(*(b.wait_started(WAIT) for b in bots))
        await fake.wait_until(
            lambda: len(fake.gateway.connected) == 2, WAIT, "two gateway sessions"
        )
        message = await daily_message(fake)
        rng = random.Random(3)
        for member in members:  # every event reaches both processes
            await fake.react(message, member, ANSWER_EMOJI[rng.randrange(2)])
        await wait_rows(db_url, len(members), WAIT)
        assert [await b.stop() for b in bots] == [0, 0]  # graceful: writers flushed
    finally:
        for b in bots:
            if b.proc is not None and b.proc.returncode is None:
                await b.kill()
    assert len(daily_posts(fake)) == 1
    assert db_rows(db_url, "SELECT COUNT(*) FROM daily_post") == [(1,)]
    rows = answer_rows(db_url)
    assert len(rows) == len(set(rows)) == len(members)
    assert integrity(db_url) == ["ok"]


async def test_restarts_around_the_scheduled_minute_post_once_and_never_late(
    open_db: Callable[[], Awaitable[Database]], bank: QuizBank
) -> None:
    clock = Clock(T0)
    publisher = FakePublisher()
    services: list[DailyService] = []
    schedulers: list[AsyncIOScheduler] = []

    async def make_daily() -> DailyService:  # one "process" on the shared file
        service = DailyService(await open_db(), bank, clock=clock)
        await service.start()
        services.append(service)
        return service

    def make_jobs(service: DailyService) -> DailyJobs:
        scheduler = AsyncIOScheduler(timezone=UTC)
        scheduler.start(paused=True)  # jobs are stored, run only when called here
        schedulers.append(scheduler)
        return DailyJobs(service, publisher, scheduler, clock=clock)

    try:
        await _restarts_around_the_minute(make_daily, make_jobs, publisher, clock)
    finally:
        for scheduler in schedulers:
            scheduler.shutdown(wait=False)
        for service in services:
            await service.close()


async def _restarts_around_the_minute(
    make_daily: Callable[[], Awaitable[DailyService]],
    make_jobs: Callable[[DailyService], DailyJobs],
    publisher: FakePublisher,
    clock: Clock,
) -> None:
    daily = await make_daily()
    await configure(daily, G1)  # 07:30 Asia/Jakarta, revealed before the next post
    await configure(daily, G2, reveal_after=2)  # 07:30, revealed at 09:30
    # Started 30 s before the minute, then killed: nothing is posted early.
    clock.now = T0 - timedelta(seconds=30)
    await make_jobs(daily).start()
    assert publisher.posts == []
    # Restarted 30 s after the minute: the missed posts are caught up once...
    clock.now = T0 + timedelta(seconds=30)
    restarted = make_jobs(await make_daily())
    await restarted.start()
    assert sorted((g, d) for g, d, _, _ in publisher.posts) == [(G1, DAY1), (G2, DAY1)]
    # ...and its cron job, firing late for the same minute (coalesced), posts nothing more.
    await restarted.run_post_job(G1)
    await restarted.run_post_job(G2)
    clock.now = T0 + timedelta(minutes=1)
    await make_jobs(await make_daily()).start()
    assert len(publisher.posts) == 2

    # Day 2, the jobs fire 3 h late (event loop stalled): G2's day ended at its 09:30
    # reveal, so it is not posted late; G1's question is open until tomorrow: posted.
    clock.now = T0 + timedelta(days=1, hours=3)
    await asyncio.gather(restarted.run_post_job(G2), restarted.run_post_job(G1))
    day2 = DAY1 + timedelta(days=1)
    assert (G1, day2) in [(g, d) for g, d, _, _ in publisher.posts]
    assert (G2, day2) not in [(g, d) for g, d, _, _ in publisher.posts]

    # Day 3 at the minute: one process's cron job and another's start-up catch-up race.
    clock.now = T0 + timedelta(days=2, seconds=1)
    other = make_jobs(await make_daily())
    await asyncio.gather(restarted.run_post_job(G1), other.start())
    day3 = DAY1 + timedelta(days=2)
    assert [(g, d) for g, d, _, _ in publisher.posts].count((G1, day3)) == 1
    assert [(g, d) for g, d, _, _ in publisher.posts].count((G2, day3)) == 1


# -- gateway drops ------------------------------------------------------------------------


async def test_gateway_drops_during_quiz_and_daily_window(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, dora = fake.users_list
    zone, time = passed_today()
    async with start_bot() as bot:
        jobs = await started(bot)
        await setup_daily(fake, zone, time)
        quiz = await fake.slash(bob, "quiz start", topic="gradient-accumulation", questions=3)
        assert quiz.message is not None
        right, _ = await letters(bot, bob)
        await fake.click(quiz.message, button(quiz.message, right), bob)

        # The gateway drops at the scheduled minute: the post goes out over REST anyway.
        await fake.drop_gateway()
        await jobs.run_post_job(fake.guild.id)
        message = await fake.wait_for_message(is_daily_post, WAIT, channel=fake.channel2)
        post = await the_post(bot, message.id)
        n, right_choice, wrong_choice = choices_of(bot, post)
        await bot_reactions_done(fake, message, n)
        seen = jobs.reactions.seen.count
        # Reactions while the bot is disconnected: replayed on RESUME, graded once.
        await fake.react(message, citra, ANSWER_EMOJI[right_choice])
        await fake.react(message, dora, ANSWER_EMOJI[wrong_choice])
        await fake.wait_connected(WAIT)
        await asyncio.wait_for(jobs.reactions.wait_seen(seen + 2), WAIT)
        assert post.id is not None
        assert await answers(bot, post.id) == {
            citra.id: right_choice,
            dora.id: wrong_choice,
        }
        # The quiz session goes on after the drop.
        shown = fake.message(quiz.message.id)
        step = await fake.click(shown, button(shown, "Next"), bob)
        assert step.embeds[0]["title"] == "Question 2/3"

        # A drop that cannot be resumed: the bot identifies again (on_ready fires again).
        await fake.drop_gateway(resumable=False)
        await fake.wait_connected(WAIT)
        assert fake.gateway.identifies == 2
        right, _ = await letters(bot, bob)
        shown = fake.message(quiz.message.id)
        answered = await fake.click(shown, button(shown, right), bob)
        assert answered.embeds[0]["fields"][0]["name"] == "✅ Correct!"
        # Still one post for the day, however often the gateway came back.
        await jobs.run_post_job(fake.guild.id)
        assert len(daily_posts(fake)) == 1


async def test_reaction_during_a_non_resumable_drop_is_graded(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    async with start_bot() as bot:
        jobs, message, post, (_n, right_choice, _) = await post_todays_question(fake, bot)
        recoveries = jobs.reactions.recoveries.count
        await fake.drop_gateway(resumable=False)
        await fake.react(message, bob, ANSWER_EMOJI[right_choice])  # lost with the session
        await fake.wait_connected(WAIT)
        # The new session re-reads the open posts' reactions.
        await asyncio.wait_for(jobs.reactions.recoveries.reached(recoveries + 1), WAIT)
        assert post.id is not None
        assert bob.id in await answers(bot, post.id), (
            "a reaction made during a non-resumable gateway drop was never graded"
        )


# -- Discord refusals and rate limits -------------------------------------------------


async def test_forbidden_guild_is_disabled_and_told_other_guilds_keep_working(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    zone, time = passed_today()
    async with start_bot() as bot:
        jobs = await started(bot)
        other = await other_guild(fake, bot)
        olga = next(m.user for m in other.members.values() if m.user.username == "olga_admin")
        eve = next(m.user for m in other.members.values() if m.user.username == "eve")
        other_channel = other.text_channels[0]
        await setup_daily(fake, zone, time)
        res = await fake.slash(
            olga,
            "daily setup",
            channel=other_channel,
            options={"channel": other_channel},
            time=time,
            timezone=zone,
        )
        assert "✅" in res.text, res.text

        # This guild's channel refuses posts (403); the other guild's reactions get a 429.
        fake.fail("POST", rf"/channels/{fake.channel2.id}/messages$", status=403, code=50013)
        limited = fake.rate_limit("PUT", rf"/channels/{other_channel.id}/messages/\d+/reactions/")
        await asyncio.gather(jobs.run_post_job(fake.guild.id), jobs.run_post_job(other.id))

        config = await configs_store.get(bot.services.daily.db, fake.guild.id)
        assert config is not None and not config.enabled and config.disabled_reason == "forbidden"
        assert bot.services.scheduler.get_job(guild_job_id(fake.guild.id)) is None
        assert daily_posts(fake) == []
        told = await fake.slash(fake.admin, "daily status")
        assert "missing permissions" in told.text

        # The other guild posted, and the 429 was waited out: every answer reaction is there.
        posted = await fake.wait_for_message(is_daily_post, WAIT, channel=other_channel)
        post = await the_post(bot, posted.id)
        n, right_choice, _ = choices_of(bot, post)
        await bot_reactions_done(fake, posted, n)
        assert limited.hits == 1
        assert bot.services.scheduler.get_job(guild_job_id(other.id)) is not None
        seen = jobs.reactions.seen.count
        await fake.react(posted, eve, ANSWER_EMOJI[right_choice])
        await asyncio.wait_for(jobs.reactions.wait_seen(seen + 1), WAIT)
        assert post.id is not None
        assert await answers(bot, post.id) == {eve.id: right_choice}

        # Only adding the answer reactions is forbidden (no Add Reactions permission):
        # the question stays up and members' own reactions count, but the schedule
        # stops and the admin is told how to fix it.
        fake.clear_failures()
        fake.fail("PUT", rf"/channels/{fake.channel2.id}/messages/\d+/reactions/")
        await setup_daily(fake, zone, time)  # the admin fixed the channel: on again
        now = await fake.slash(fake.admin, "daily now")
        await now.wait_followup(lambda m: "✅" in m.text())
        [message] = daily_posts(fake)
        assert message.reactions == {}
        config = await configs_store.get(bot.services.daily.db, fake.guild.id)
        assert config is not None and not config.enabled
        assert config.disabled_reason == "reactions_forbidden"
        assert bot.services.scheduler.get_job(guild_job_id(fake.guild.id)) is None
        told = await fake.slash(fake.admin, "daily status")
        assert "may not add the answer reactions" in told.text
        bob = fake.users_list[0]
        seen = jobs.reactions.seen.count
        await fake.react(message, bob, ANSWER_EMOJI[0])
        await asyncio.wait_for(jobs.reactions.wait_seen(seen + 1), WAIT)
        mine = await the_post(bot, message.id)
        assert mine.id is not None
        assert await answers(bot, mine.id) == {bob.id: 0}
