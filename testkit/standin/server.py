"""A local stand-in of the Discord HTTP API (v10) and gateway for end-to-end tests.

One :class:`FakeDiscord` is an aiohttp app on ``127.0.0.1`` (random free port) holding
guilds, channels, messages, reactions and registered application commands. The state
outlives bot connections, so a test can stop a bot and start another one (even in a
subprocess) against the same stand-in. Tests play users through the driver methods
(:mod:`testkit.standin.driver`).

The routes of each resource live in their own module (`routes_*.py`); this module
holds the state, the lifecycle, the seed data, failure injection and the HTTP plumbing.
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
from typing import Any

import orjson
from aiohttp import BodyPartReader, web

from .driver import Driver, PendingInteraction
from .gateway import Gateway
from .http import (
    _API_PREFIX,
    _ERROR_MESSAGES,
    Call,
    Handler,
    Injection,
    _Body,
    _error,
    _HttpError,
    _json,
    _Upload,
)
from .models import (
    ADMIN_PERMISSIONS,
    BOT_PERMISSIONS,
    EPHEMERAL,
    EVERYONE_PERMISSIONS,
    LOADING,
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
from .ratelimits import RouteLimit, RouteLimits, limited_body
from .routes_channels import ChannelsRoutes
from .routes_commands import CommandsRoutes
from .routes_dms import DmsRoutes
from .routes_guilds import GuildsRoutes
from .routes_interactions import InteractionsRoutes
from .routes_meta import MetaRoutes
from .routes_reactions import ReactionsRoutes
from .routes_threads import ThreadsRoutes

# Shaped like a bot token (three base64 parts), as `quiztutor run` checks before connecting.
# Discord: one IDENTIFY per bucket per 5 s.
IDENTIFY_WINDOW_S = 5.0
# Discord keeps a message nonce "for a few minutes".
NONCE_WINDOW_S = 300.0
TOKEN = "MTAwMDAwMDAwMDAwMDAwMDAx.GstNdn.c3RhbmQtaW4tdG9rZW4tZm9yLXRlc3Rz"


class FakeDiscord(
    Driver,
    MetaRoutes,
    CommandsRoutes,
    ChannelsRoutes,
    ThreadsRoutes,
    ReactionsRoutes,
    InteractionsRoutes,
    GuildsRoutes,
    DmsRoutes,
):
    """Discord stand-in: state store, HTTP routes, gateway, failure injection.

    Construct, then ``await start()`` (or ``async with FakeDiscord() as fake``). A default
    guild is created: ``fake.guild`` with ``fake.channel`` (#general) and ``fake.channel2``
    (#quiz), ``fake.admin`` (has MANAGE_GUILD) and ``fake.users`` (plain members with
    locales en-US, id, de).
    """

    def __init__(
        self, *, token: str = TOKEN, heartbeat_interval_ms: int = 5000, shard_count: int = 1
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
        self.dm_refusers: set[int] = set()  # users who refuse DMs (routes_dms)
        self.invalid_modals: list[list[str]] = []  # modals refused for breaking a limit
        # Optional per-channel message limit (count, per seconds) -> 429, for benchmarks.
        self.channel_rate_limit: tuple[int, float] | None = None
        # Opt-in per-route limits answered with Discord's 429 and headers (`limit_route`).
        self.route_limits = RouteLimits()
        self._channel_posts: dict[int, collections.deque[float]] = collections.defaultdict(
            collections.deque
        )
        self.enforce_ack_deadline = True
        # GET /gateway/bot's session_start_limit.max_concurrency, and the IDENTIFY window
        # the gateway enforces per bucket (0 turns the check off).
        self.max_concurrency = 1
        self.identify_window_s = IDENTIFY_WINDOW_S
        # Discord's nonce de-duplication window (a few minutes), under the test's control.
        self.nonce_window_s = NONCE_WINDOW_S
        # Awaited after a bot's message is stored and before Discord answers: a test can
        # kill the bot there (Discord has the message, the bot never learns its id).
        self.after_message_stored: Callable[[FakeMessage], Awaitable[None]] | None = None
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
        guild_id: int | None = None,
    ) -> FakeGuild:
        """Create a guild (owner: a separate user) with text channels, roles and members.

        `shard`: give it an id on that shard of `shard_count` (Discord's formula).
        `guild_id`: the id of a server a database already holds (a benchmark's history).
        Adding it after a bot connected needs ``await fake.announce_guild(guild)``.
        """
        owner = self.add_user(f"{name.lower().replace(' ', '_')}_owner")
        if guild_id is None:
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

    def bot_role(self, guild: FakeGuild) -> FakeRole:
        """The bot's managed role (deny it a permission in a channel with an overwrite)."""
        return next(r for r in guild.roles.values() if r.managed)

    def add_channel(
        self, guild: FakeGuild, name: str, *, channel_id: int | None = None
    ) -> FakeChannel:
        """A text channel; `channel_id`: one a database already holds."""
        channel = FakeChannel(
            channel_id or self.snowflakes.next(), name, guild.id, position=len(guild.channels)
        )
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

    def limit_route(self, method: str, path_regex: str, limit: int, per: float) -> RouteLimit:
        """Rate-limit a route per its major parameter (the group `major` in `path_regex`),
        as Discord does: headers on every answer, 429 over the limit (`ratelimits`)."""
        return self.route_limits.add(method, path_regex, limit, per)

    def limit_message_edits(self, limit: int = 5, per: float = 5.0) -> RouteLimit:
        """Message edits: `limit` per `per` seconds in each channel."""
        return self.limit_route("PATCH", r"/channels/(?P<major>\d+)/messages/\d+", limit, per)

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
            ("DELETE", r"/channels/(?P<channel_id>\d+)", self._delete_channel),
            ("POST", r"/channels/(?P<channel_id>\d+)/threads", self._start_thread),
            ("POST", rf"{msg}/threads", self._start_thread_from_message),
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
            verdict = self.route_limits.check(call.method, rel)
            if verdict is not None and verdict.retry_after is not None:
                self.rate_limited.append(call)
                return _json(limited_body(verdict.retry_after), 429, verdict.headers)
            try:
                response = await handler(call, body, **found.groupdict())
            except _HttpError as exc:
                response = _error(exc.status, exc.code)
            if verdict is not None:
                response.headers.update(verdict.headers)
            return response
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

    def _member_payload_in(
        self, guild: FakeGuild, channel: FakeChannel, user: FakeUser
    ) -> dict[str, Any]:
        """The member as an interaction carries it: permissions in that channel."""
        member = guild.members.get(user.id) or FakeMember(user)
        return {**member.payload(), "permissions": str(guild.permissions_in(channel, user.id))}

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
        message.edit_times.append(time.monotonic())
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
