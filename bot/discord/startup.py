"""The bot's start-up boundary: what a failure to log in, connect or start means to a host.

`bot.discord.client` runs the bot; this module turns what can go wrong on the way (no token, a token
Discord refuses, Discord unreachable, quiz folders that do not load) into a
`bot.common.errors.SetupError` with the thing to do, checked as early as possible.
"""

from __future__ import annotations

import logging

import discord

from bot.common.errors import SetupError
from bot.common.settings import Settings, token_shape_problem

log = logging.getLogger("quiztutor")

TOKEN_FIX = (
    "create a bot at https://discord.com/developers/applications and put its token in .env"
    " as DISCORD_TOKEN=... (docs/discord-setup.md)\n"
    "No token yet? Take the quizzes in the terminal: quiztutor play --lang en (or --lang id)"
)


TOKEN_SHAPE_FIX = "copy the token again from the Bot page (Reset Token)"


def token_or_fail(settings: Settings) -> str:
    """The token, or a SetupError before any connection when it is missing or malformed."""
    token = settings.discord_token.get_secret_value().strip() if settings.discord_token else ""
    if not token:
        raise SetupError("DISCORD_TOKEN is not set.", TOKEN_FIX, exit_code=2)
    problem = token_shape_problem(token)
    if problem is not None:
        raise SetupError(f"{problem}.", TOKEN_SHAPE_FIX, exit_code=2)
    return token


def start_failure(exc: BaseException, settings: Settings, *, in_setup: bool) -> SetupError | None:
    """What `quiztutor run` says when the bot stops before it ran; None for a bug."""
    if isinstance(exc, SetupError):
        return exc
    if in_setup:  # logged in, then starting the services failed: not Discord's doing
        first_line = (str(exc).strip().splitlines() or [""])[0][:200]
        return SetupError(
            f"the bot could not start: {type(exc).__name__}: {first_line}",
            "check DATABASE_URL and the other settings with `quiztutor doctor`",
            exit_code=1,
        )
    return discord_failure(exc, settings)


def discord_failure(exc: BaseException, settings: Settings) -> SetupError | None:
    """The SetupError for a failure to log in or connect; None if it is not one."""
    import aiohttp

    if isinstance(exc, SetupError):
        return exc
    if isinstance(exc, discord.LoginFailure):
        return SetupError(
            "Discord refused the token (DISCORD_TOKEN).",
            "copy it again from the Bot page of https://discord.com/developers/applications"
            " (Reset Token)",
            exit_code=2,
        )
    if isinstance(exc, discord.PrivilegedIntentsRequired):
        return SetupError(
            "Discord refused a privileged intent; quiztutor needs none.",
            "turn the privileged intents off on the Bot page, or check SHARD_IDS",
            exit_code=2,
        )
    where = settings.discord_api_base or "discord.com"
    fix = (
        "check DISCORD_API_BASE and that the proxy runs"
        if settings.discord_api_base
        else "check the host's network connection and DNS, then start again"
    )
    if isinstance(exc, aiohttp.ClientConnectorError | aiohttp.ServerDisconnectedError):
        reason = getattr(exc, "os_error", None) or exc
        return SetupError(f"cannot reach Discord at {where}: {reason}", fix, exit_code=1)
    if isinstance(exc, aiohttp.ClientError | OSError | TimeoutError | discord.GatewayNotFound):
        return SetupError(
            f"cannot reach Discord at {where}: {exc or type(exc).__name__}", fix, exit_code=1
        )
    if isinstance(exc, discord.HTTPException):
        return SetupError(
            f"Discord answered {exc.status} {exc.text or ''}".strip() + f" at {where}",
            "check DISCORD_API_BASE" if settings.discord_api_base else "try again in a minute",
            exit_code=1,
        )
    return None
