"""The stand-in's meta routes (a part of `FakeDiscord`)."""

from __future__ import annotations

from aiohttp import web

from .gateway import Gateway
from .http import (
    Call,
    _Body,
    _error,
    _json,
)
from .models import FakeUser


class MetaRoutes:
    """Handlers of the meta resource; state lives on the FakeDiscord instance."""

    # Provided by FakeDiscord.
    bot_user: FakeUser
    gateway: Gateway
    max_concurrency: int

    async def _get_gateway_bot(self, call: Call, body: _Body) -> web.StreamResponse:
        limit = {
            "total": 1000,
            "remaining": 999,
            "reset_after": 0,
            "max_concurrency": self.max_concurrency,
        }
        return _json(
            {"url": self.gateway_url, "shards": self.shard_count, "session_start_limit": limit}
        )

    async def _get_gateway(self, call: Call, body: _Body) -> web.StreamResponse:
        return _json({"url": self.gateway_url})

    async def _get_me(self, call: Call, body: _Body) -> web.StreamResponse:
        return _json({**self.bot_user.payload(), "verified": True, "mfa_enabled": False})

    async def _get_user(self, call: Call, body: _Body, user_id: str) -> web.StreamResponse:
        user = self.users.get(int(user_id))
        return _json(user.payload()) if user else _error(404, 10013)

    async def _get_application(self, call: Call, body: _Body) -> web.StreamResponse:
        return _json(
            {
                "id": str(self.application_id),
                "name": self.bot_user.username,
                "icon": None,
                "description": "",
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": self.admin.payload(),
                "verify_key": "0" * 64,
                "flags": 0,
                "bot": self.bot_user.payload(),
            }
        )
