"""The one place that touches discord.py's private surfaces (pinned: discord.py>=2.4,<3).

1. Endpoints. Point discord.py at another Discord API endpoint (an HTTP proxy or a local stand-in).

Self-hosters that scale out put an HTTP proxy in front of Discord (one shared rate-limit
view for many bot processes); the test suite points the bot at a local fake of the API.
Both need the unmodified discord.py client to talk to a different host, and discord.py has
no setting for that, so :func:`redirect_discord` patches the few class attributes that hold
the hard-coded Discord hosts.

2. The reaction parser hook. The one place that touches discord.py's private surfaces.

`ReactionParserHook` replaces the MESSAGE_REACTION_ADD parser of discord.py's
`ConnectionState` (`ConnectionState.parsers`, internal to discord.py) with a filter
that grades answer reactions on known open posts straight from the gateway payload;
everything else goes to discord.py's own parser as usual. The hook runs inside
discord.py's websocket reader, so it must never raise: any exception in the fast
path is logged and the payload handed to discord.py's parser, which then raises or
dispatches exactly as it would without the hook.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import discord
import discord.http
import yarl
from discord.asset import Asset
from discord.gateway import DiscordWebSocket

__all__ = ["EVENT", "ReactionParserHook", "normalize_api_base", "redirect_discord"]

log = logging.getLogger("quiztutor.daily")

_VERSIONED = re.compile(r"/api/v\d+/?$")


def normalize_api_base(api_base: str, version: int | None = None) -> str:
    """Return ``api_base`` as a versioned REST base such as ``http://host:8080/api/v10``.

    ``api_base`` may be a bare origin (``http://host:8080``), an ``.../api`` prefix or an
    already versioned base; a trailing slash is ignored.
    """
    base = api_base.rstrip("/")
    if _VERSIONED.search(base):
        return base
    if version is None:
        version = discord.http.INTERNAL_API_VERSION
    if base.endswith("/api"):
        return f"{base}/v{version}"
    return f"{base}/api/v{version}"


def redirect_discord(
    api_base: str,
    gateway_url: str | None = None,
    *,
    cdn_base: str | None = None,
) -> Callable[[], None]:
    """Make discord.py send its REST, webhook and gateway traffic to ``api_base``.

    What is redirected, and why each place matters:

    * ``discord.http.Route.BASE`` -- every REST call of the bot (``HTTPClient.request``)
      builds its URL from this class attribute when the ``Route`` is created, so setting it
      moves all REST traffic. The interaction and webhook adapter
      (``discord.webhook.async_``: interaction callbacks, follow-ups, ``@original`` edits)
      and the sync webhook adapter import this same ``Route`` class, so they follow too.
    * ``DiscordWebSocket.DEFAULT_GATEWAY`` (only when ``gateway_url`` is given) -- an
      ``AutoShardedBot`` asks ``GET /gateway/bot`` for its websocket URL (so the proxy
      decides), but discord.py falls back to this constant when ``shard_count`` is fixed and
      after an INVALID_SESSION; without it a reconnect would go to ``gateway.discord.gg``.
      Resumes use READY's ``resume_gateway_url``, which the server side supplies.
    * ``discord.asset.Asset.BASE`` (only when ``cdn_base`` is given) -- avatar/icon/emoji
      URLs the bot may download. Attachment URLs come from the server's payloads and need
      no patching.

    Left alone: ``discord.com/channels/...`` jump URLs, ``discord.gg`` invite links and the
    ``media.discordapp.net`` sticker previews are strings shown to users, not requests.

    ``api_base`` may be an origin or a versioned base, see :func:`normalize_api_base`.
    Returns a function that restores every patched value (used by tests; a bot process
    simply keeps the redirect for its lifetime).
    """
    http_mod: Any = discord.http
    old_base = http_mod.Route.BASE
    old_gateway = DiscordWebSocket.DEFAULT_GATEWAY
    old_asset_base = Asset.BASE

    http_mod.Route.BASE = normalize_api_base(api_base)
    if gateway_url is not None:
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    if cdn_base is not None:
        Asset.BASE = cdn_base.rstrip("/")

    def restore() -> None:
        http_mod.Route.BASE = old_base
        DiscordWebSocket.DEFAULT_GATEWAY = old_gateway
        Asset.BASE = old_asset_base

    return restore


# -- the reaction parser hook -------------------------------------------------------

EVENT = "MESSAGE_REACTION_ADD"

Parser = Callable[[dict[str, Any]], None]
# (message_id, user_id, emoji name) -> True when the fast path took the reaction.
FastPath = Callable[[int, int, str], bool]


def _parsers(client: discord.Client) -> dict[str, Parser] | None:
    parsers = getattr(getattr(client, "_connection", None), "parsers", None)
    if not isinstance(parsers, dict) or EVENT not in parsers:
        return None
    return parsers


class ReactionParserHook:
    """Installs `fast_path` in front of discord.py's reaction parser; removable."""

    def __init__(self, client: discord.Client, fast_path: FastPath) -> None:
        self.client = client
        self.fast_path = fast_path
        self.full_parser: Parser | None = None  # discord.py's own, for the fallback

    @property
    def installed(self) -> bool:
        parsers = _parsers(self.client)
        return parsers is not None and parsers.get(EVENT) == self.parse

    def install(self) -> bool:
        parsers = _parsers(self.client)
        if parsers is None:
            log.warning(
                "discord.py %s has no ConnectionState.parsers[%r]: answer reactions take "
                "discord.py's normal path (correct, but slower under load)",
                discord.__version__,
                EVENT,
            )
            return False
        if parsers[EVENT] != self.parse:
            self.full_parser = parsers[EVENT]
            parsers[EVENT] = self.parse
        return True

    def uninstall(self) -> None:
        parsers = _parsers(self.client)
        if parsers is not None and self.full_parser is not None and parsers[EVENT] == self.parse:
            parsers[EVENT] = self.full_parser
        self.full_parser = None

    def parse(self, data: dict[str, Any]) -> None:
        full_parser = self.full_parser
        assert full_parser is not None
        try:
            emoji = data.get("emoji") or {}
            if emoji.get("id") is None and self.fast_path(
                int(data["message_id"]), int(data["user_id"]), emoji.get("name") or ""
            ):
                return
        except Exception:
            log.exception("the fast reaction path failed; handing the event to discord.py")
        full_parser(data)
