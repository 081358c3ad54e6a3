"""Root conftest: registers the shared fixtures of the test suite.

Each plugin module owns one kind of fixture (the Discord stand-in, databases, ...),
written once and reused by every test module.
"""

pytest_plugins = [
    "tests.support.backend",
    "tests.support.bot",
    "tests.support.standin",
    "tests.support.db",
    "tests.support.driver",
    "tests.support.pgcluster",
]
