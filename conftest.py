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
    """`-n auto` (scripts/test): two workers per core this process may use, at most 8.

    Two, because much of a test's time is a wait (a bot process starting, a subprocess's
    imports, a timer) that the other worker fills; at most 8, because the PostgreSQL pass
    shares one server's connections among the workers."""
    return max(1, min(8, 2 * len(os.sched_getaffinity(0))))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On parallel workers, the files with slow tests first (scripts/test hands out whole
    files in collection order, --no-loadscope-reorder): a long file started last would
    leave the other workers idle at the end."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    slow_files = {item.path for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.path not in slow_files)
