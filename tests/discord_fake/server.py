"""A local stand-in of the Discord HTTP API (v10) and gateway for end-to-end tests.

One :class:`FakeDiscord` is an aiohttp app on ``127.0.0.1`` (random free port) holding
guilds, channels, messages, reactions and registered application commands. The state
outlives bot connections, so a test can stop a bot and start another one (even in a
subprocess) against the same stand-in. Tests play users through the driver methods
(:mod:`tests.discord_fake.driver`).
"""

# The driver API takes per-call `timeout=` arguments on purpose (tests pass short ones).
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import collections
import math
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import BodyPartReader, web

from .driver import Driver, PendingInteraction
from .gateway import Gateway
from .models import (
    ADMIN_PERMISSIONS,
    BOT_PERMISSIONS,
    EPHEMERAL,
    EVERYONE_PERMISSIONS,
    LOADING,
    Emoji,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    Snowflakes,
    iso_now,
)

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
    50035: "Invalid Form Body",
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


class FakeDiscord(Driver):
    """Discord stand-in: state store, HTTP routes, gateway, failure injection.

    Construct, then ``await start()`` (or ``async with FakeDiscord() as fake``). A default
    guild is created: ``fake.guild`` with ``fake.channel`` (#general) and ``fake.channel2``
    (#quiz), ``fake.admin`` (has MANAGE_GUILD) and ``fake.users`` (plain members with
    locales en-US, id, de).
    """

    def __init__(
        self, *, token: str = "fake-token", heartbeat_interval_ms: int = 5000, shard_count: int = 1
    ) -> None:
        self.token = token
        # What GET /gateway/bot recommends; events are routed by each session's own
        # IDENTIFY shard [id, count] either way (see Gateway.owns).
        self.shard_count = shard_count
        self.snowflakes = Snowflakes()
        self.bot_user = FakeUser(self.snowflakes.next(), "quiztutor", bot=True)
        self.application_id = self.bot_user.id
        self.users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.message_store: dict[int, FakeMessage] = {}
        self.channel_log: dict[int, list[int]] = collections.defaultdict(list)
        # scope (None: global, else guild id) -> command name -> command payload
        self.commands: dict[int | None, dict[str, dict[str, Any]]] = {}
        self.interactions: dict[str, PendingInteraction] = {}
        self.calls: list[Call] = []
        self.unknown_routes: list[Call] = []
        self.injections: list[Injection] = []
        self.rate_limited: list[Call] = []
        self.bot_errors: list[str] = []  # discord.py error logs, filled by run_client
        # Optional per-channel message limit (count, per seconds) -> 429, for benchmarks.
        self.channel_rate_limit: tuple[int, float] | None = None
        self._channel_posts: dict[int, collections.deque[float]] = collections.defaultdict(
            collections.deque
        )
        self.enforce_ack_deadline = True
        self.gateway = Gateway(self, heartbeat_interval_ms)
        self._ws_clients: set[web.WebSocketResponse] = set()
        self._waiters: set[asyncio.Future[None]] = set()
        self._uploads: dict[int, FakeAttachment] = {}  # attachment options of interactions
        self._drop_mark = 0
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []
        self._register_routes()
        self._seed_default_guild()

    # ------------------------------------------------------------------ lifecycle

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def start(self) -> FakeDiscord:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_route("*", "/{tail:.*}", self._handle_http)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None and server.sockets  # type: ignore[attr-defined]
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        return self

    async def stop(self) -> None:
        for ws in list(self._ws_clients):
            await ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        for fut in self._waiters:
            if not fut.done():
                fut.cancel()

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def env(self) -> dict[str, str]:
        """Environment for a bot subprocess: it calls ``redirect_discord`` with these."""
        return {
            "DISCORD_API_BASE": self.api_base,
            "DISCORD_GATEWAY_URL": self.gateway_url,
            "DISCORD_CDN_BASE": self.url,
            "DISCORD_TOKEN": self.token,
        }

    # ------------------------------------------------------------------ waiting

    def _notify(self) -> None:
        """Wake every ``wait_until``: called after each state change (event-driven waits)."""
        waiters, self._waiters = self._waiters, set()
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    async def wait_until(self, predicate: Callable[[], Any], timeout: float, what: str) -> Any:
        """Return ``predicate()`` once truthy; re-checked on every state change."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                errors = f"; bot errors: {self.bot_errors}" if self.bot_errors else ""
                raise TimeoutError(
                    f"discord_fake: timed out after {timeout}s waiting for {what}{errors}"
                )
            fut: asyncio.Future[None] = loop.create_future()
            self._waiters.add(fut)
            try:
                await asyncio.wait_for(fut, remaining)
            except TimeoutError:
                continue

    # ------------------------------------------------------------------ seed data

    def _seed_default_guild(self) -> None:
        self.admin = FakeUser(self.snowflakes.next(), "alice_admin", locale="en-US")
        self.users_list = [
            FakeUser(self.snowflakes.next(), "bob", locale="en-US"),
            FakeUser(self.snowflakes.next(), "citra", locale="id"),
            FakeUser(self.snowflakes.next(), "dora", locale="de"),
        ]
        self.guild = self.add_guild(
            "Study Group",
            channels=("general", "quiz"),
            admins=[self.admin],
            members=self.users_list,
        )
        self.channel, self.channel2 = self.guild.text_channels[:2]

    def add_user(self, username: str, *, locale: str = "en-US", bot: bool = False) -> FakeUser:
        user = FakeUser(self.snowflakes.next(), username, locale=locale, bot=bot)
        self.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str = "Guild",
        *,
        channels: tuple[str, ...] | list[str] = ("general",),
        admins: list[FakeUser] = (),  # type: ignore[assignment]
        members: list[FakeUser] = (),  # type: ignore[assignment]
        locale: str = "en-US",
        shard: int | None = None,
    ) -> FakeGuild:
        """Create a guild (owner: a separate user) with text channels, roles and members.

        `shard`: give it an id on that shard of `shard_count` (Discord's formula).
        Adding it after a bot connected needs ``await fake.announce_guild(guild)``.
        """
        owner = self.add_user(f"{name.lower().replace(' ', '_')}_owner")
        guild_id = (
            self.snowflakes.next()
            if shard is None
            else self.snowflakes.next_on_shard(shard, self.shard_count)
        )
        guild = FakeGuild(guild_id, name, owner.id, locale=locale)
        guild.roles[guild.id] = FakeRole(guild.id, "@everyone", EVERYONE_PERMISSIONS)
        admin_role = FakeRole(self.snowflakes.next(), "Quiz Admin", ADMIN_PERMISSIONS, position=2)
        bot_role = FakeRole(
            self.snowflakes.next(), "quiztutor", BOT_PERMISSIONS, position=1, managed=True
        )
        guild.roles[admin_role.id] = admin_role
        guild.roles[bot_role.id] = bot_role
        guild.members[owner.id] = FakeMember(owner)
        guild.members[self.bot_user.id] = FakeMember(self.bot_user, [bot_role.id])
        for user in admins:
            self.users[user.id] = user
            guild.members[user.id] = FakeMember(user, [admin_role.id])
        for user in members:
            self.users[user.id] = user
            guild.members[user.id] = FakeMember(user)
        self.guilds[guild.id] = guild
        for channel_name in channels:
            self.add_channel(guild, channel_name)
        return guild

    def admin_role(self, guild: FakeGuild) -> FakeRole:
        return next(r for r in guild.roles.values() if r.name == "Quiz Admin")

    def add_channel(self, guild: FakeGuild, name: str) -> FakeChannel:
        channel = FakeChannel(self.snowflakes.next(), name, guild.id, position=len(guild.channels))
        guild.channels[channel.id] = channel
        self.channels[channel.id] = channel
        return channel

    def add_member(self, guild: FakeGuild, user: FakeUser, *, admin: bool = False) -> FakeMember:
        self.users[user.id] = user
        roles = [self.admin_role(guild).id] if admin else []
        guild.members[user.id] = member = FakeMember(user, roles)
        return member

    async def announce_guild(self, guild: FakeGuild) -> None:
        """Dispatch GUILD_CREATE for a guild added while a bot is connected."""
        await self.gateway.dispatch("GUILD_CREATE", guild.payload())

    # ------------------------------------------------------------------ failures

    def rate_limit(
        self,
        method: str,
        path_regex: str,
        times: int = 1,
        retry_after: float = 0.05,
        global_: bool = False,
    ) -> Injection:
        """Answer the next ``times`` matching requests with 429 (discord.py retries)."""
        body = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": global_,
            "code": 0,
        }
        headers = {
            "Retry-After": str(max(1, math.ceil(retry_after))),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset-After": f"{retry_after:.3f}",
            "X-RateLimit-Scope": "global" if global_ else "user",
            # discord.py treats a 429 without Via as a Cloudflare ban and gives up.
            "Via": "1.1 google",
        }
        if global_:
            headers["X-RateLimit-Global"] = "true"
        return self._inject(method, path_regex, 429, body, headers, times)

    def fail(
        self,
        method: str,
        path_regex: str,
        status: int = 403,
        code: int = 50013,
        times: int | None = None,
        message: str | None = None,
    ) -> Injection:
        """Answer matching requests with a Discord error (default: 403 Missing Permissions)."""
        body = {"message": message or _ERROR_MESSAGES.get(code, "Error"), "code": code}
        return self._inject(method, path_regex, status, body, {}, times)

    def _inject(
        self,
        method: str,
        path_regex: str,
        status: int,
        body: dict[str, Any],
        headers: dict[str, str],
        times: int | None,
    ) -> Injection:
        injection = Injection(method.upper(), re.compile(path_regex), status, body, headers, times)
        self.injections.append(injection)
        return injection

    def clear_failures(self) -> None:
        self.injections.clear()

    # ------------------------------------------------------------------ HTTP plumbing

    def _register_routes(self) -> None:
        app = r"/applications/(?P<app_id>\d+)"
        cmd_scope = rf"{app}(?:/guilds/(?P<guild_id>\d+))?/commands"
        msg = r"/channels/(?P<channel_id>\d+)/messages/(?P<message_id>\d+)"
        react = rf"{msg}/reactions/(?P<emoji>[^/]+)"
        hook = r"/webhooks/(?P<app_id>\d+)/(?P<token>[^/]+)"
        table: list[tuple[str, str, Handler]] = [
            ("GET", r"/gateway/bot", self._get_gateway_bot),
            ("GET", r"/gateway", self._get_gateway),
            ("GET", r"/users/@me", self._get_me),
            ("GET", r"/oauth2/applications/@me", self._get_application),
            ("GET", r"/applications/@me", self._get_application),
            ("GET", r"/users/(?P<user_id>\d+)", self._get_user),
            ("POST", r"/users/@me/channels", self._create_dm),
            ("PUT", cmd_scope, self._put_commands),
            ("GET", cmd_scope, self._get_commands),
            ("POST", cmd_scope, self._post_command),
            ("GET", rf"{cmd_scope}/(?P<command_id>\d+)", self._get_command),
            ("PATCH", rf"{cmd_scope}/(?P<command_id>\d+)", self._patch_command),
            ("DELETE", rf"{cmd_scope}/(?P<command_id>\d+)", self._delete_command),
            ("GET", r"/channels/(?P<channel_id>\d+)", self._get_channel),
            ("POST", r"/channels/(?P<channel_id>\d+)/typing", self._typing),
            ("GET", r"/channels/(?P<channel_id>\d+)/messages", self._get_history),
            ("POST", r"/channels/(?P<channel_id>\d+)/messages", self._post_message),
            ("GET", msg, self._get_message),
            ("PATCH", msg, self._patch_message),
            ("DELETE", msg, self._delete_message),
            ("PUT", rf"{react}/@me", self._put_reaction),
            ("DELETE", rf"{react}/(?P<user>@me|\d+)", self._delete_reaction),
            ("GET", react, self._get_reactions),
            ("DELETE", react, self._clear_emoji),
            ("DELETE", rf"{msg}/reactions", self._clear_reactions),
            (
                "POST",
                r"/interactions/(?P<interaction_id>\d+)/(?P<token>[^/]+)/callback",
                self._callback,
            ),
            ("POST", hook, self._post_followup),
            ("GET", rf"{hook}/messages/(?P<message_id>@original|\d+)", self._get_hook_message),
            ("PATCH", rf"{hook}/messages/(?P<message_id>@original|\d+)", self._patch_hook_message),
            (
                "DELETE",
                rf"{hook}/messages/(?P<message_id>@original|\d+)",
                self._delete_hook_message,
            ),
            ("GET", r"/guilds/(?P<guild_id>\d+)", self._get_guild),
            ("GET", r"/guilds/(?P<guild_id>\d+)/channels", self._get_guild_channels),
            ("GET", r"/guilds/(?P<guild_id>\d+)/roles", self._get_guild_roles),
            ("GET", r"/guilds/(?P<guild_id>\d+)/members", self._get_guild_members),
            ("GET", r"/guilds/(?P<guild_id>\d+)/members/(?P<user_id>\d+)", self._get_member),
        ]
        self._routes = [(m, re.compile(f"^{p}$"), h) for m, p, h in table]

    async def _read_body(self, request: web.Request) -> _Body:
        body = _Body()
        if request.content_type.startswith("multipart/"):
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, BodyPartReader):
                    continue  # discord.py never nests multiparts
                name = part.name or ""
                raw = await part.read()
                if name == "payload_json":
                    body.json = orjson.loads(raw)
                elif match := re.fullmatch(r"files\[(\d+)\]", name):
                    body.files[int(match.group(1))] = _Upload(
                        part.filename or f"file{match.group(1)}",
                        bytes(raw),
                        part.headers.get("Content-Type", "application/octet-stream"),
                    )
        elif request.can_read_body:
            raw = await request.read()
            body.json = orjson.loads(raw) if raw else None
        return body

    async def _handle_http(self, request: web.Request) -> web.StreamResponse:
        if request.path.startswith("/attachments/"):
            return self._serve_attachment(request)
        match = _API_PREFIX.match(request.path)
        rel = match.group(2) if match else request.path
        body = await self._read_body(request)
        call = Call(
            request.method,
            rel,
            dict(request.query),
            body.json,
            [(f.filename, len(f.data)) for f in body.files.values()],
            time.monotonic(),
        )
        self.calls.append(call)
        response = await self._route(request, call, body, rel, bool(match))
        call.status = response.status
        self._notify()
        return response

    async def _route(
        self, request: web.Request, call: Call, body: _Body, rel: str, versioned: bool
    ) -> web.StreamResponse:
        for injection in self.injections:
            if injection.matches(call.method, rel):
                injection.hits += 1
                if injection.status == 429:
                    self.rate_limited.append(call)
                return _json(injection.body, injection.status, injection.headers)
        for method, pattern, handler in self._routes if versioned else []:
            if method != call.method:
                continue
            found = pattern.match(rel)
            if found is None:
                continue
            needs_auth = not rel.startswith(("/interactions/", "/webhooks/"))
            if needs_auth and request.headers.get("Authorization") != f"Bot {self.token}":
                return _json({"message": "401: Unauthorized", "code": 0}, 401)
            try:
                return await handler(call, body, **found.groupdict())
            except _HttpError as exc:
                return _error(exc.status, exc.code)
        self.unknown_routes.append(call)
        return _error(404, 0)

    def _serve_attachment(self, request: web.Request) -> web.StreamResponse:
        # /attachments/{channel}/{attachment}/{filename}: the "CDN" for stored uploads.
        parts = request.path.split("/")
        wanted = int(parts[3]) if len(parts) > 3 and parts[3].isdigit() else -1
        candidates = [a for m in self.message_store.values() for a in m.attachments]
        for att in [*candidates, *self._uploads.values()]:
            if att.id == wanted:
                return web.Response(body=att.data, content_type=att.content_type)
        call = Call(request.method, request.path, dict(request.query), None, [], time.monotonic())
        self.unknown_routes.append(call)
        return _error(404, 0)

    # ------------------------------------------------------------------ lookups

    def user(self, user_id: int | str) -> FakeUser:
        return self.users[int(user_id)]

    def _channel_or_404(self, channel_id: str) -> FakeChannel:
        channel = self.channels.get(int(channel_id))
        if channel is None:
            raise _HttpError(404, 10003)
        return channel

    def _message_or_404(self, channel_id: str, message_id: str) -> FakeMessage:
        self._channel_or_404(channel_id)
        message = self.message_store.get(int(message_id))
        if message is None or message.deleted or message.channel_id != int(channel_id):
            raise _HttpError(404, 10008)
        return message

    def _member_payload(self, guild: FakeGuild, user: FakeUser) -> dict[str, Any]:
        member = guild.members.get(user.id) or FakeMember(user)
        return {**member.payload(), "permissions": str(guild.permissions_of(user.id))}

    # ------------------------------------------------------------------ message store

    def store_message(
        self,
        channel: FakeChannel,
        author: FakeUser,
        payload: dict[str, Any],
        files: dict[int, _Upload] | None = None,
        **extra: Any,
    ) -> FakeMessage:
        message = FakeMessage(
            id=self.snowflakes.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=author,
            content=payload.get("content") or "",
            embeds=list(payload.get("embeds") or []),
            components=list(payload.get("components") or []),
            flags=int(payload.get("flags") or 0) & ~LOADING,
            message_reference=payload.get("message_reference"),
            poll=payload.get("poll"),
            **extra,
        )
        message.attachments = self._new_attachments(
            channel.id, payload.get("attachments") or [], files or {}
        )
        self.message_store[message.id] = message
        if not message.ephemeral:
            self.channel_log[channel.id].append(message.id)
            channel.last_message_id = message.id
        self._notify()
        return message

    def _new_attachments(
        self, channel_id: int, entries: list[dict[str, Any]], files: dict[int, _Upload]
    ) -> list[FakeAttachment]:
        described = {int(e["id"]): e for e in entries if str(e.get("id", "")).isdigit()}
        result = []
        for index, upload in sorted(files.items()):
            entry = described.get(index, {})
            att_id = self.snowflakes.next()
            filename = entry.get("filename") or upload.filename
            result.append(
                FakeAttachment(
                    att_id,
                    filename,
                    upload.data,
                    upload.content_type,
                    entry.get("description"),
                    url=f"{self.url}/attachments/{channel_id}/{att_id}/{filename}",
                )
            )
        return result

    def edit_message(
        self, message: FakeMessage, payload: dict[str, Any], files: dict[int, _Upload]
    ) -> FakeMessage:
        if "content" in payload:
            message.content = payload["content"] or ""
        for key in ("embeds", "components"):
            if key in payload:
                setattr(message, key, list(payload[key] or []))
        if payload.get("flags") is not None:
            message.flags = (message.flags & EPHEMERAL) | (int(payload["flags"]) & ~EPHEMERAL)
        message.flags &= ~LOADING  # any edit ends a deferred "thinking..." state
        if "attachments" in payload:
            keep = {str(e["id"]) for e in payload["attachments"] or []}
            message.attachments = [a for a in message.attachments if str(a.id) in keep]
        message.attachments += self._new_attachments(
            message.channel_id, payload.get("attachments") or [], files
        )
        if "poll" in payload:
            message.poll = payload["poll"]
        message.edited_timestamp = iso_now()
        message.edits += 1
        self._notify()
        return message

    async def announce_message(self, message: FakeMessage, event: str = "MESSAGE_CREATE") -> None:
        if message.ephemeral:
            return  # ephemeral messages are never dispatched to bots
        data = message.payload()
        if message.guild_id is not None and event == "MESSAGE_CREATE":
            guild = self.guilds[message.guild_id]
            member = guild.members.get(message.author.id)
            if member is not None:
                data["member"] = {k: v for k, v in member.payload().items() if k != "user"}
        await self.gateway.dispatch(event, data)

    # ------------------------------------------------------------------ routes: meta

    async def _get_gateway_bot(self, call: Call, body: _Body) -> web.StreamResponse:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
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

    async def _create_dm(self, call: Call, body: _Body) -> web.StreamResponse:
        recipient = self.users.get(int(body.json["recipient_id"]))
        if recipient is None:
            return _error(404, 10013)
        return _json(self.dm_channel(recipient).payload())

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The (one) DM channel between the bot and ``user``."""
        for channel in self.channels.values():
            if channel.type == 1 and channel.recipient is user:
                return channel
        channel = FakeChannel(self.snowflakes.next(), "", None, type=1, recipient=user)
        self.channels[channel.id] = channel
        return channel

    # ------------------------------------------------------------------ routes: commands

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

    # ------------------------------------------------------------------ routes: channels

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

    async def _post_message(self, call: Call, body: _Body, channel_id: str) -> web.StreamResponse:
        channel = self._channel_or_404(channel_id)
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
            for earlier_id in reversed(self.channel_log[channel.id]):
                earlier = self.message_store[earlier_id]
                if earlier.nonce == str(nonce) and earlier.author is self.bot_user:
                    return _json(earlier.payload(self.bot_user.id))
        message = self.store_message(
            channel, self.bot_user, payload, body.files, nonce=None if nonce is None else str(nonce)
        )
        await self.announce_message(message)
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

    # ------------------------------------------------------------------ routes: reactions

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

    # ------------------------------------------------------------------ routes: interactions

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
            inter.modal = data
        else:
            return _error(400, 50035, f"Unsupported callback type {kind}")
        inter.callback_type = kind
        inter.callback_data = data
        inter.callback_files = [(f.filename, f.data) for f in body.files.values()]
        inter.callback_at = time.monotonic()
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

    # ------------------------------------------------------------------ routes: guilds

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
