"""The first moments, through the Discord stand-in with the real bot: of a process (the
gateway is up, discord.py's on_ready not yet: interactions and reactions already flow)
and of a post (its message exists, its message id is not stored yet)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from bot.daily import posts_store
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.daily.types import BUTTONS
from bot.db.tables.daily import MemberStats
from bot.discord.client import QuizTutorBot
from testkit.bots import make_settings
from testkit.standin.server import FakeDiscord
from testkit.times import passed_today
from tests.support.bot import StartBot
from tests.support.daily import (
    WAIT,
    answer_button,
    answers,
    bot_reactions_done,
    choices_of,
    is_daily_post,
    jobs_of,
    setup_daily,
    started,
    the_post,
)

# discord.py dispatches on_ready this long after the last GUILD_CREATE (2 s by default;
# the test kit's 0.05 s elsewhere): the window this test works in.
LATE_READY_S = 8.0


async def test_the_bots_own_reactions_are_never_an_answer_before_on_ready(
    discord_fake: FakeDiscord,
    start_bot: StartBot,
    run_bot: Any,
    tmp_path: Path,
    db_url: str,
) -> None:
    fake = discord_fake
    bob, citra, dora = fake.users_list
    async with start_bot() as bot:  # registers the commands; the daily question set up
        await started(bot)
        zone, time = passed_today()
        await setup_daily(fake, zone, time)

    # A restart: connected (READY and GUILD_CREATE handled), on_ready still seconds away.
    identified = fake.gateway.identifies
    bot = QuizTutorBot(make_settings(tmp_path, database_url=db_url, identify_spacing_s=0))
    async with contextlib.AsyncExitStack() as stack:
        entering = asyncio.create_task(
            stack.enter_async_context(
                run_bot(bot, guild_ready_timeout=LATE_READY_S, timeout=LATE_READY_S + WAIT)
            )
        )
        await fake.wait_until(lambda: fake.gateway.identifies > identified, WAIT, "IDENTIFY")
        now = await fake.slash(fake.admin, "daily now")
        message = await fake.wait_for_message(is_daily_post, WAIT, channel=fake.channel2)
        assert str(message.id) in (await now.wait_followup(timeout=WAIT)).text()
        post = await the_post(bot, message.id)
        n, right, wrong = choices_of(bot, post)
        await bot_reactions_done(fake, message, n)
        await fake.react(message, bob, ANSWER_EMOJI[right])
        await fake.react(message, citra, ANSWER_EMOJI[wrong])
        await fake.react(message, dora, ANSWER_EMOJI[wrong])
        await asyncio.wait_for(jobs_of(bot).reactions.wait_seen(n + 3), WAIT)
        assert not bot.is_ready()  # all of it before on_ready
        await asyncio.wait_for(entering, LATE_READY_S + WAIT)

        await started(bot)  # the start-up reads the reactions back: the bot's still ignored
        reveal = await fake.slash(fake.admin, "daily reveal")
        assert "1 of 3" in (await reveal.wait_followup(timeout=WAIT)).text()
        assert post.id is not None
        assert await answers(bot, post.id) == {bob.id: right, citra.id: wrong, dora.id: wrong}
        async with bot.services.db.session() as session:
            rows = (await session.exec(select(MemberStats))).all()
        assert sorted(r.user_id for r in rows) == sorted((bob.id, citra.id, dora.id))


async def test_a_press_the_moment_the_post_appears_counts(
    discord_fake: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    # The database is slow to record the new post's message id: held until bob's press
    # (made on the message as soon as it is in the channel) has been answered.
    recorded = posts_store.set_message
    pressed = asyncio.Event()

    async def slow_set_message(*args: Any, **kwargs: Any) -> Any:
        await pressed.wait()
        return await recorded(*args, **kwargs)

    monkeypatch.setattr(posts_store, "set_message", slow_set_message)
    async with start_bot() as bot:
        jobs = await started(bot)
        zone, time = passed_today()
        await setup_daily(fake, zone, time, answers=BUTTONS)
        posting = asyncio.create_task(jobs.run_post_job(fake.guild.id))
        message = await fake.wait_for_message(is_daily_post, WAIT, channel=fake.channel2)
        [post] = await posts_store.unsettled(bot.services.db, fake.guild.id)
        assert post.id is not None
        assert post.message_id is None  # the window: the message exists, its id not stored
        _, right, _ = choices_of(bot, post)
        try:
            reply = await fake.click(message, answer_button(post, right), bob, timeout=WAIT)
        finally:
            pressed.set()
        assert reply.ephemeral and reply.content.startswith("Your answer: **"), reply.content
        await asyncio.wait_for(posting, WAIT)
        assert (await the_post(bot, message.id)).id == post.id

        reveal = await fake.slash(fake.admin, "daily reveal")
        assert "1 of 1" in (await reveal.wait_followup(timeout=WAIT)).text()
        assert await answers(bot, post.id) == {bob.id: right}
