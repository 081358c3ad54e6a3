"""The quiztutor bot itself, run against the Discord stand-in (end-to-end fixtures).

`start_bot()` builds a real `QuizTutorBot` on the test's own database (`db_url`: a
SQLite file in the test's tmp dir, or a PostgreSQL database), connects it to `discord_fake`, and registers its commands in the fake guild the
way `quiztutor sync --guild ID` does. Call it again after a bot closed to simulate a
restart: the database file and the stand-in's state (messages, reactions) persist.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.discord.client import QuizTutorBot
from testkit.bots import make_settings
from testkit.standin.server import FakeDiscord

StartBot = Callable[..., contextlib.AbstractAsyncContextManager[QuizTutorBot]]


@pytest.fixture
def start_bot(
    discord_fake: FakeDiscord,
    run_bot: Callable[..., Any],
    tmp_path: Path,
    db_url: str,
) -> StartBot:

    @contextlib.asynccontextmanager
    async def start(*, sync: bool = True, **overrides: Any) -> AsyncIterator[QuizTutorBot]:
        overrides.setdefault("database_url", db_url)
        # These tests restart the bot within seconds: no IDENTIFY spacing, neither
        # Discord's (`run_bot`) nor the bot's (tests/discord/test_identify.py covers both).
        overrides.setdefault("identify_spacing_s", 0)
        bot = QuizTutorBot(make_settings(tmp_path, **overrides))
        async with run_bot(bot) as running:
            if sync:
                guild = discord.Object(id=discord_fake.guild.id)
                running.tree.copy_global_to(guild=guild)
                await running.tree.sync(guild=guild)
            yield running

    return start
