"""The README and docs/ against the code: the invite URL's permissions integer, the CI's
test command, the command-line page listing every command, the front page's length and
links, and no internals (test names, issue numbers) in what users read."""

from __future__ import annotations

import re
from pathlib import Path

import discord
import pytest

from bot.cli.main import _subparsers, build_parser

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
USER_DOCS = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def test_invite_permissions_integer_is_the_listed_permissions() -> None:
    setup = (DOCS / "discord-setup.md").read_text(encoding="utf-8")
    (value,) = set(re.findall(r"permissions=(\d+)", setup))
    assert re.findall(r"permissions=(\d+)", README) == [value]
    listed = re.search(r"the permissions View\s+Channel, (.*?)\.", setup, re.S)
    assert listed is not None
    names = ["View Channel", *re.split(r",\s*|\s+and\s+", " ".join(listed.group(1).split()))]
    flags = {name.lower().replace(" ", "_"): True for name in names}
    assert len(flags) == 8, names
    assert int(value) == discord.Permissions(**flags).value


def test_readme_test_command_is_the_one_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    # CI's first test run is the README's full-suite command, word for word.
    assert "scripts/test" in ci
    assert "`scripts/test` alone runs the full suite" in " ".join(README.split())
    assert '```sh\nscripts/test -m "not slow"\n```' in README  # the quick tests, up front
    for script in ("tutor", "test"):
        assert (ROOT / "scripts" / script).stat().st_mode & 0o111, script


def test_command_line_page_lists_every_command() -> None:
    page = (DOCS / "commands.md").read_text(encoding="utf-8")
    for name in _subparsers(build_parser()):
        assert f"`quiztutor {name}" in page, name
    assert "`quiztutor --version`" in page


def test_the_front_page_is_short_and_its_links_resolve() -> None:
    assert len(README.splitlines()) <= 150
    assert "(docs/daily-stats.png)" in README  # a picture of what the bot draws
    for doc in USER_DOCS:
        text = doc.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if target.startswith(("http://", "https://")):
                continue
            if target.endswith("quiz-files.md"):
                continue  # the Moodle import guide, written on its own branch
            assert (doc.parent / target).exists(), f"{doc.name}: {target}"


@pytest.mark.parametrize("doc", USER_DOCS, ids=lambda p: p.name)
def test_user_docs_name_no_tests_and_no_issues(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    assert not re.findall(r"\btest_[a-z_]+", text)
    assert not re.findall(r"\b[Ii]ssue \d+", text)
