"""The stand-in's commands routes (a part of `FakeDiscord`)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from .gateway import Gateway
from .http import (
    Call,
    _Body,
    _HttpError,
    _json,
)
from .models import (
    FakeUser,
)


class CommandsRoutes:
    """Handlers of the commands resource; state lives on the FakeDiscord instance."""

    # Provided by FakeDiscord.
    bot_user: FakeUser
    gateway: Gateway

    def _scope(self, app_id: str, guild_id: str | None) -> dict[str, dict[str, Any]]:
        if int(app_id) != self.application_id:
            raise _HttpError(403, 50001)
        return self.commands.setdefault(int(guild_id) if guild_id else None, {})

    def _stored_command(
        self,
        scope: dict[str, dict[str, Any]],
        data: dict[str, Any],
        app_id: str,
        guild_id: str | None,
    ) -> dict[str, Any]:
        old = scope.get(data["name"])
        command = {
            "type": 1,
            "description": "",
            "options": [],
            "default_member_permissions": None,
            "nsfw": False,
            **data,
            "id": old["id"] if old else str(self.snowflakes.next()),
            "application_id": app_id,
            "version": str(self.snowflakes.next()),
        }
        if guild_id:
            command["guild_id"] = guild_id
        scope[data["name"]] = command
        return command

    async def _put_commands(
        self, call: Call, body: _Body, app_id: str, guild_id: str | None
    ) -> web.StreamResponse:
        scope = self._scope(app_id, guild_id)
        previous = dict(scope)
        scope.clear()
        result = []
        for data in body.json or []:
            if data["name"] in previous:  # bulk overwrite keeps ids of surviving names
                scope[data["name"]] = previous[data["name"]]
            result.append(self._stored_command(scope, data, app_id, guild_id))
        self._notify()
        return _json(result)

    async def _get_commands(
        self, call: Call, body: _Body, app_id: str, guild_id: str | None
    ) -> web.StreamResponse:
        return _json(list(self._scope(app_id, guild_id).values()))

    async def _post_command(
        self, call: Call, body: _Body, app_id: str, guild_id: str | None
    ) -> web.StreamResponse:
        command = self._stored_command(self._scope(app_id, guild_id), body.json, app_id, guild_id)
        self._notify()
        return _json(command, status=201)

    def _command_by_id(
        self, app_id: str, guild_id: str | None, command_id: str
    ) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        scope = self._scope(app_id, guild_id)
        for command in scope.values():
            if command["id"] == command_id:
                return scope, command
        raise _HttpError(404, 10063)

    async def _get_command(
        self, call: Call, body: _Body, app_id: str, guild_id: str | None, command_id: str
    ) -> web.StreamResponse:
        return _json(self._command_by_id(app_id, guild_id, command_id)[1])

    async def _patch_command(
        self, call: Call, body: _Body, app_id: str, guild_id: str | None, command_id: str
    ) -> web.StreamResponse:
        scope, command = self._command_by_id(app_id, guild_id, command_id)
        del scope[command["name"]]
        merged = {k: v for k, v in command.items() if k not in ("id", "version")}
        merged.update(body.json or {})
        scope[merged["name"]] = command  # keep id
        return _json(self._stored_command(scope, merged, app_id, guild_id))

    async def _delete_command(
        self, call: Call, body: _Body, app_id: str, guild_id: str | None, command_id: str
    ) -> web.StreamResponse:
        scope, command = self._command_by_id(app_id, guild_id, command_id)
        del scope[command["name"]]
        return web.Response(status=204)
