"""The stand-in's channels routes (a part of `FakeDiscord`)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from aiohttp import web

from .gateway import Gateway
from .http import (
    Call,
    _Body,
    _error,
    _json,
)
from .models import (
    DISCORD_EPOCH_MS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    FakeChannel,
    FakeMessage,
    FakeUser,
)


class ChannelsRoutes:
    """Handlers of the channels resource; state lives on the FakeDiscord instance."""

    # Provided by FakeDiscord.
    bot_user: FakeUser
    gateway: Gateway
    # How long Discord recognises a nonce (a few minutes); tests shorten it to act as if
    # the window had passed.
    nonce_window_s: float
    after_message_stored: Callable[[FakeMessage], Awaitable[None]] | None

    async def _get_channel(self, call: Call, body: _Body, channel_id: str) -> web.StreamResponse:
        return _json(self._channel_or_404(channel_id).payload())

    async def _typing(self, call: Call, body: _Body, channel_id: str) -> web.StreamResponse:
        self._channel_or_404(channel_id)
        return web.Response(status=204)

    async def _get_history(self, call: Call, body: _Body, channel_id: str) -> web.StreamResponse:
        self._channel_or_404(channel_id)
        limit = max(1, min(100, int(call.query.get("limit", 50))))
        ids = [i for i in self.channel_log[int(channel_id)] if not self.message_store[i].deleted]
        if "after" in call.query:
            after = int(call.query["after"])
            picked = [i for i in ids if i > after][:limit]
        elif "around" in call.query:
            around = int(call.query["around"])
            older = [i for i in ids if i <= around][-(limit // 2 + 1) :]
            newer = [i for i in ids if i > around][: limit - len(older)]
            picked = older + newer
        else:
            before = int(call.query.get("before", 1 << 63))
            picked = [i for i in ids if i < before][-limit:]
        # Discord returns newest first in every mode.
        return _json([self.message_store[i].payload(self.bot_user.id) for i in reversed(picked)])

    def _check_channel_rate(self, channel_id: int) -> float | None:
        if self.channel_rate_limit is None:
            return None
        count, per = self.channel_rate_limit
        now = time.monotonic()
        window = self._channel_posts[channel_id]
        while window and now - window[0] >= per:
            window.popleft()
        if len(window) >= count:
            return per - (now - window[0])
        window.append(now)
        return None

    def _may_send(self, channel: FakeChannel) -> bool:
        """View Channel and Send Messages (in a thread: Send Messages in Threads)."""
        if channel.guild_id is None:
            return True
        perms = self.guilds[channel.guild_id].permissions_in(channel, self.bot_user.id)
        needed = VIEW_CHANNEL | (SEND_MESSAGES_IN_THREADS if channel.is_thread else SEND_MESSAGES)
        return perms & needed == needed

    async def _post_message(self, call: Call, body: _Body, channel_id: str) -> web.StreamResponse:
        channel = self._channel_or_404(channel_id)
        refused = self._refused_dm(channel)
        if refused is not None:
            return refused
        if not self._may_send(channel):
            return _error(403, 50013)
        retry_after = self._check_channel_rate(channel.id)
        if retry_after is not None:
            self.rate_limited.append(call)
            return _json(
                {
                    "message": "You are being rate limited.",
                    "retry_after": retry_after,
                    "global": False,
                    "code": 20028,
                },
                status=429,
                headers={"Via": "1.1 google", "X-RateLimit-Scope": "shared", "Retry-After": "1"},
            )
        payload = body.json or {}
        if not (
            payload.get("content")
            or payload.get("embeds")
            or payload.get("components")
            or body.files
            or payload.get("poll")
        ):
            return _error(400, 50006, "Cannot send an empty message")
        nonce = payload.get("nonce")
        if nonce is not None and payload.get("enforce_nonce"):
            # Discord returns the message already created with this nonce (by this
            # author, in the last few minutes) instead of creating a second one.
            oldest = (int((time.time() - self.nonce_window_s) * 1000) - DISCORD_EPOCH_MS) << 22
            for earlier_id in reversed(self.channel_log[channel.id]):
                if earlier_id < oldest:
                    break  # older than the window: Discord has forgotten the nonce
                earlier = self.message_store[earlier_id]
                if earlier.nonce == str(nonce) and earlier.author is self.bot_user:
                    return _json(earlier.payload(self.bot_user.id))
        message = self.store_message(
            channel, self.bot_user, payload, body.files, nonce=None if nonce is None else str(nonce)
        )
        channel.message_count += 1
        await self.announce_message(message)
        if self.after_message_stored is not None:
            await self.after_message_stored(message)
        return _json(message.payload(self.bot_user.id))

    async def _get_message(
        self, call: Call, body: _Body, channel_id: str, message_id: str
    ) -> web.StreamResponse:
        return _json(self._message_or_404(channel_id, message_id).payload(self.bot_user.id))

    async def _patch_message(
        self, call: Call, body: _Body, channel_id: str, message_id: str
    ) -> web.StreamResponse:
        message = self._message_or_404(channel_id, message_id)
        if message.author is not self.bot_user:
            return _error(403, 50005, "Cannot edit a message authored by another user")
        self.edit_message(message, body.json or {}, body.files)
        await self.announce_message(message, "MESSAGE_UPDATE")
        return _json(message.payload(self.bot_user.id))

    async def _delete_message(
        self, call: Call, body: _Body, channel_id: str, message_id: str
    ) -> web.StreamResponse:
        message = self._message_or_404(channel_id, message_id)
        await self.remove_message(message)
        return web.Response(status=204)

    async def remove_message(self, message: FakeMessage) -> None:
        message.deleted = True
        self._notify()
        data = {"id": str(message.id), "channel_id": str(message.channel_id)}
        if message.guild_id is not None:
            data["guild_id"] = str(message.guild_id)
        if not message.ephemeral:
            await self.gateway.dispatch("MESSAGE_DELETE", data)
