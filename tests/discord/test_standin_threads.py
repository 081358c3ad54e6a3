"""The stand-in's threads and per-route rate limits, driven through an unmodified
discord.py client: what Discord answers, its error codes, its gateway events and its
429s with headers (which discord.py waits out)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import discord

from testkit.standin import FakeDiscord
from testkit.standin.models import (
    CREATE_PUBLIC_THREADS,
    SEND_MESSAGES_IN_THREADS,
)

RunBot = Callable[..., Any]


class Client(discord.Client):
    """Guilds intent only (as quiztutor); records the thread events it hears."""

    def __init__(self) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(intents=intents)
        self.created: asyncio.Queue[discord.Thread] = asyncio.Queue()
        self.deleted: asyncio.Queue[int] = asyncio.Queue()

    async def on_thread_create(self, thread: discord.Thread) -> None:
        self.created.put_nowait(thread)

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        self.deleted.put_nowait(payload.thread_id)


def text_channel(client: discord.Client, channel_id: int) -> discord.TextChannel:
    channel = client.get_channel(channel_id)
    assert isinstance(channel, discord.TextChannel)
    return channel


async def test_a_public_thread_is_a_channel_with_its_own_messages(
    discord_fake: FakeDiscord, run_bot: RunBot
) -> None:
    fake = discord_fake
    async with run_bot(Client()) as client:
        channel = text_channel(client, fake.channel.id)
        thread = await channel.create_thread(
            name="Live quiz", type=discord.ChannelType.public_thread, auto_archive_duration=60
        )
        assert isinstance(thread, discord.Thread) and thread.parent_id == channel.id
        heard = await asyncio.wait_for(client.created.get(), 5)
        assert heard.id == thread.id and client.get_channel(thread.id) is not None
        sent = await thread.send("in the thread")
        stored = fake.message(sent.id)
        assert stored.channel_id == thread.id and fake.messages(fake.channel) == []
        await sent.edit(content="edited")
        assert fake.message(sent.id).content == "edited"

        starter = await channel.send("start here")
        on_message = await starter.create_thread(name="From a message")
        assert on_message.id == starter.id  # Discord gives it the message's id
        try:
            await starter.create_thread(name="Twice")
        except discord.HTTPException as exc:
            assert exc.status == 400 and exc.code == 160004
        else:
            raise AssertionError("a second thread on one message was accepted")
        private = await client.http.start_thread_without_message(
            channel.id,
            name="no type",
            auto_archive_duration=60,
            type=None,  # type: ignore[arg-type]
        )
        assert private["type"] == 12  # Discord's default without a type
        assert [t.id for t in fake.threads_of(fake.channel)] == [
            thread.id,
            starter.id,
            int(private["id"]),
        ]
        try:
            await channel.create_thread(name="x" * 101, type=discord.ChannelType.public_thread)
        except discord.HTTPException as exc:
            assert exc.status == 400 and exc.code == 50035
        else:
            raise AssertionError("a 101-character name was accepted")


async def test_threads_need_their_permissions(discord_fake: FakeDiscord, run_bot: RunBot) -> None:
    fake = discord_fake
    role = fake.bot_role(fake.guild)
    async with run_bot(Client()) as client:
        channel = text_channel(client, fake.channel.id)
        thread = await channel.create_thread(name="t", type=discord.ChannelType.public_thread)
        fake.channel.overwrites[role.id] = (0, CREATE_PUBLIC_THREADS | SEND_MESSAGES_IN_THREADS, 0)
        for attempt in (
            channel.create_thread(name="u", type=discord.ChannelType.public_thread),
            thread.send("hello"),
        ):
            try:
                await attempt
            except discord.Forbidden as exc:
                assert exc.code == 50013
            else:
                raise AssertionError("Discord would refuse this")
        await channel.send("the channel itself is fine")
        # An interaction in the thread carries the bot's permissions there.
        assert not fake.guild.permissions_in(fake.channels[thread.id], fake.bot_user.id) & (
            SEND_MESSAGES_IN_THREADS
        )


async def test_a_deleted_thread_is_gone_with_its_messages(
    discord_fake: FakeDiscord, run_bot: RunBot
) -> None:
    fake = discord_fake
    async with run_bot(Client()) as client:
        channel = text_channel(client, fake.channel.id)
        thread = await channel.create_thread(name="t", type=discord.ChannelType.public_thread)
        sent = await thread.send("soon gone")
        await fake.delete_thread(fake.channels[thread.id])
        assert await asyncio.wait_for(client.deleted.get(), 5) == thread.id
        for attempt in (thread.send("hello?"), sent.edit(content="x")):
            try:
                await attempt
            except discord.NotFound as exc:
                assert exc.code in (10003, 10008)
            else:
                raise AssertionError("a deleted thread still takes messages")


async def test_message_edits_are_rate_limited_per_channel_and_discord_py_waits(
    discord_fake: FakeDiscord, run_bot: RunBot
) -> None:
    fake = discord_fake
    limit = fake.limit_message_edits(2, 1.0)
    async with run_bot(Client()) as client:
        channel = text_channel(client, fake.channel.id)
        message = await channel.send("count: 0")
        started = time.monotonic()
        for count in range(1, 6):
            await message.edit(content=f"count: {count}")
        elapsed = time.monotonic() - started
        stored = fake.message(message.id)
        assert stored.content == "count: 5" and stored.edits == 5  # none lost
        # Two per second: five edits take at least two seconds, whether discord.py waited
        # on the headers (X-RateLimit-Remaining: 0) or on a 429's retry_after.
        assert elapsed >= 1.9
        times = stored.edit_times
        assert all(times[i + 2] - times[i] >= 0.99 for i in range(len(times) - 2))
        calls = fake.calls_to("PATCH", rf"/channels/{fake.channel.id}/messages/\d+")
        assert all(c.status in (200, 429) for c in calls)
        assert limit.refused == len([c for c in calls if c.status == 429])
