"""The README's set-up section against the code: the invite URL's permissions integer, the
CI's test command, and the Command line table listing every command."""

from __future__ import annotations

import re
from pathlib import Path

import discord

from bot.cli.main import _subparsers, build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_invite_permissions_integer_is_the_listed_permissions() -> None:
    (value,) = re.findall(r"permissions=(\d+)", README)
    listed = re.search(r"the permissions View\s+Channel, (.*?)\.", README, re.S)
    assert listed is not None
    names = ["View Channel", *re.split(r",\s*|\s+and\s+", " ".join(listed.group(1).split()))]
    flags = {name.lower().replace(" ", "_"): True for name in names}
    assert len(flags) == 8, names
    assert int(value) == discord.Permissions(**flags).value


def test_readme_test_command_is_the_one_ci_runs() -> None:
    ci = [
        line
        for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if "pytest" in line
    ]
    # The README's command runs first (on SQLite); the PostgreSQL pass repeats pytest.
    assert ci[0] in README.splitlines()


def test_command_line_table_lists_every_command() -> None:
    table = README[README.index("## Command line") : README.index("## Configuration")]
    for name in _subparsers(build_parser()):
        assert f"`quiztutor {name}" in table, name
    assert "`quiztutor --version`" in table
