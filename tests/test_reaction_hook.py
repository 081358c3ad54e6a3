"""The gateway fast path for answer reactions (bot.discord_internals.ReactionParserHook).

It runs inside discord.py's websocket reader, where an exception would end the shard:
it must be installed on the pinned discord.py, removable, and never raise.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.daily import ANSWER_EMOJI
from bot.discord_internals import EVENT, ReactionParserHook
from tests.discord_fake.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.daily import WAIT, answers, post_todays_question


async def test_hook_is_installed_on_the_pinned_discord_py_and_removed_on_unload(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    async with start_bot() as bot:
        hook = bot.get_cog("DailyCog").reaction_hook  # type: ignore[union-attr]
        assert isinstance(hook, ReactionParserHook) and hook.installed
        parsers = bot._connection.parsers
        original = hook.full_parser
        assert original is not None and "reaction_add" in original.__name__
        await bot.unload_extension("cogs.daily")
        assert parsers[EVENT] is original
        assert not hook.installed


async def test_an_exception_in_the_fast_path_is_logged_and_discord_py_parses_the_event(
    discord_fake: FakeDiscord, start_bot: StartBot, caplog: pytest.LogCaptureFixture
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot() as bot:
        jobs, message, post, (n, right, wrong) = await post_todays_question(fake, bot)
        await asyncio.wait_for(jobs.wait_reactions_seen(n), WAIT)
        real = jobs.grade_and_queue
        failures = 0

        def broken(*args: Any) -> bool:
            nonlocal failures
            failures += 1
            raise RuntimeError("injected failure in the fast path")

        jobs.grade_and_queue = broken  # type: ignore[method-assign]
        await fake.react(message, bob, ANSWER_EMOJI[right])
        # discord.py's own parser took the event: the normal listener graded it.
        await asyncio.wait_for(jobs.wait_reactions_seen(n + 1), WAIT)
        assert failures == 1
        assert "injected failure in the fast path" in caplog.text
        jobs.grade_and_queue = real  # type: ignore[method-assign]

        # The shard is still connected and the fast path serves the next reaction.
        await fake.react(message, citra, ANSWER_EMOJI[wrong])
        await asyncio.wait_for(jobs.wait_reactions_seen(n + 2), WAIT)
        assert await answers(bot, post.id) == {bob.id: right, citra.id: wrong}  # type: ignore[arg-type]
        assert not bot.is_closed()
