"""The stand-in's threads (a part of `FakeDiscord`).

A thread is a channel of type 11 (public), 12 (private) or 10 (in an announcement
channel) whose `parent_id` is its text channel; its messages use the ordinary message
routes (`POST /channels/{thread id}/messages`, ...). As on Discord:

* `POST /channels/{id}/messages/{message id}/threads` starts a thread on a message (the
  thread's id is the message's; a second thread on it is 400, code 160004);
* `POST /channels/{id}/threads` starts one without a message (`type` 11 or 12; Discord
  makes a private thread when `type` is omitted);
* creating needs CREATE_PUBLIC_THREADS (or CREATE_PRIVATE_THREADS) in the parent, and
  posting in a thread SEND_MESSAGES_IN_THREADS: 403 with code 50013 otherwise; a name
  must be 1-100 characters (400, 50035); a thread cannot hold a thread (400, 50024);
* THREAD_CREATE (`newly_created`) goes out on the gateway, and GUILD_CREATE lists the
  active threads;
* `DELETE /channels/{thread id}` (MANAGE_THREADS) or `fake.delete_thread(thread)` (a
  moderator) deletes it: its messages are gone (404, 10003 for the channel) and
  THREAD_DELETE goes out.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from .gateway import Gateway
from .http import Call, _Body, _error, _HttpError, _json
from .models import (
    ANNOUNCEMENT_THREAD,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    GUILD_ANNOUNCEMENT,
    GUILD_TEXT,
    MANAGE_THREADS,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    FakeChannel,
    FakeGuild,
    FakeUser,
)

THREAD_NAME_MAX = 100
ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)


class ThreadsRoutes:
    """Handlers of threads; state lives on the FakeDiscord instance."""

    # Provided by FakeDiscord.
    bot_user: FakeUser
    gateway: Gateway

    def _parent_for_thread(self, channel_id: str) -> tuple[FakeGuild, FakeChannel]:
        parent = self._channel_or_404(channel_id)
        if parent.type not in (GUILD_TEXT, GUILD_ANNOUNCEMENT) or parent.guild_id is None:
            raise _HttpError(400, 50024)
        return self.guilds[parent.guild_id], parent

    def _thread_from(
        self,
        parent: FakeChannel,
        guild: FakeGuild,
        payload: dict[str, Any],
        kind: int,
        thread_id: int | None = None,
    ) -> FakeChannel:
        name = str(payload.get("name") or "")
        if not 1 <= len(name) <= THREAD_NAME_MAX:
            raise _HttpError(400, 50035)
        duration = int(payload.get("auto_archive_duration") or 1440)
        if duration not in ARCHIVE_DURATIONS:
            raise _HttpError(400, 50035)
        needed = CREATE_PRIVATE_THREADS if kind == PRIVATE_THREAD else CREATE_PUBLIC_THREADS
        if not guild.permissions_in(parent, self.bot_user.id) & needed:
            raise _HttpError(403, 50013)
        thread = FakeChannel(
            thread_id or self.snowflakes.next(),
            name,
            guild.id,
            type=kind,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
            auto_archive_duration=duration,
        )
        guild.threads[thread.id] = thread
        self.channels[thread.id] = thread
        return thread

    async def _announce_thread(self, thread: FakeChannel) -> web.StreamResponse:
        self._notify()
        await self.gateway.dispatch("THREAD_CREATE", {**thread.payload(), "newly_created": True})
        return _json(thread.payload())

    async def _start_thread_from_message(
        self, call: Call, body: _Body, channel_id: str, message_id: str
    ) -> web.StreamResponse:
        guild, parent = self._parent_for_thread(channel_id)
        message = self._message_or_404(channel_id, message_id)
        if message.id in self.channels:
            raise _HttpError(400, 160004)
        kind = ANNOUNCEMENT_THREAD if parent.type == GUILD_ANNOUNCEMENT else PUBLIC_THREAD
        thread = self._thread_from(parent, guild, body.json or {}, kind, message.id)
        return await self._announce_thread(thread)

    async def _start_thread(self, call: Call, body: _Body, channel_id: str) -> web.StreamResponse:
        payload = body.json or {}
        guild, parent = self._parent_for_thread(channel_id)
        kind = int(payload.get("type") or PRIVATE_THREAD)
        if kind not in (PUBLIC_THREAD, PRIVATE_THREAD, ANNOUNCEMENT_THREAD):
            raise _HttpError(400, 50035)
        thread = self._thread_from(parent, guild, payload, kind)
        return await self._announce_thread(thread)

    async def _delete_channel(self, call: Call, body: _Body, channel_id: str) -> web.StreamResponse:
        channel = self._channel_or_404(channel_id)
        if not channel.is_thread or channel.guild_id is None:
            return _error(403, 50013)  # only threads are deleted here
        guild = self.guilds[channel.guild_id]
        if not guild.permissions_in(channel, self.bot_user.id) & MANAGE_THREADS:
            return _error(403, 50013)
        data = channel.payload()
        await self.delete_thread(channel)
        return _json(data)

    async def delete_thread(self, thread: FakeChannel) -> None:
        """A moderator deletes a thread: its messages go with it; THREAD_DELETE."""
        assert thread.is_thread and thread.guild_id is not None
        guild = self.guilds[thread.guild_id]
        guild.threads.pop(thread.id, None)
        self.channels.pop(thread.id, None)
        for message in self.message_store.values():
            if message.channel_id == thread.id:
                message.deleted = True
        self._notify()
        await self.gateway.dispatch(
            "THREAD_DELETE",
            {
                "id": str(thread.id),
                "guild_id": str(guild.id),
                "parent_id": str(thread.parent_id),
                "type": thread.type,
            },
        )

    def threads_of(self, channel: FakeChannel) -> list[FakeChannel]:
        """The active threads of a channel, oldest first."""
        assert channel.guild_id is not None
        guild = self.guilds[channel.guild_id]
        return [t for t in guild.threads.values() if t.parent_id == channel.id]
