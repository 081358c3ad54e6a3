"""The one place that touches discord.py's private surfaces (pinned: discord.py>=2.4,<3).

Endpoints: point discord.py at another Discord API endpoint (an HTTP proxy or a local
stand-in).

Self-hosters that scale out put an HTTP proxy in front of Discord (one shared rate-limit
view for many bot processes); the test suite points the bot at a local fake of the API.
Both need the unmodified discord.py client to talk to a different host, and discord.py has
no setting for that, so :func:`redirect_discord` patches the few class attributes that hold
the hard-coded Discord hosts.

Reactions without members: discord.py builds a `Member` for every MESSAGE_REACTION_ADD
(`payload.member`), which a bot without the members intent never needs and which cost
15% of the bot's CPU per reaction at a steady 500/s (issue 27, `bench.steady`).
:func:`parse_reactions_without_members` installs discord.py's own parser minus that
`Member`; the event, its fields and every listener are as before. (A replacement that
swallowed the event for the bot's own handler was measured and removed in issue 14.)
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

__all__ = ["normalize_api_base", "parse_reactions_without_members", "redirect_discord"]

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


def parse_reactions_without_members(client: discord.Client) -> bool:
    """Parse MESSAGE_REACTION_ADD as discord.py 2.x does, without building the `Member`
    of `payload.member` (None instead). True when installed.

    Installed only where nothing else of discord.py's parser could run: no members
    intent, and no message cache (its "rich" `on_reaction_add` half needs a cached
    message). discord.py's reaction parser is a bound method in the connection state's
    `parsers` table, looked up per event; a discord.py without that table keeps its own
    parser (False), and the bot works as before, only slower.
    """
    state: Any = getattr(client, "_connection", None)
    parsers = getattr(state, "parsers", None)
    if (
        not isinstance(parsers, dict)
        or "MESSAGE_REACTION_ADD" not in parsers
        or getattr(state, "_messages", True) is not None
        or client.intents.members
    ):
        return False

    def parse_message_reaction_add(data: Any) -> None:
        emoji = discord.PartialEmoji.from_dict(data["emoji"])
        emoji._state = state
        raw = discord.RawReactionActionEvent(data, emoji, "REACTION_ADD")
        raw.member = None
        state.dispatch("raw_reaction_add", raw)

    parsers["MESSAGE_REACTION_ADD"] = parse_message_reaction_add
    return True
