"""Running the client until a signal (`quiztutor run`) and registering the slash commands
(`quiztutor sync`); every failure to log in or connect becomes a `SetupError`."""

from __future__ import annotations

import asyncio
import logging
import signal

import discord

from bot.common.errors import SetupError
from bot.common.settings import Settings
from bot.discord.client import QuizTutorBot
from bot.discord.internals import redirect_discord
from bot.discord.startup import discord_failure, start_failure

log = logging.getLogger("quiztutor")

# After the client closed, how long the connecting task may take to notice.
RUNNER_GRACE_S = 1.0


def apply_endpoints(settings: Settings) -> None:
    """Point discord.py at an HTTP proxy for Discord (DISCORD_API_BASE), when one is set."""
    if settings.discord_api_base:
        redirect_discord(settings.discord_api_base, settings.discord_gateway_url)


async def serve(settings: Settings, token: str) -> int:
    """Run the bot until SIGINT or SIGTERM; 0 after a clean stop."""
    bot = QuizTutorBot(settings)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with bot:
        runner = asyncio.create_task(bot.start(token), name="discord")
        stopper = asyncio.create_task(stop.wait(), name="signals")
        done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
        if runner in done:
            stopper.cancel()
            exc = runner.exception()
            if exc is None:
                return 0
            # Logged in but not started: the services (database, quizzes) failed.
            in_setup = bot.setup_started and not bot.started.is_set()
            failure = start_failure(exc, settings, in_setup=in_setup)
            if failure is not None:
                raise failure from exc
            # A bug, not a set-up problem: its traceback belongs in the log for the report.
            log.error("the bot stopped on an unexpected error", exc_info=exc)
            raise exc
        log.info("Shutting down")
        await bot.close()
        # Whatever the signal interrupted (a wait for an IDENTIFY turn, the set-up) ends
        # now: discord.py would otherwise retry connecting after close.
        _, pending = await asyncio.wait({runner}, timeout=RUNNER_GRACE_S)
        for task in pending:
            task.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        await bot.close()  # services the set-up finished after the first close
    return 0


async def register_commands(settings: Settings, token: str, guild_id: int | None) -> int:
    """Register the slash commands in one server (instant) or globally."""
    bot = QuizTutorBot(settings, sync_only=True)
    async with bot:
        try:
            await bot.login(token)
            if guild_id is not None:
                guild = discord.Object(id=guild_id)
                bot.tree.copy_global_to(guild=guild)
                synced = await bot.tree.sync(guild=guild)
            else:
                synced = await bot.tree.sync()
        except discord.Forbidden as exc:
            raise SetupError(
                f"Discord refused to register commands in server {guild_id}.",
                "invite the bot there with the applications.commands scope (docs/discord-setup.md)",
                exit_code=1,
            ) from exc
        except Exception as exc:
            failure = discord_failure(exc, settings)
            if failure is None:
                raise
            raise failure from exc
        if guild_id is not None:
            print(f"Registered {len(synced)} commands in server {guild_id} (available now).")
        else:
            print(
                f"Registered {len(synced)} global commands (Discord may take up to an hour to show them)."
            )
    return 0
