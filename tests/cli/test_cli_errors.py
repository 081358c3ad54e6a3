"""Bad set-ups through the real command line (`python -m bot ...` in a subprocess).

Each one must end in at most three lines (what is wrong, what to do), no traceback, and
exit status 1 (runtime) or 2 (usage or configuration).
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bot.quizbank.files import load_bank
from testkit.standin.server import FakeDiscord
from tests.support.cli import ROOT, assert_short, cli, host_env

# Real subprocesses (bot processes, the CLI, torch workers): left out by -m 'not slow'.
pytestmark = pytest.mark.slow

QUIZ = (ROOT / "quizzes" / "mixed-precision.yaml").read_text(encoding="utf-8")


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- Discord ---------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["run", "sync"])
def test_discord_unreachable(tmp_path: Path, command: str) -> None:
    base = f"http://127.0.0.1:{closed_port()}"
    result = cli(tmp_path, command, DISCORD_TOKEN="your.bot.token", DISCORD_API_BASE=base)
    assert_short(result, 1, f"cannot reach Discord at {base}", "fix: check DISCORD_API_BASE")
    assert not (tmp_path / "data").exists()  # nothing was created on the way


@pytest.mark.parametrize("command", ["run", "sync"])
def test_token_missing_or_empty_never_tries_to_log_in(tmp_path: Path, command: str) -> None:
    # An unreachable Discord proves no login was tried: that would be a different error.
    base = f"http://127.0.0.1:{closed_port()}"
    result = cli(tmp_path, command, DISCORD_TOKEN="  ", DISCORD_API_BASE=base)
    assert_short(result, 2, "error: DISCORD_TOKEN is not set", "quiztutor play")


async def run_against(
    fake: FakeDiscord, tmp_path: Path, command: str = "run", **env: str
) -> subprocess.CompletedProcess[str]:
    """`quiztutor COMMAND` against the stand-in, in a child process."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        command,
        cwd=tmp_path,
        env=host_env(tmp_path, **{**fake.env(), **env}),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return subprocess.CompletedProcess([command], proc.returncode or 0, out.decode(), err.decode())


async def test_token_refused(discord_fake: FakeDiscord, tmp_path: Path) -> None:
    for command in ("run", "sync"):
        result = await run_against(discord_fake, tmp_path, command, DISCORD_TOKEN="wrong.to.ken")
        assert_short(result, 2, "error: Discord refused the token (DISCORD_TOKEN).", "Reset Token")


@pytest.mark.parametrize(
    "url", ["nonsense", "postgresql+asyncpg://quiz:s3cretpw@127.0.0.1:{port}/quiz"]
)
async def test_a_database_that_fails_at_start_is_not_blamed_on_discord(
    discord_fake: FakeDiscord, tmp_path: Path, url: str
) -> None:
    result = await run_against(discord_fake, tmp_path, DATABASE_URL=url.format(port=closed_port()))
    assert result.returncode in (1, 2)
    err = assert_short(result, result.returncode)
    assert "Discord" not in err.splitlines()[0], err
    assert "s3cretpw" not in err + result.stdout


async def test_start_up_logs_one_ready_line_and_no_chatter(
    discord_fake: FakeDiscord, tmp_path: Path
) -> None:
    env = host_env(tmp_path, **discord_fake.env(), LOG_LEVEL="INFO")
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "run",
        cwd=tmp_path,
        env=env,
        stderr=asyncio.subprocess.PIPE,
    )
    lines: list[str] = []
    try:
        assert proc.stderr is not None
        while not any("ready:" in line for line in lines):
            raw = await asyncio.wait_for(proc.stderr.readline(), 30)
            assert raw, f"bot exited before ready: {lines}"
            lines.append(raw.decode().rstrip())
    finally:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 30)
    (ready,) = [line for line in lines if "ready:" in line]
    assert f"ready: quiztutor (id {discord_fake.bot_user.id}) in 1 server(s)" in ready
    assert "shard(s) [0] of 1" in ready and "demos off (DEMO_WORKER=false)" in ready
    text = "\n".join(lines)
    for chatter in ("PyNaCl", "davey", "setup plugin", "Context impl", "apscheduler"):
        assert chatter not in text, text
    assert "Running upgrade" in text  # a migration that ran is still worth a line


