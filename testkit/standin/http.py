"""The stand-in's HTTP plumbing shared by its resources: calls, injections, bodies, JSON."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web

Json = Any
Handler = Callable[..., Awaitable[web.StreamResponse]]

_API_PREFIX = re.compile(r"^/api(?:/v(\d+))?(/.*)$")
_ERROR_MESSAGES = {
    0: "404: Not Found",
    10003: "Unknown Channel",
    10004: "Unknown Guild",
    10008: "Unknown Message",
    10013: "Unknown User",
    10015: "Unknown Webhook",
    10062: "Unknown interaction",
    10063: "Unknown application command",
    40060: "Interaction has already been acknowledged.",
    50001: "Missing Access",
    50013: "Missing Permissions",
    50007: "Cannot send messages to this user",
    50024: "Cannot execute action on this channel type",
    50035: "Invalid Form Body",
    160004: "A thread has already been created for this message",
}
# Interaction callbacks arriving later than this are rejected, as Discord does.
INTERACTION_ACK_DEADLINE_S = 3.0


@dataclass
class Call:
    """One HTTP request the bot made (``path`` is relative to ``/api/v10``)."""

    method: str
    path: str
    query: dict[str, str]
    json: Json
    files: list[tuple[str, int]]
    time: float
    status: int = 0


@dataclass
class Injection:
    """A scripted failure: requests matching ``method``/``pattern`` get ``status``."""

    method: str
    pattern: re.Pattern[str]
    status: int
    body: dict[str, Any]
    headers: dict[str, str]
    times: int | None
    hits: int = 0

    def matches(self, method: str, path: str) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        return self.method in ("*", method) and bool(self.pattern.search(path))


@dataclass
class _Upload:
    filename: str
    data: bytes
    content_type: str


@dataclass
class _Body:
    json: Json = None
    files: dict[int, _Upload] = field(default_factory=dict)


class _HttpError(Exception):
    """Raised by lookups; turned into Discord's error JSON by :func:`_error`."""

    def __init__(self, status: int, code: int) -> None:
        super().__init__(status, code)
        self.status = status
        self.code = code


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    # Exactly "application/json": discord.py's json_or_text compares the header verbatim.
    return web.Response(
        body=orjson.dumps(data), status=status, content_type="application/json", headers=headers
    )


def _error(status: int, code: int, message: str | None = None) -> web.Response:
    text = message or _ERROR_MESSAGES.get(code, "Error")
    return _json({"message": text, "code": code}, status=status)
