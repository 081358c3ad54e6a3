"""The bot's settings for tests and benchmarks: a database of their own, no torch worker,
no cooldowns, a fake token, and never a developer's .env."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.common.settings import Settings
from testkit.standin.server import TOKEN


def make_settings(tmp_path: Path, **overrides: Any) -> Settings:
    """Test settings; pass `database_url=` (the `db_url` fixture) for the test's database."""
    values: dict[str, Any] = {
        "database_url": f"sqlite+aiosqlite:///{tmp_path / 'quiztutor.db'}",
        "demo_worker": False,
        "quiz_cooldown_s": 0,
        "demo_cooldown_s": 0,
        "upload_cooldown_s": 0,
        "me_cooldown_s": 0,
        "live_start_limit_s": 0,
        "discord_token": TOKEN,
    }
    values.update(overrides)
    # _env_file=None: a developer's .env must not leak into tests.
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]
