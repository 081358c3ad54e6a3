"""The one place that changes discord.py's class attributes (pinned: discord.py>=2.4,<3).

Endpoints: point discord.py at another Discord API endpoint (an HTTP proxy or a local
stand-in).

Self-hosters that scale out put an HTTP proxy in front of Discord (one shared rate-limit
view for many bot processes); the test suite points the bot at a local fake of the API.
Both need the unmodified discord.py client to talk to a different host, and discord.py has
no setting for that, so :func:`redirect_discord` patches the few class attributes that hold
the hard-coded Discord hosts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import discord
import discord.http
import yarl
from discord.asset import Asset
from discord.gateway import DiscordWebSocket

__all__ = ["normalize_api_base", "redirect_discord"]

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
