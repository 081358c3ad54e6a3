"""`quiztutor run` and `quiztutor sync`: settings and token first, then everything that
would fail after logging in (the database URL, the quiz folders), then the client."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

from bot.cli.boundary import empty_folders, load_quizzes_or_fail, load_settings, quiz_sources
from bot.cli.logs import setup_logging
from bot.common.settings import Settings

log = logging.getLogger("quiztutor")


def preflight(settings: Settings) -> None:
    """Everything that would fail after logging in, checked before: the database URL (and
    its driver and location) and the quiz folders."""
    from bot.db.health import check_url

    check_url(settings.database_url)  # before anything is created or connected
    sources = quiz_sources(settings)
    load_quizzes_or_fail(sources)
    for folder in empty_folders(sources):
        log.warning("QUIZ_DIRS: %s holds no quiz files (*.yaml)", folder)


def run_bot() -> int:
    from bot.discord.runner import apply_endpoints, serve
    from bot.discord.startup import token_or_fail

    settings = load_settings()
    token = token_or_fail(settings)
    setup_logging(settings.log_level, settings.log_format)
    preflight(settings)
    apply_endpoints(settings)
    return run_loop(serve(settings, token))


def run_loop(main: Coroutine[Any, Any, int]) -> int:
    """The bot's event loop: uvloop where it is installed (Linux, macOS), else asyncio's.

    The gateway's frames come one by one at a steady rate, so the cost of each turn of the
    loop (a wake-up, a read, a task switch) is paid per reaction; uvloop's loop, libuv
    under Cython, costs a fraction of the pure-Python selector loop's (`bench.steady`).
    """
    try:
        import uvloop
    except ImportError:  # not a dependency everywhere: Windows has none
        return asyncio.run(main)
    return uvloop.run(main)


def sync_commands(guild_id: int | None = None) -> int:
    from bot.discord.runner import apply_endpoints, register_commands
    from bot.discord.startup import token_or_fail

    settings = load_settings()
    token = token_or_fail(settings)
    setup_logging(settings.log_level, settings.log_format)
    apply_endpoints(settings)
    return asyncio.run(register_commands(settings, token, guild_id or settings.dev_guild_id))
