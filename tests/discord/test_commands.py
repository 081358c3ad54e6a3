"""The registered slash commands: every name and description localized, `quiztutor sync`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bot.discord.client import QuizTutorBot
from testkit.bots import make_settings
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot

NAME = re.compile(r"^[-_\w]{1,32}$")


def walk(options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for option in options:
        found.append(option)
        found.extend(walk(option.get("options") or []))
        found.extend(
            {"name": c["name"], "name_localizations": c.get("name_localizations"), "choice": True}
            for c in option.get("choices") or []
        )
    return found


async def test_every_command_option_and_choice_has_an_indonesian_name(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    async with start_bot():
        commands = discord_fake.registered_commands(discord_fake.guild.id)
    assert {c["name"] for c in commands} >= {
        "quiz",
        "daily",
        "streak",
        "leaderboard",
        "demo",
        "quizadmin",
    }
    for item in walk(commands):
        localized = (item.get("name_localizations") or {}).get("id")
        assert localized, f"no Indonesian name for {item['name']!r}"
        if not item.get("choice"):
            assert NAME.match(localized) and localized == localized.lower(), localized
            assert (item.get("description_localizations") or {}).get("id"), (
                f"no Indonesian description for {item['name']!r}"
            )
    admin_groups = {c["name"]: c.get("default_member_permissions") for c in commands}
    manage_guild = 1 << 5
    assert (
        int(admin_groups["daily"]) == manage_guild
        and int(admin_groups["quizadmin"]) == manage_guild
    )
    assert admin_groups["quiz"] is None


async def test_sync_command_registers_in_one_guild(
    discord_fake: FakeDiscord, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.discord.runner import register_commands as _sync

    settings = make_settings(tmp_path)
    assert await _sync(settings, discord_fake.token, discord_fake.guild.id) == 0
    assert "Registered" in capsys.readouterr().out
    assert any(c["name"] == "quiz" for c in discord_fake.registered_commands(discord_fake.guild.id))
    assert await _sync(settings, discord_fake.token, None) == 0
    assert any(c["name"] == "quiz" for c in discord_fake.registered_commands(None))
    assert not (tmp_path / "quiztutor.db").exists()  # syncing touches no database


def test_run_without_token_explains_how_to_get_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from bot.cli.main import main

    monkeypatch.chdir(tmp_path)  # no .env here
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert "DISCORD_TOKEN is not set" in err and "quiztutor play" in err


def test_bot_uses_no_privileged_intents(tmp_path: Path) -> None:
    bot = QuizTutorBot(make_settings(tmp_path))
    assert not bot.intents.message_content and not bot.intents.members and not bot.intents.presences
    assert bot.intents.guilds and bot.intents.guild_reactions


def test_the_bot_process_never_imports_torch_or_the_heavy_libraries() -> None:
    """Demos run in a worker process, charts in the chart process and migrations only
    when one is due: importing every bot module loads none of torch, numpy, matplotlib,
    pandas or alembic (together over 100 MiB of the bot's memory)."""
    import subprocess
    import sys

    code = (
        "import sys, bot.discord.client, bot.cli.main, bot.demos.runner, cogs.quiz, cogs.demo, cogs.daily, "
        "cogs.stats, cogs.admin, cogs.live, experiments, experiments.catalog; "
        "heavy = [m for m in ('torch', 'numpy', 'matplotlib', 'pandas', 'alembic') if m in sys.modules]; "
        "assert not heavy, f'imported: {heavy}'"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr


def test_demo_command_runs_without_discord(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli.main import main

    assert main(["demo", "--help"]) == 0
    assert "--micro-batches" in capsys.readouterr().out
    assert main(["demo", "accumulation", "--micro-batches", "99"]) == 2
    assert "micro_batches=99 is above the maximum 16" in capsys.readouterr().err
