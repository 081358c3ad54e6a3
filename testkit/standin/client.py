"""Running a discord.py client against the stand-in (used by the tests and by bench/)."""

# The driver API takes per-call `timeout=` arguments on purpose (tests pass short ones).
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import discord

from bot.discord.internals import redirect_discord
from testkit.standin.server import FakeDiscord

__all__ = ["run_client", "serving_stand_in"]


class _ErrorCollector(logging.Handler):
    """Keeps discord.py's "Ignoring exception in ..." logs so timeouts can show the cause."""

    def __init__(self, sink: list[str]) -> None:
        super().__init__(logging.ERROR)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += f": {record.exc_info[1]!r}"
        self.sink.append(text)


def _identify_when_allowed(fake: FakeDiscord) -> Any:
    async def hook(shard_id: int | None, *, initial: bool = False) -> None:
        # Only as long as the stand-in's IDENTIFY window requires, not discord.py's 5 s.
        await asyncio.sleep(fake.gateway.identify_wait_s(shard_id or 0))

    return hook


@contextlib.asynccontextmanager
async def run_client(
    client: discord.Client,
    fake: FakeDiscord,
    *,
    timeout: float = 5.0,
    guild_ready_timeout: float = 0.05,
) -> AsyncIterator[discord.Client]:
    """Log ``client`` in to ``fake``, connect, wait for ``on_ready``; close cleanly on exit.

    discord.py dispatches ``on_ready`` only after ``guild_ready_timeout`` (2 s by default)
    passed without a GUILD_CREATE; the stand-in sends all GUILD_CREATEs right after READY,
    so a short value is safe and keeps each test fast.
    """
    client._connection.guild_ready_timeout = guild_ready_timeout
    if type(client).before_identify_hook is discord.Client.before_identify_hook:
        # The default hook sleeps 5 s before every re-IDENTIFY (Discord's identify limit);
        # waiting as long as the stand-in's window still runs is enough.
        client.before_identify_hook = _identify_when_allowed(fake)  # type: ignore[method-assign]
    collector = _ErrorCollector(fake.bot_errors)
    discord_logger = logging.getLogger("discord")
    discord_logger.addHandler(collector)
    try:
        await asyncio.wait_for(client.login(fake.token), timeout)
        connect = asyncio.create_task(client.connect(reconnect=True), name="discord-connect")
        ready = asyncio.create_task(client.wait_until_ready())
        done, _ = await asyncio.wait(
            {connect, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            if connect in done:
                connect.result()  # raises the connection error
            await client.close()
            connect.cancel()
            raise TimeoutError(f"bot not ready within {timeout}s; bot errors: {fake.bot_errors}")
        try:
            yield client
        finally:
            await asyncio.wait_for(client.close(), timeout)
            await asyncio.wait_for(connect, timeout)
    finally:
        discord_logger.removeHandler(collector)


@contextlib.asynccontextmanager
async def serving_stand_in() -> AsyncIterator[FakeDiscord]:
    """A started stand-in on 127.0.0.1 with discord.py (REST, gateway, CDN) pointed at it."""
    fake = FakeDiscord()
    await fake.start()
    restore = redirect_discord(fake.api_base, fake.gateway_url, cdn_base=fake.url)
    try:
        yield fake
    finally:
        restore()
        await fake.stop()
