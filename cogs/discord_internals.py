"""The one place that touches discord.py's private surfaces.

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
from collections.abc import Callable
from typing import Any

import discord

EVENT = "MESSAGE_REACTION_ADD"
log = logging.getLogger("quiztutor.daily")

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
