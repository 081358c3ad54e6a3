"""The real command line in a subprocess (`python -m bot ...`), on a fresh host's settings,
and the short-error contract every failure keeps."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def host_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A fresh host: none of the developer's quiztutor variables, a database in tmp."""
    prefixes = ("DISCORD_", "QUIZ_", "DATABASE_", "LOG_", "DEMO_", "SHARD_", "DEV_GUILD")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env.update(
        PYTHONPATH=str(ROOT),
        DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'data' / 'q.db'}",
        DEMO_WORKER="false",
    )
    env.update(extra)
    return env


def cli(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=tmp_path,
        env=host_env(tmp_path, **env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def assert_short(result: subprocess.CompletedProcess[str], code: int, *expected: str) -> str:
    """At most three lines on stderr, no traceback, the exit code; returns stderr."""
    err = result.stderr
    assert result.returncode == code, (result.returncode, err, result.stdout)
    assert "Traceback" not in err and "Traceback" not in result.stdout, err
    lines = err.strip().splitlines()
    assert 1 <= len(lines) <= 3, err
    assert lines[0].startswith("error: "), err
    for text in expected:
        assert text in err, err
    return err
