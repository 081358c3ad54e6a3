"""The command line's own help answers a newcomer: every command and action has a one-line
summary and a pasteable example, `help run` says where the token, the settings and the data
are, every `fix:` line's command runs as printed, and a bare `export` in a terminal says
what it would write instead of scrolling 200 KB past."""

from __future__ import annotations

import argparse
import os
import re
import shlex
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli.main import _subparsers, build_parser, main
from experiments.cli import build_parser as demo_parser
from experiments.generate_cli import build_parser as generate_parser
from tests.support.cli import host_env


def every_command() -> list[tuple[str, argparse.ArgumentParser]]:
    found = []
    for name, parser in _subparsers(build_parser()).items():
        found.append((name, parser))
        found += [(f"{name} {action}", sub) for action, sub in _subparsers(parser).items()]
    return found


def parse_example(line: str) -> None:
    """Parse a `quiztutor ...` example line as the command line would (nothing runs)."""
    words = [w for w in shlex.split(line) if not re.match(r"^[A-Z_]+=", w)]
    assert words[0] == "quiztutor", line
    words = words[1 : words.index("|")] if "|" in words else words[1:]
    own = {"demo": demo_parser, "generate": generate_parser}
    if words[0] in own:
        own[words[0]]().parse_args(words[1:])
    else:
        build_parser().parse_args(words)


COMMANDS = every_command()


@pytest.mark.parametrize("name, parser", COMMANDS, ids=[name for name, _ in COMMANDS])
def test_every_command_has_a_summary_and_a_working_example(
    name: str, parser: argparse.ArgumentParser
) -> None:
    summary = (parser.description or "").splitlines()[0]
    assert 10 < len(summary) <= 100 and summary.endswith("."), (name, summary)
    epilog = parser.epilog or ""
    assert epilog.startswith(("example:", "examples:")), (name, epilog)
    examples = [line.strip() for line in epilog.splitlines()[1:] if line.strip()]
    assert examples, name
    for example in examples:
        parse_example(example)  # raises SystemExit on an example argparse refuses
        assert name.split()[0] in example, (name, example)


def test_the_demo_and_generate_help_have_examples(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("demo", "generate"):
        assert main(["help", command]) == 0
        out = capsys.readouterr().out
        examples = out[out.index("examples:") :].splitlines()[1:]
        for example in filter(None, (line.strip() for line in examples)):
            parse_example(example)


def test_help_run_says_where_the_token_settings_and_data_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["help", "run"]) == 0
    out = capsys.readouterr().out
    for needed in ("DISCORD_TOKEN", ".env", "DATABASE_URL", "data/quiztutor.db", "Reset Token"):
        assert needed in out, needed


def test_memory_alone_names_its_actions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory"]) == 2
    err = capsys.readouterr().err
    assert "`fit`" in err and "`show`" in err
    assert main(["help", "memory"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^\s+fit\s+fit FSRS", out, re.M) and re.search(r"^\s+show\s+what", out, re.M)


# Mistakes a newcomer makes, each answered with `error:` and a `fix:` line.
MISTAKES = [
    *([command, "--bogus"] for command in _subparsers(build_parser()) if command != "help"),
    ["memory"],
    ["memory", "show"],
    ["memory", "fit", "--guild", "x"],
    ["help", "nope"],
    ["help", "memory", "nope"],
    ["demo", "nosuch"],
    ["demo", "accumulation", "--micro-batches", "99"],
    ["generate"],
    ["generate", "nosuch"],
    ["generate", "fp16-round", "--seed", "-1"],
    ["play", "--count", "0"],
    ["import", "bank.gift", "--id", "Bad_ID"],
]


@pytest.mark.parametrize("argv", MISTAKES, ids=" ".join)
def test_every_fix_runs_as_printed(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("error: ") and lines[1].startswith("fix: "), lines
    assert not any(line.lower().startswith("error:") and line[0] == "E" for line in lines)
    commands = re.findall(r"`(quiztutor [^`]+)`", lines[1])
    for command in commands:
        assert main(shlex.split(command)[1:]) == 0, command
    capsys.readouterr()


def test_import_with_a_bad_id_blames_the_id_not_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bank = tmp_path / "bank.gift"
    bank.write_text("::q1:: 2 + 2? {=4 ~3 ~5}\n", encoding="utf-8")
    assert main(["import", str(bank), "--id", "Bad_ID"]) == 2
    err = capsys.readouterr().err
    assert "--id 'Bad_ID' is not a quiz id" in err and "fix: for example --id bad-id" in err
    assert "bank.gift:1" not in err and "[a-z0-9]" not in err
    assert main(["import", str(bank), "--id", "bad-id"]) == 0
    assert "id: bad-id" in capsys.readouterr().out


def test_export_to_a_terminal_says_what_it_would_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("QUIZ_DIRS", raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["export"]) == 0
    out = capsys.readouterr().out
    assert not out.lstrip().startswith("{")
    assert "KB of JSON" in out and "`quiztutor export -o quizzes.json`" in out
    assert len(out) < 400
    # Asked for explicitly, or to a file, it writes the JSON.
    assert main(["export", "--format", "json"]) == 0
    assert capsys.readouterr().out.startswith("{")
    assert main(["export", "-o", "quizzes.json"]) == 0
    assert (tmp_path / "quizzes.json").read_text(encoding="utf-8").startswith('{\n  "quizzes"')


def test_stats_without_a_database_says_the_bot_makes_it(tmp_path: Path) -> None:
    env = host_env(tmp_path)
    for argv in (["stats", "--guild", "1"], ["reports"], ["memory", "show", "--guild", "1"]):
        result = subprocess.run(
            [sys.executable, "-m", "bot", *argv],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 2, result.stderr
        error, fix = result.stderr.splitlines()[:2]
        assert "the bot creates it on its first run" in error, error
        assert fix.startswith("fix: run this where the bot runs"), fix


@pytest.mark.slow
def test_validate_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    import fcntl
    import pty
    import termios

    argv = [sys.executable, "-m", "bot", "validate", "--seeds", "20"]
    env = host_env(tmp_path)
    piped = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert piped.returncode == 0 and "templates" not in piped.stderr, piped.stderr

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    with subprocess.Popen(
        argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=follower
    ) as process:
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        assert process.wait(timeout=120) == 0
    os.close(leader)
    frames = shown.decode(errors="replace").split("\r")
    assert any(re.search(r"templates \(20 seeds each\): .*\d+/24", f) for f in frames), frames[-3:]
