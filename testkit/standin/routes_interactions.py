"""The stand-in's interactions routes (a part of `FakeDiscord`)."""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

from .driver import PendingInteraction
from .gateway import Gateway
from .http import (
    INTERACTION_ACK_DEADLINE_S,
    Call,
    _Body,
    _error,
    _HttpError,
    _json,
)
from .modals import modal_problems
from .models import (
    EPHEMERAL,
    LOADING,
    FakeMessage,
    FakeUser,
)


class InteractionsRoutes:
    """Handlers of the interactions resource; state lives on the FakeDiscord instance."""

    # Provided by FakeDiscord.
    bot_user: FakeUser
    gateway: Gateway

    def _interaction(self, token: str) -> PendingInteraction:
        interaction = self.interactions.get(token)
        if interaction is None:
            raise _HttpError(404, 10062)
        return interaction

    async def _callback(
        self, call: Call, body: _Body, interaction_id: str, token: str
    ) -> web.StreamResponse:
        inter = self._interaction(token)
        if str(inter.id) != interaction_id:
            return _error(404, 10062)
        if inter.callback_type is not None:
            return _error(400, 40060)
        elapsed = time.monotonic() - inter.dispatched_at
        if self.enforce_ack_deadline and elapsed > INTERACTION_ACK_DEADLINE_S:
            inter.expired = True
            inter.answered.set()
            self._notify()
            return _error(404, 10062)
        payload = body.json or {}
        kind = int(payload["type"])
        data = payload.get("data") or {}
        channel = self.channels[inter.channel_id]
        message: FakeMessage | None = None
        if kind in (4, 5):  # message / deferred message ("is thinking...")
            flags = int(data.get("flags") or 0)
            message = self.store_message(
                channel,
                self.bot_user,
                data if kind == 4 else {"flags": flags & EPHEMERAL},
                body.files,
                webhook_id=self.application_id,
                type=20 if inter.type == 2 else 0,
                interaction_metadata=inter.metadata(),
            )
            if kind == 5:
                message.flags |= LOADING
            inter.original = message
            await self.announce_message(message)
        elif kind in (6, 7):  # deferred update / update of the clicked message
            message = inter.source_message
            if message is None:
                return _error(400, 50035, "Interaction has no message to update")
            inter.original = message
            if kind == 7:
                self.edit_message(message, data, body.files)
                await self.announce_message(message, "MESSAGE_UPDATE")
        elif kind == 8:
            inter.choices = list(data.get("choices") or [])
        elif kind == 9:
            if inter.type in (4, 5):  # autocomplete, or a modal's own submission
                return _error(400, 50035, "Interaction cannot respond with a modal")
            problems = modal_problems(data)
            if problems:
                self.invalid_modals.append(problems)
                return _error(400, 50035, "Invalid Form Body: " + "; ".join(problems))
            inter.modal = data
        else:
            return _error(400, 50035, f"Unsupported callback type {kind}")
        inter.callback_type = kind
        inter.callback_data = data
        inter.callback_files = [(f.filename, f.data) for f in body.files.values()]
        inter.callback_at = time.monotonic()
        inter.answered.set()
        self._notify()
        response: dict[str, Any] = {
            "interaction": {
                "id": str(inter.id),
                "type": inter.type,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(message and message.ephemeral),
            },
            "resource": {"type": kind},
        }
        if message is not None and kind != 6:
            response["interaction"]["response_message_id"] = str(message.id)
            response["resource"]["message"] = message.payload(self.bot_user.id)
        return _json(response)

    async def _post_followup(
        self, call: Call, body: _Body, app_id: str, token: str
    ) -> web.StreamResponse:
        inter = self._interaction(token)
        if int(app_id) != self.application_id or inter.callback_type is None:
            return _error(404, 10015)
        message = self.store_message(
            self.channels[inter.channel_id],
            self.bot_user,
            body.json or {},
            body.files,
            webhook_id=self.application_id,
            interaction_metadata=inter.metadata(),
        )
        inter.followups.append(message)
        await self.announce_message(message)
        self._notify()
        if call.query.get("wait") in ("true", "True", "1"):
            return _json(message.payload(self.bot_user.id))
        return web.Response(status=204)

    def _hook_message(self, token: str, message_id: str) -> FakeMessage:
        inter = self._interaction(token)
        if message_id == "@original":
            if inter.original is None:
                raise _HttpError(404, 10008)
            return inter.original
        for message in inter.followups:
            if str(message.id) == message_id:
                return message
        raise _HttpError(404, 10008)

    async def _get_hook_message(
        self, call: Call, body: _Body, app_id: str, token: str, message_id: str
    ) -> web.StreamResponse:
        return _json(self._hook_message(token, message_id).payload(self.bot_user.id))

    async def _patch_hook_message(
        self, call: Call, body: _Body, app_id: str, token: str, message_id: str
    ) -> web.StreamResponse:
        message = self._hook_message(token, message_id)
        if message.deleted:
            return _error(404, 10008)
        self.edit_message(message, body.json or {}, body.files)
        await self.announce_message(message, "MESSAGE_UPDATE")
        return _json(message.payload(self.bot_user.id))

    async def _delete_hook_message(
        self, call: Call, body: _Body, app_id: str, token: str, message_id: str
    ) -> web.StreamResponse:
        await self.remove_message(self._hook_message(token, message_id))
        return web.Response(status=204)
