"""Pytest fixtures for the Discord stand-in (registered in the root ``conftest.py``).

* ``discord_fake``: a started :class:`FakeDiscord` with discord.py redirected to it; at
  teardown the test fails if the bot called a route the stand-in does not know.
* ``run_bot``: ``async with run_bot(bot) as bot:`` runs any ``discord.Client`` against it.

The stand-in itself is a library, `testkit.standin`; these fixtures are a thin layer on it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import discord
import pytest

from testkit.standin.client import run_client, serving_stand_in
from testkit.standin.server import FakeDiscord

__all__ = ["discord_fake", "run_bot"]


@pytest.fixture
async def discord_fake() -> AsyncIterator[FakeDiscord]:
    """A running stand-in; the test fails if the bot called a route it does not serve or
    sent a modal that breaks Discord's limits."""
    async with serving_stand_in() as fake:
        yield fake
    unknown = [f"{c.method} {c.path}" for c in fake.unknown_routes]
    if unknown:
        pytest.fail(f"the bot called routes the Discord stand-in does not serve: {unknown}")
    if fake.invalid_modals:
        pytest.fail(f"the bot sent modals Discord refuses: {fake.invalid_modals}")


@pytest.fixture
def run_bot(discord_fake: FakeDiscord) -> Callable[..., Any]:
    """``async with run_bot(bot, **kw) as bot:`` -- :func:`run_client` bound to the fake."""
    # In-process clients restart within seconds: no IDENTIFY window (Discord's limit is
    # tested with bot processes, tests/discord/test_identify.py).
    discord_fake.identify_window_s = 0

    def runner(client: discord.Client, **kwargs: Any) -> Any:
        return run_client(client, discord_fake, **kwargs)

    return runner