# -- settings and quiz folders ---------------------------------------------------------------


def test_bad_settings_are_one_line_naming_each_variable(tmp_path: Path) -> None:
    result = cli(tmp_path, "run", DISCORD_TOKEN="a.b.c", LOG_LEVEL="loud", DEMO_TIMEOUT_S="-1")
    err = assert_short(result, 2, "LOG_LEVEL='loud'", "DEMO_TIMEOUT_S='-1'")
    assert err.count("\n") == 2  # the error and its fix


@pytest.mark.parametrize("command", ["run", "doctor", "validate", "play"])
def test_quiz_dirs_not_json(tmp_path: Path, command: str) -> None:
    result = cli(tmp_path, command, DISCORD_TOKEN="a.b.c", QUIZ_DIRS="extra-quizzes")
    if command == "doctor":  # the doctor reports on stdout, as a finding
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert "✗ settings: QUIZ_DIRS is not a JSON list: 'extra-quizzes'" in result.stdout
        assert len(result.stdout.strip().splitlines()) <= 3
        return
    assert_short(
        result,
        2,
        "QUIZ_DIRS is not a JSON list: 'extra-quizzes'",
        """QUIZ_DIRS='["extra-quizzes"]'""",
    )


@pytest.mark.parametrize("command", ["run", "validate", "play", "export"])
def test_quiz_dirs_folder_missing(tmp_path: Path, command: str) -> None:
    result = cli(tmp_path, command, DISCORD_TOKEN="a.b.c", QUIZ_DIRS='["/nonexistent"]')
    assert_short(result, 2, "QUIZ_DIRS: no such folder: /nonexistent")


