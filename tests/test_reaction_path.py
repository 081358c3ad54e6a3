"""Answer reactions take discord.py's own parser and `raw_reaction_add` event.

The daily cog grades a reaction on a post it holds open synchronously, from the bot's
`dispatch` (no task per reaction), and queues it for the writer; every
`on_raw_reaction_add` listener still sees the event (the removed parser hook used to
swallow it), and a failure in the fast path costs no answer.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.discord.client import QuizTutorBot
from bot.discord.internals import parse_reactions_without_members
from testkit.bots import make_settings
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

        jobs.reactions.grade_and_queue = broken  # type: ignore[method-assign]
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


def _reaction_payload(guild_id: int) -> dict[str, Any]:
    """A MESSAGE_REACTION_ADD as Discord sends it in a server (with `member`)."""
    user = {"id": "4001", "username": "bob", "discriminator": "0", "avatar": None}
    return {
        "user_id": "4001",
        "channel_id": "3001",
        "message_id": "5001",
        "guild_id": str(guild_id),
        "message_author_id": "6001",
        "emoji": {"id": None, "name": ANSWER_EMOJI[1]},
        "burst": False,
        "burst_colors": [],
        "type": 0,
        "member": {"user": user, "roles": [], "joined_at": "2026-01-01T00:00:00+00:00",
                   "deaf": False, "mute": False, "flags": 0},
    }  # fmt: skip


def test_reactions_are_parsed_as_discord_py_does_less_the_member(tmp_path: Path) -> None:
    """`parse_reactions_without_members` gives listeners discord.py's own event, field
    for field, with `member` None (the Member discord.py builds per reaction is 15% of
    the bot's CPU per reaction at 500/s). Fails when a discord.py release changes its
    parser's event."""

    bot = QuizTutorBot(make_settings(tmp_path))
    state: Any = bot._connection
    guild = discord.Object(id=7001)
    state._get_guild = lambda guild_id: guild if guild_id == guild.id else None
    events: list[discord.RawReactionActionEvent] = []
    state.dispatch = lambda name, event: (
        events.append(event) if name == "raw_reaction_add" else None
    )
    payload = _reaction_payload(guild.id)

    state.parsers["MESSAGE_REACTION_ADD"](payload)  # the bot's (installed in __init__)
    type(state).parse_message_reaction_add(state, payload)  # discord.py's own, as installed
    ours, theirs = events
    fields = [f for f in discord.RawReactionActionEvent.__slots__ if f != "member"]
    assert {f: getattr(ours, f) for f in fields} == {f: getattr(theirs, f) for f in fields}
    assert ours.member is None and theirs.member is not None
    assert (ours.user_id, ours.message_id, ours.emoji.name) == (4001, 5001, ANSWER_EMOJI[1])

    # Not installed where discord.py's parser does more: a message cache, members intent.
    cached = discord.Client(intents=discord.Intents.none(), max_messages=100)
    members = discord.Client(intents=discord.Intents(guilds=True, members=True), max_messages=None)
    assert not parse_reactions_without_members(cached)
    assert not parse_reactions_without_members(members)
