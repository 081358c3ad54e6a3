"""/daily and the daily question through the Discord stand-in, with the real bot.

Times are real (the bot's clock is the wall clock): each test picks a fixed-offset
zone where it is about noon now, so "a post time that passed today" is never near
a local midnight whatever time the suite runs.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import update
from sqlmodel import col

from bot.common.schedule import next_post_at
from bot.common.times import utcnow
from bot.daily import configs_store, posts_store, streaks_store
from bot.daily.configs import schedule_for
from bot.daily.jobs import guild_job_id
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.db.tables.outbox import Outbox
from testkit.standin import Emoji, FakeMessage
from testkit.standin.server import FakeDiscord
from testkit.times import passed_today
from tests.support.bot import StartBot
from tests.support.daily import (
    WAIT,
    answers,
    bot_reactions_done,
    choices_of,
    is_daily_post,
    post_todays_question,
    setup_daily,
    started,
    the_post,
)


async def test_setup_status_permissions_and_refusals(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    guild_id = fake.guild.id
    member = fake.users_list[0]
    async with start_bot() as bot:
        await started(bot)
        # The fake client sends it anyway: the bot must refuse on its side.
        refused = await fake.slash(
            member, "daily setup", options={"channel": fake.channel2}, time="07:30", timezone="UTC"
        )
        assert refused.ephemeral and "Manage Server" in refused.text
        assert await configs_store.get(bot.services.daily.db, guild_id) is None

        res = await fake.slash(
            fake.admin,
            "daily setup",
            options={"channel": fake.channel2},
            time="07:30",
            timezone="Asia/Jakarta",
            reveal_after=6,
        )
        assert res.ephemeral and "07:30 (Asia/Jakarta)" in res.text
        config = await configs_store.get(bot.services.daily.db, guild_id)
        assert config is not None and config.channel_id == fake.channel2.id
        job = bot.services.scheduler.get_job(guild_job_id(guild_id))
        assert job is not None and str(job.trigger.timezone) == "Asia/Jakarta"

        status = await fake.slash(fake.admin, "daily status")
        expected = next_post_at(datetime.now(UTC), schedule_for(config))
        assert f"<t:{int(expected.timestamp())}:F>" in status.text
        assert "6 h" in status.text

        # Refused inputs: localized, and nothing changes.
        bad_zone = await fake.slash(
            fake.admin,
            "daily setup",
            options={"channel": fake.channel},
            time="08:00",
            timezone="Mars/Olympus",
            locale="id",
        )
        assert "'Mars/Olympus' bukan zona waktu yang dikenal" in bad_zone.text
        bad_time = await fake.slash(
            fake.admin,
            "daily setup",
            options={"channel": fake.channel},
            time="25:99",
            timezone="UTC",
        )
        assert "'25:99' is not a time" in bad_time.text
        after = await configs_store.get(bot.services.daily.db, guild_id)
        assert after is not None
        assert (after.channel_id, after.post_time, after.timezone) == (
            fake.channel2.id,
            "07:30",
            "Asia/Jakarta",
        )
        assert fake.messages(fake.channel) == [] and fake.messages(fake.channel2) == []

        topics = await fake.autocomplete(fake.admin, "daily setup", "topic", "gradient-acc")
        assert [c["value"] for c in topics] == ["gradient-accumulation"]

        off = await fake.slash(fake.admin, "daily off")
        assert "off" in off.text
        assert bot.services.scheduler.get_job(guild_job_id(guild_id)) is None
        # Off means off: /daily now does not post behind the admin's back.
        now = await fake.slash(fake.admin, "daily now")
        assert "The daily question is off in this server." in now.text
        assert fake.messages(fake.channel2) == []


async def test_now_reactions_and_reveal(discord_fake: FakeDiscord, start_bot: StartBot) -> None:
    fake = discord_fake
    bob, citra, dora = fake.users_list
    zone, time = passed_today()
    async with start_bot() as bot:
        jobs = await started(bot)
        # A seed quiz (the reveal offers the question's demo, checked below).
        await setup_daily(fake, zone, time, topic="mixed-precision")
        assert fake.messages(fake.channel2) == []  # setup alone does not post

        res = await fake.slash(fake.admin, "daily now")
        done = await res.wait_followup(lambda m: "✅" in m.text())
        message = await fake.wait_for_message(is_daily_post, WAIT, channel=fake.channel2)
        assert str(message.id) in done.text()
        post = await the_post(bot, message.id)
        n, right, wrong = choices_of(bot, post)
        await bot_reactions_done(fake, message, n)
        # The bot's own reaction events reach the handler and are ignored.
        await asyncio.wait_for(jobs.reactions.wait_seen(n), WAIT)

        again = await fake.slash(fake.admin, "daily now")
        linked = await again.wait_followup()
        assert "already posted" in linked.text() and str(message.id) in linked.text()
        assert len([m for m in fake.messages(fake.channel2) if is_daily_post(m)]) == 1

        await fake.react(message, bob, ANSWER_EMOJI[right])
        await fake.react(message, citra, ANSWER_EMOJI[wrong])
        await fake.react(message, citra, ANSWER_EMOJI[right])  # a change: does not count
        await fake.react(message, dora, "👍")  # not an answer
        await asyncio.wait_for(jobs.reactions.wait_seen(n + 4), WAIT)
        assert await answers(bot, post.id) == {bob.id: right, citra.id: wrong}  # type: ignore[arg-type]

        # The gateway may deliver an event twice (resume replay): counted once.
        event = fake._reaction_event(message, dora, Emoji.parse(ANSWER_EMOJI[right]))
        await fake.gateway.dispatch("MESSAGE_REACTION_ADD", event)
        await fake.gateway.dispatch("MESSAGE_REACTION_ADD", event)
        await asyncio.wait_for(jobs.reactions.wait_seen(n + 6), WAIT)
        assert await answers(bot, post.id) == {  # type: ignore[arg-type]
            bob.id: right,
            citra.id: wrong,
            dora.id: right,
        }
        # Silence in the channel: reactions get no replies.
        assert len(fake.messages(fake.channel2)) == 1

        reveal = await fake.slash(fake.admin, "daily reveal")
        said = await reveal.wait_followup()
        assert "2 of 3" in said.text()
        answer = await fake.wait_for_message(
            lambda m: m.message_reference is not None, WAIT, channel=fake.channel2
        )
        assert int(answer.message_reference["message_id"]) == message.id  # type: ignore[index]
        assert "2 of 3 answered correctly" in answer.text()
        assert "— **2**" in answer.text() and "— **1**" in answer.text()
        # The reveal offers the question's demo (where it has one).
        question = bot.services.bank.question(post.question_id)
        offered = [c for c in answer.custom_ids() if c.startswith("demo:")]
        assert offered == ([f"demo:{question.demo}"] if question.demo else [])
        assert (
            await streaks_store.member_streak(bot.services.db, fake.guild.id, bob.id)
        ).current == 1
        assert (
            await streaks_store.member_streak(bot.services.db, fake.guild.id, citra.id)
        ).current == 0

        # Closed: later reactions are ignored, and there is nothing left to reveal.
        await fake.react(message, fake.admin, ANSWER_EMOJI[right])
        await asyncio.wait_for(jobs.reactions.wait_seen(n + 7), WAIT)
        assert fake.admin.id not in await answers(bot, post.id)  # type: ignore[arg-type]
        nothing = await fake.slash(fake.admin, "daily reveal")
        assert "no open daily question" in (await nothing.wait_followup()).text()

        stats = await fake.slash(fake.admin, "daily stats")
        assert "3 answered, 2 right (67%)" in (await stats.wait_followup()).text()


async def test_restart_catches_up_and_counts_offline_reactions_once(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, dora = fake.users_list
    zone, time = passed_today()
    async with start_bot() as bot:
        await started(bot)
        await setup_daily(fake, zone, time)

    # Restarted after today's post time: the missed post is made once.
    async with start_bot() as bot:
        jobs = await started(bot)
        message = await fake.wait_for_message(is_daily_post, WAIT, channel=fake.channel2)
        post = await the_post(bot, message.id)
        n, right, wrong = choices_of(bot, post)
        await bot_reactions_done(fake, message, n)
        await fake.react(message, bob, ANSWER_EMOJI[right])
        await asyncio.wait_for(jobs.reactions.wait_seen(n + 1), WAIT)

    # While the bot is down.
    fake.react_silently(message, citra, ANSWER_EMOJI[right])
    fake.react_silently(message, bob, ANSWER_EMOJI[wrong])  # bob answered already
    fake.react_silently(message, dora, ANSWER_EMOJI[right])
    fake.react_silently(message, dora, ANSWER_EMOJI[wrong])  # which came first? not counted

    for attempt in range(2):  # and once more: recovery is idempotent, catch-up happens once
        async with start_bot() as bot:
            await started(bot)
            assert await answers(bot, post.id) == {bob.id: right, citra.id: right}  # type: ignore[arg-type]
            assert len([m for m in fake.messages(fake.channel2) if is_daily_post(m)]) == 1
            if attempt == 0:
                continue
            # The reveal says who was left out and why (dora; bob's live answer counts).
            res = await fake.slash(fake.admin, "daily reveal")
            await res.wait_followup()
            reveal = await fake.wait_for_message(
                lambda m: m.message_reference is not None, WAIT, channel=fake.channel2
            )
            assert "2 of 2 answered correctly" in reveal.text()
            assert "Not counted: 1 member(s) who reacted with more than one letter" in (
                reveal.text()
            )


async def test_channel_deleted_disables_and_tells_the_admin(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    guild_id = fake.guild.id
    zone, time = passed_today()
    async with start_bot() as bot:
        jobs = await started(bot)
        await setup_daily(fake, zone, time)
        fake.fail("POST", rf"/channels/{fake.channel2.id}/messages$", status=404, code=10003)

        await jobs.run_post_job(guild_id)  # the scheduled job, called directly

        config = await configs_store.get(bot.services.daily.db, guild_id)
        assert config is not None and not config.enabled
        assert config.disabled_reason == "not_found"
        assert bot.services.scheduler.get_job(guild_job_id(guild_id)) is None
        assert (
            await posts_store.for_day(
                bot.services.daily.db, guild_id, datetime.now(ZoneInfo(zone)).date()
            )
            is None
        )

        told = await fake.slash(fake.admin, "daily status")
        assert "no longer exists" in told.text and "/daily setup" in told.text
        again = await fake.slash(fake.admin, "daily status")
        assert "no longer exists" not in again.text  # told once


async def test_forbidden_on_daily_now_is_explained(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    zone, time = passed_today()
    async with start_bot() as bot:
        await started(bot)
        await setup_daily(fake, zone, time)
        fake.fail("POST", rf"/channels/{fake.channel2.id}/messages$", status=403, code=50013)
        res = await fake.slash(fake.admin, "daily now")
        said = await res.wait_followup()
        assert "missing permissions" in said.text()
        config = await configs_store.get(bot.services.daily.db, fake.guild.id)
        assert config is not None and config.disabled_reason == "forbidden"
        assert config.admin_notified


async def test_rate_limited_post_is_retried(discord_fake: FakeDiscord, start_bot: StartBot) -> None:
    fake = discord_fake
    zone, time = passed_today()
    async with start_bot() as bot:
        await started(bot)
        await setup_daily(fake, zone, time)
        limited = fake.rate_limit("POST", rf"/channels/{fake.channel2.id}/messages$", times=1)
        res = await fake.slash(fake.admin, "daily now")
        await res.wait_followup(lambda m: "✅" in m.text())
        assert limited.hits == 1
        posts = [m for m in fake.messages(fake.channel2) if is_daily_post(m)]
        assert len(posts) == 1


async def test_a_503_on_the_reveal_keeps_the_announcement_until_it_is_out(
    discord_fake: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """discord.py does not retry a 503: the reveal is owed in the database; an admin who
    asks again gets it tried at once and told the outcome; sent once, also across a
    restart that does not know it was sent."""
    fake = discord_fake
    bob = fake.users_list[0]
    monkeypatch.setattr("bot.outbox.rules.FIRST_RETRY_S", 3600)  # no retry inside the first run

    def reveals() -> list[FakeMessage]:
        return [m for m in fake.messages(fake.channel2) if m.message_reference is not None]

    async with start_bot() as bot:
        jobs, message, post, (n, right, _) = await post_todays_question(fake, bot)
        await fake.react(message, bob, ANSWER_EMOJI[right])
        await asyncio.wait_for(jobs.reactions.wait_seen(n + 1), WAIT)
        fake.fail("POST", rf"/channels/{fake.channel2.id}/messages$", status=503, code=0, times=2)

        res = await fake.slash(fake.admin, "daily reveal")
        said = (await res.wait_followup()).text()
        assert "1 of 1" in said and "retried automatically" in said
        status = await fake.slash(fake.admin, "daily status")
        assert "Still to be sent" in status.text and "reveal" in status.text
        assert "503" in status.text and "1 failed tries" in status.text
        # Asked again while it is owed: tried now (Discord answers 503 once more)...
        again = await fake.slash(fake.admin, "daily reveal")
        said = (await again.wait_followup()).text()
        assert "still owed: tried again just now" in said and "2 failed tries" in said
        assert reveals() == []
        # ...and once more: sent now, and said so with its link.
        third = await fake.slash(fake.admin, "daily reveal")
        said = (await third.wait_followup()).text()
        (reveal,) = reveals()
        assert "sent now" in said and str(reveal.id) in said
        status = await fake.slash(fake.admin, "daily status")
        assert "Still to be sent" not in status.text
        nothing = await fake.slash(fake.admin, "daily reveal")
        assert "no open daily question" in (await nothing.wait_followup()).text()
        # Pretend a process died sending it, before recording it, and its lease ran out:
        # a restart must find the reply in the channel instead of sending a second one.
        async with bot.services.db.session() as session:
            await session.exec(
                update(Outbox)
                .where(col(Outbox.post_id) == post.id)
                .values(
                    delivered_at=None,
                    message_id=None,
                    due_at=utcnow(),
                    claimed_by="a-dead-process",
                    claimed_at=utcnow() - timedelta(minutes=3),
                    claimed_until=utcnow() - timedelta(minutes=1),
                )
            )
            await session.commit()
        status = await fake.slash(fake.admin, "daily status")
        assert "a try was cut off" in status.text and "looks in the channel" in status.text
    fake.nonce_window_s = 0  # later than Discord remembers the nonce

    for _ in range(2):  # restarted (twice): found, not sent again
        async with start_bot() as bot:
            await started(bot)
            (reveal,) = reveals()
            assert int(reveal.message_reference["message_id"]) == message.id  # type: ignore[index]
            assert "1 of 1 answered correctly" in reveal.text()
            status = await fake.slash(fake.admin, "daily status")
            assert "Still to be sent" not in status.text
