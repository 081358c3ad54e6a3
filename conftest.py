"""Root conftest: registers the shared fixtures of the test suite.

Each plugin module owns one kind of fixture (the Discord stand-in, databases, ...),
written once and reused by every test module.
"""

import os

import pytest

pytest_plugins = [
    "tests.support.backend",
    "tests.support.bot",
    "tests.support.standin",
    "tests.support.db",
    "tests.support.driver",
    "tests.support.pgcluster",
]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (scripts/test): one worker per core this process may use, at most 4.

    More would not pay: many tests start bot processes or torch workers of their own, and
    the PostgreSQL pass shares one server's connections among the workers."""
    return max(1, min(4, len(os.sched_getaffinity(0))))
