"""Every benchmark at tiny sizes (`python -m bench --quick`), so none of them can rot.

Checks that each runs to the end and reports its rows. `--quick` exits 0 unless a
benchmark crashed (2) or a correctness check that holds at any size failed (1): budgets
are not judged at tiny sizes on a shared machine.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import BENCHMARKS

# Real subprocesses (bot processes, the CLI, torch workers): left out by -m 'not slow'.
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def test_every_benchmark_runs_at_quick_sizes() -> None:
    # A subprocess: the benchmarks run their own event loop and redirect discord.py.
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    table = done.stdout
    for name in BENCHMARKS:
        assert f"{name}: " in table, f"no row of {name}:\n{table}\n{done.stderr[-2000:]}"
    # Lost or double-counted answers are wrong at any size.
    assert "!= " not in done.stderr, done.stderr[-2000:]
