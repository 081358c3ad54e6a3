"""The stand-in's guilds routes (a part of `FakeDiscord`)."""

from __future__ import annotations

from aiohttp import web

from .gateway import Gateway
from .http import (
    Call,
    _Body,
    _error,
    _HttpError,
    _json,
)
from .models import (
    FakeGuild,
    FakeUser,
)


class GuildsRoutes:
    """Handlers of the guilds resource; state lives on the FakeDiscord instance."""

    # Provided by FakeDiscord.
    bot_user: FakeUser
    gateway: Gateway

    def _guild_or_404(self, guild_id: str) -> FakeGuild:
        guild = self.guilds.get(int(guild_id))
        if guild is None:
            raise _HttpError(404, 10004)
        return guild

    async def _get_guild(self, call: Call, body: _Body, guild_id: str) -> web.StreamResponse:
        data = self._guild_or_404(guild_id).payload(members=[])
        for key in ("members", "channels", "threads", "voice_states", "presences"):
            data.pop(key)
        return _json(data)

    async def _get_guild_channels(
        self, call: Call, body: _Body, guild_id: str
    ) -> web.StreamResponse:
        return _json([c.payload() for c in self._guild_or_404(guild_id).channels.values()])

    async def _get_guild_roles(self, call: Call, body: _Body, guild_id: str) -> web.StreamResponse:
        return _json([r.payload() for r in self._guild_or_404(guild_id).roles.values()])

    async def _get_guild_members(
        self, call: Call, body: _Body, guild_id: str
    ) -> web.StreamResponse:
        guild = self._guild_or_404(guild_id)
        limit = max(1, min(1000, int(call.query.get("limit", 1))))
        after = int(call.query.get("after", 0))
        ids = sorted(uid for uid in guild.members if uid > after)[:limit]
        return _json([guild.members[uid].payload() for uid in ids])

    async def _get_member(
        self, call: Call, body: _Body, guild_id: str, user_id: str
    ) -> web.StreamResponse:
        member = self._guild_or_404(guild_id).members.get(int(user_id))
        return _json(member.payload()) if member else _error(404, 10007, "Unknown Member")
