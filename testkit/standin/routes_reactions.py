"""The stand-in's reactions routes (a part of `FakeDiscord`)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from .gateway import Gateway
from .http import (
    Call,
    _Body,
    _json,
)
from .models import (
    Emoji,
    FakeMessage,
    FakeUser,
)


class ReactionsRoutes:
    """Handlers of the reactions resource; state lives on the FakeDiscord instance."""

    # Provided by FakeDiscord.
    bot_user: FakeUser
    gateway: Gateway

    async def _put_reaction(
        self, call: Call, body: _Body, channel_id: str, message_id: str, emoji: str
    ) -> web.StreamResponse:
        message = self._message_or_404(channel_id, message_id)
        await self.add_reaction(message, self.bot_user, Emoji.parse(emoji), dispatch=True)
        return web.Response(status=204)

    async def _delete_reaction(
        self, call: Call, body: _Body, channel_id: str, message_id: str, emoji: str, user: str
    ) -> web.StreamResponse:
        message = self._message_or_404(channel_id, message_id)
        target = self.bot_user if user == "@me" else self.users.get(int(user))
        if target is not None:
            await self.remove_reaction(message, target, Emoji.parse(emoji), dispatch=True)
        return web.Response(status=204)

    async def _get_reactions(
        self, call: Call, body: _Body, channel_id: str, message_id: str, emoji: str
    ) -> web.StreamResponse:
        message = self._message_or_404(channel_id, message_id)
        if int(call.query.get("type", 0)) == 1:
            return _json([])  # no burst (super) reactions are ever stored
        limit = max(1, min(100, int(call.query.get("limit", 25))))
        after = int(call.query.get("after", 0))
        ids = sorted(uid for uid in message.reactors(Emoji.parse(emoji)) if uid > after)
        return _json([self.users[uid].payload() for uid in ids[:limit]])

    async def _clear_emoji(
        self, call: Call, body: _Body, channel_id: str, message_id: str, emoji: str
    ) -> web.StreamResponse:
        message = self._message_or_404(channel_id, message_id)
        parsed = Emoji.parse(emoji)
        message.reactions.pop(parsed.key, None)
        self._notify()
        data = {"channel_id": channel_id, "message_id": message_id, "emoji": parsed.payload()}
        if message.guild_id is not None:
            data["guild_id"] = str(message.guild_id)
        await self.gateway.dispatch("MESSAGE_REACTION_REMOVE_EMOJI", data)
        return web.Response(status=204)

    async def _clear_reactions(
        self, call: Call, body: _Body, channel_id: str, message_id: str
    ) -> web.StreamResponse:
        message = self._message_or_404(channel_id, message_id)
        message.reactions.clear()
        self._notify()
        data = {"channel_id": channel_id, "message_id": message_id}
        if message.guild_id is not None:
            data["guild_id"] = str(message.guild_id)
        await self.gateway.dispatch("MESSAGE_REACTION_REMOVE_ALL", data)
        return web.Response(status=204)

    async def add_reaction(
        self, message: FakeMessage, user: FakeUser, emoji: Emoji, *, dispatch: bool
    ) -> bool:
        """Store a reaction; dispatch MESSAGE_REACTION_ADD if new and ``dispatch``."""
        _, users = message.reactions.setdefault(emoji.key, (emoji, []))
        if user.id in users:
            return False
        users.append(user.id)
        self._notify()
        if dispatch:
            data = self._reaction_event(message, user, emoji)
            data["message_author_id"] = str(message.author.id)
            if message.guild_id is not None:
                data["member"] = self._member_payload(self.guilds[message.guild_id], user)
            await self.gateway.dispatch("MESSAGE_REACTION_ADD", data)
        return True

    async def remove_reaction(
        self, message: FakeMessage, user: FakeUser, emoji: Emoji, *, dispatch: bool
    ) -> bool:
        entry = message.reactions.get(emoji.key)
        if entry is None or user.id not in entry[1]:
            return False
        entry[1].remove(user.id)
        if not entry[1]:
            del message.reactions[emoji.key]
        self._notify()
        if dispatch:
            await self.gateway.dispatch(
                "MESSAGE_REACTION_REMOVE", self._reaction_event(message, user, emoji)
            )
        return True

    def _reaction_event(self, message: FakeMessage, user: FakeUser, emoji: Emoji) -> dict[str, Any]:
        data: dict[str, Any] = {
            "user_id": str(user.id),
            "channel_id": str(message.channel_id),
            "message_id": str(message.id),
            "emoji": emoji.payload(),
            "burst": False,
            "burst_colors": [],
            "type": 0,
        }
        if message.guild_id is not None:
            data["guild_id"] = str(message.guild_id)
        return data
