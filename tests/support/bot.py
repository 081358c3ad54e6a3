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

from bot.app import QuizTutorBot
from bot.settings import Settings
from tests.discord_fake.server import FakeDiscord

StartBot = Callable[..., contextlib.AbstractAsyncContextManager[QuizTutorBot]]


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    """Test settings; pass `database_url=` (the `db_url` fixture) for the test's database."""
    values: dict[str, Any] = {
        "database_url": f"sqlite+aiosqlite:///{tmp_path / 'quiztutor.db'}",
        "demo_worker": False,
        "quiz_cooldown_s": 0,
        "demo_cooldown_s": 0,
        "discord_token": "fake-token",
    }
    values.update(overrides)
    # _env_file=None: a developer's .env must not leak into tests.
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@pytest.fixture
def start_bot(
    discord_fake: FakeDiscord, run_bot: Callable[..., Any], tmp_path: Path, db_url: str
) -> StartBot:
    @contextlib.asynccontextmanager
    async def start(*, sync: bool = True, **overrides: Any) -> AsyncIterator[QuizTutorBot]:
        overrides.setdefault("database_url", db_url)
        bot = QuizTutorBot(make_settings(tmp_path, **overrides))
        async with run_bot(bot) as running:
            if sync:
                guild = discord.Object(id=discord_fake.guild.id)
                running.tree.copy_global_to(guild=guild)
                await running.tree.sync(guild=guild)
            yield running

    return start
