"""Direct messages in the stand-in (a part of `FakeDiscord`): the bot opens a DM channel
with `POST /users/@me/channels {recipient_id}` (type 1, one per user) and sends there
with `POST /channels/{id}/messages`, like in any channel.

Members who do not accept DMs (server privacy settings, or the bot blocked) are switched
with `refuse_dms(user)`: Discord still opens the channel, but refuses every message with
403 and code 50007 "Cannot send messages to this user", as here.
"""

# The driver API takes per-call `timeout=` arguments on purpose (tests pass short ones).
# ruff: noqa: ASYNC109

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiohttp import web

from .http import Call, _Body, _error, _json
from .models import FakeChannel, FakeMessage, FakeUser

if TYPE_CHECKING:
    from .server import FakeDiscord

CANNOT_DM = 50007


class DmsRoutes:
    """DM channels, the per-user refusal switch, and what tests read of DMs."""

    async def _create_dm(self: FakeDiscord, call: Call, body: _Body) -> web.StreamResponse:
        recipient = self.users.get(int((body.json or {}).get("recipient_id") or 0))
        if recipient is None:
            return _error(404, 10013)
        return _json(self.dm_channel(recipient).payload())

    def dm_channel(self: FakeDiscord, user: FakeUser) -> FakeChannel:
        """The (one) DM channel between the bot and ``user``."""
        for channel in self.channels.values():
            if channel.type == 1 and channel.recipient is user:
                return channel
        channel = FakeChannel(self.snowflakes.next(), "", None, type=1, recipient=user)
        self.channels[channel.id] = channel
        return channel

    def refuse_dms(self: FakeDiscord, user: FakeUser, refuse: bool = True) -> None:
        """``user`` does (not) accept DMs from the bot: sends there get 403 / 50007."""
        if refuse:
            self.dm_refusers.add(user.id)
        else:
            self.dm_refusers.discard(user.id)

    def _refused_dm(self: FakeDiscord, channel: FakeChannel) -> web.Response | None:
        """The error for a message to a DM channel whose recipient refuses DMs, else None."""
        if channel.type == 1 and channel.recipient is not None:
            if channel.recipient.id in self.dm_refusers:
                return _error(403, CANNOT_DM, "Cannot send messages to this user")
        return None

    def dms(self: FakeDiscord, user: FakeUser) -> list[FakeMessage]:
        """What the bot sent ``user`` by DM, oldest first."""
        channel = self.dm_channel(user)
        return self.messages(channel)

    async def wait_for_dm(
        self: FakeDiscord, user: FakeUser, predicate: Any = lambda m: True, timeout: float = 5.0
    ) -> FakeMessage:
        channel = self.dm_channel(user)
        return await self.wait_until(
            lambda: next((m for m in self.messages(channel) if predicate(m)), None),
            timeout,
            f"a DM to {user.username}",
        )