def broken_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "extra"
    folder.mkdir()
    (folder / "a.yaml").write_text("id: x\ntitle: [unclosed\n", encoding="utf-8")
    (folder / "b.yaml").write_text("id: y\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("command", ["run", "play", "export"])
def test_broken_quiz_folder_names_each_file_first(tmp_path: Path, command: str) -> None:
    broken_folder(tmp_path)
    base = f"http://127.0.0.1:{closed_port()}"  # the quizzes are checked before Discord
    result = cli(
        tmp_path, command, DISCORD_TOKEN="a.b.c", QUIZ_DIRS='["extra"]', DISCORD_API_BASE=base
    )
    err = assert_short(result, 2, "extra/a.yaml:3", "extra/b.yaml:1", "quiztutor validate")
    assert err.splitlines()[0].startswith("error: 4 problem(s) in quiz files: ")


def test_validate_checks_what_the_bot_loads(tmp_path: Path) -> None:
    broken_folder(tmp_path)
    # The files only (--seeds 0): the templates have their own tests.
    result = cli(tmp_path, "validate", "--seeds", "0", QUIZ_DIRS='["extra"]')
    assert result.returncode == 1
    assert "extra/a.yaml:3: not valid YAML" in result.stdout
    assert "extra/b.yaml:1: title: required field is missing" in result.stdout
    assert "Traceback" not in result.stderr

    # A good extra quiz: validate counts it, export and play see it.
    good = tmp_path / "good"
    good.mkdir()
    (good / "team.yaml").write_text(
        QUIZ.replace("id: mixed-precision", "id: team-quiz", 1).replace("id: mp-", "id: team-"),
        encoding="utf-8",
    )
    result = cli(tmp_path, "validate", "--seeds", "0", QUIZ_DIRS='["good"]')
    assert result.returncode == 0, result.stdout + result.stderr
    shipped = len(load_bank().quizzes)
    assert f"OK: {shipped + 1} quiz(zes)" in result.stdout and "good" in result.stdout
    exported = json.loads(cli(tmp_path, "export", QUIZ_DIRS='["good"]').stdout)
    assert "team-quiz" in [q["id"] for q in exported["quizzes"]]
    played = subprocess.run(
        [sys.executable, "-m", "bot", "play", "--quiz", "team-quiz", "--count", "1"],
        cwd=tmp_path,
        env=host_env(tmp_path, QUIZ_DIRS='["good"]'),
        input="a\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert played.returncode == 0, played.stderr
    assert "Score: " in played.stdout


def test_an_empty_quiz_folder_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = cli(tmp_path, "validate", "--seeds", "0", QUIZ_DIRS='["empty"]')
    assert result.returncode == 0
    assert "warning: empty: no quiz files (*.yaml) in this folder" in result.stderr
    result = cli(tmp_path, "validate", "--seeds", "0", "empty")
    assert result.returncode == 0 and "warning: empty" in result.stderr


# -- output paths, checked before any work ---------------------------------------------------


def test_schema_output_in_a_missing_folder(tmp_path: Path) -> None:
    result = cli(tmp_path, "schema", "-o", "missing/dir/x.json")
    assert_short(result, 2, "folder missing/dir does not exist", "mkdir -p missing/dir")
    assert not (tmp_path / "missing").exists()
    ok = cli(tmp_path, "schema", "-o", "x.json")
    assert ok.returncode == 0 and json.loads((tmp_path / "x.json").read_text())["title"]


@pytest.mark.parametrize(
    ("plot", "expected"),
    [("missing/x.png", "folder missing does not exist"), (".", "plot . is a folder")],
)
def test_demo_plot_path_is_checked_before_the_demo_runs(
    tmp_path: Path, plot: str, expected: str
) -> None:
    result = cli(tmp_path, "demo", "accumulation", "--plot", plot)
    err = assert_short(result, 2, expected)
    assert "running accumulation" not in err  # refused before torch was even imported


def test_debug_level_shows_the_traceback(tmp_path: Path) -> None:
    result = cli(tmp_path, "schema", "-o", "missing/x.json", LOG_LEVEL="DEBUG")
    assert result.returncode == 2
    assert "Traceback" in result.stderr and "error: cannot write schema" in result.stderr


# -- conventions -------------------------------------------------------------------------------


def test_version_and_help(tmp_path: Path) -> None:
    version = cli(tmp_path, "--version")
    assert version.returncode == 0 and version.stdout.startswith("quiztutor 0.")
    for args in (("help", "play"), ("play", "--help")):
        result = cli(tmp_path, *args)
        assert result.returncode == 0
        assert "--count N" in result.stdout and "1 to the number available" in result.stdout
    demo = cli(tmp_path, "help", "demo")
    assert demo.returncode == 0 and "--micro-batches N" in demo.stdout
    assert "micro-batches, 1-16" in demo.stdout
    assert_short(cli(tmp_path, "help", "nope"), 2, "error: no command 'nope'", "play")
    assert_short(cli(tmp_path, "play", "--count", "0"), 2, "must be 1 or more", "help play")
    assert_short(
        cli(tmp_path, "demo", "accumulation", "--micro-batches", "x"),
        2,
        "invalid int value: 'x'",
        "quiztutor demo --help",
    )


def test_demo_list_and_progress_line(tmp_path: Path) -> None:
    listed = cli(tmp_path, "demo", "--list")
    assert listed.returncode == 0
    assert "accumulation" in listed.stdout and "--micro-batches 1-16" in listed.stdout
    ran = cli(tmp_path, "demo", "formats", "--device", "cpu", "--json")
    assert ran.returncode == 0, ran.stderr
    json.loads(ran.stdout)  # stdout stays machine-readable
    progress = ran.stderr.strip().splitlines()
    assert progress[0] == "running formats on cpu…"
    assert progress[-1].startswith("formats ran on cpu in ") and progress[-1].endswith(" s")


def test_a_password_in_a_url_is_never_printed(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli.boundary import print_error
    from bot.common.errors import SetupError

    url = "postgresql+asyncpg://quiz:s3cret@db.example:5432/quiz"
    print_error(SetupError(f"cannot open {url}", f"check {url}"))
    err = capsys.readouterr().err
    assert "s3cret" not in err
    assert err == (
        "error: cannot open postgresql+asyncpg://quiz:***@db.example:5432/quiz\n"
        "fix: check postgresql+asyncpg://quiz:***@db.example:5432/quiz\n"
    )
