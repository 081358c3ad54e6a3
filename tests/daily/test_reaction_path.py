"""Answer reactions take discord.py's own parser and `raw_reaction_add` event.

The daily cog grades a reaction on a post it holds open synchronously, from the bot's
`dispatch` (no task per reaction), and queues it for the writer; every
`on_raw_reaction_add` listener still sees the event (the removed parser hook used to
swallow it), and a failure in the fast path costs no answer.
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest

from bot.daily.reaction_rules import ANSWER_EMOJI
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.daily import WAIT, answers, post_todays_question


async def test_answer_reactions_reach_other_listeners_and_are_graded(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot() as bot:
        jobs, message, post, (n, right, wrong) = await post_todays_question(fake, bot)
        await asyncio.wait_for(jobs.reactions.wait_seen(n), WAIT)
        seen: list[tuple[int, str]] = []
        both = asyncio.Event()

        async def other_listener(payload: discord.RawReactionActionEvent) -> None:
            seen.append((payload.user_id, str(payload.emoji)))
            if len(seen) == 2:
                both.set()

        bot.add_listener(other_listener, "on_raw_reaction_add")
        await fake.react(message, bob, ANSWER_EMOJI[right])
        await fake.react(message, citra, ANSWER_EMOJI[wrong])
        await asyncio.wait_for(jobs.reactions.wait_seen(n + 2), WAIT)
        await asyncio.wait_for(both.wait(), WAIT)
        assert seen == [(bob.id, ANSWER_EMOJI[right]), (citra.id, ANSWER_EMOJI[wrong])]
        assert await answers(bot, post.id) == {bob.id: right, citra.id: wrong}  # type: ignore[arg-type]


async def test_an_exception_in_the_fast_path_is_logged_and_the_answer_still_counts(
    discord_fake: FakeDiscord, start_bot: StartBot, caplog: pytest.LogCaptureFixture
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot() as bot:
        jobs, message, post, (n, right, wrong) = await post_todays_question(fake, bot)
        await asyncio.wait_for(jobs.reactions.wait_seen(n), WAIT)
        real = jobs.reactions.grade_and_queue
        failures = 0

        def broken(*args: Any) -> bool:
            nonlocal failures
            failures += 1
            raise RuntimeError("injected failure in the fast path")

        jobs.reactions.grade_and_queue = broken  # type: ignore[method-assign, assignment]
        await fake.react(message, bob, ANSWER_EMOJI[right])
        # The awaited path (`on_reaction`) graded it.
        await asyncio.wait_for(jobs.reactions.wait_seen(n + 1), WAIT)
        assert failures == 1
        assert "injected failure in the fast path" in caplog.text
        jobs.reactions.grade_and_queue = real  # type: ignore[method-assign]

        # The shard is still connected and the fast path serves the next reaction.
        await fake.react(message, citra, ANSWER_EMOJI[wrong])
        await asyncio.wait_for(jobs.reactions.wait_seen(n + 2), WAIT)
        assert await answers(bot, post.id) == {bob.id: right, citra.id: wrong}  # type: ignore[arg-type]
        assert not bot.is_closed()
