"""The command line keeps the docs' promise (issue 28.8), tried as a new user would:
every refusal says what is wrong AND what to do, the same failure gets the same exit
status, and a mistake the bot can see is reported before it connects anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.discord.runner import register_commands
from testkit.bots import make_settings
from testkit.standin.server import FakeDiscord
from tests.support.cli import ROOT, assert_short, cli

pytestmark = pytest.mark.slow


def error_and_fix(stderr: str) -> tuple[str, str]:
    errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
    fixes = [line for line in stderr.splitlines() if line.startswith("fix: ")]
    assert len(errors) == 1 and len(fixes) == 1, stderr
    assert "Traceback" not in stderr, stderr
    return errors[0], fixes[0]


def test_demo_on_cuda_without_a_gpu_says_what_to_do(tmp_path: Path) -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this host has a GPU: --device cuda works here")
    result = cli(tmp_path, "demo", "formats", "--device", "cuda")
    assert result.returncode == 2
    error, fix = error_and_fix(result.stderr)
    assert "CUDA" in error and "--device cpu" in fix


def test_demo_parameter_out_of_range_says_where_the_ranges_are(tmp_path: Path) -> None:
    result = cli(tmp_path, "demo", "accumulation", "--micro-batches", "99")
    err = assert_short(result, 2, "micro_batches=99", "1-16")
    assert "fix: `quiztutor demo --list`" in err


def test_unknown_demo_says_where_the_list_is(tmp_path: Path) -> None:
    err = assert_short(cli(tmp_path, "demo", "nosuch"), 2, "unknown demo 'nosuch'")
    assert "fix: `quiztutor demo --list`" in err


def test_play_an_unknown_quiz_is_an_error_with_a_fix(tmp_path: Path) -> None:
    err = assert_short(cli(tmp_path, "play", "--quiz", "nosuch"), 2, "nosuch")
    assert "fix: " in err


def test_an_unknown_option_is_named(tmp_path: Path) -> None:
    err = assert_short(cli(tmp_path, "--bogus"), 2, "--bogus")
    assert "COMMAND" not in err.splitlines()[0]
    # No command at all: that is what is missing.
    assert_short(cli(tmp_path), 2, "a COMMAND is missing")


def test_a_missing_database_is_one_exit_status_for_stats_and_backup(tmp_path: Path) -> None:
    # host_env's DATABASE_URL names a file that does not exist yet.
    stats = cli(tmp_path, "stats", "--guild", "1")
    backup = cli(tmp_path, "backup", str(tmp_path / "copy.db"))
    assert_short(stats, 2, "no database")
    assert_short(backup, 2, "no database")


def test_run_refuses_a_malformed_token_before_connecting(tmp_path: Path) -> None:
    # A proxy address where nothing listens: had `run` tried to connect, it would say so.
    result = cli(tmp_path, "run", DISCORD_TOKEN="abc", DISCORD_API_BASE="http://127.0.0.1:9/api")
    err = assert_short(result, 2, "does not look like a bot token", "Reset Token")
    assert "cannot reach" not in err


def test_play_without_count_asks_every_question_and_the_docs_say_so(tmp_path: Path) -> None:
    result = cli(tmp_path, "play", "--quiz", "mixed-precision", "--lang", "en")  # empty stdin
    # mixed-precision: 8 written questions and 4 generated ones (templates), all asked.
    assert "12 question(s)" in result.stdout and "Question 1/12" in result.stdout, result.stdout[
        :300
    ]
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    row = next(line for line in page.splitlines() if line.startswith("| `quiztutor play"))
    assert "every question" in row


async def test_demo_options_are_bounded_by_discord(
    discord_fake: FakeDiscord, tmp_path: Path
) -> None:
    settings = make_settings(tmp_path)
    await register_commands(settings, discord_fake.token, discord_fake.guild.id)
    demo = next(
        c for c in discord_fake.registered_commands(discord_fake.guild.id) if c["name"] == "demo"
    )
    bounds = {o["name"]: (o.get("min_value"), o.get("max_value")) for o in demo["options"]}
    assert bounds["micro_batches"] == (1, 16)
    assert bounds["micro_batch_size"] == (1, 256)


def test_doctor_checks_the_database_folder_can_be_written(tmp_path: Path) -> None:
    # Root may "access" /proc for writing, yet nothing can be created there: doctor tries.
    url = "sqlite+aiosqlite:////proc/quiztutor-nowhere/q.db"
    doctor = cli(tmp_path, "doctor", DATABASE_URL=url, DISCORD_TOKEN="a.b.c")
    assert doctor.returncode == 1
    assert "✗ database: The database /proc/quiztutor-nowhere/q.db cannot be written" in (
        doctor.stdout
    )
    run = cli(tmp_path, "run", DATABASE_URL=url, DISCORD_TOKEN="a.b.c")
    assert_short(run, 2, "cannot be written", "DATABASE_URL")
