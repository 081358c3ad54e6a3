"""The gateway half of the stand-in: websocket sessions, sequencing, RESUME replay.

Frames go out as Discord sends them: a client that connects with ``compress=zlib-stream``
(discord.py does, unless zstd is installed) gets every frame as a BINARY message, the
next piece of one zlib stream per connection ending in a Z_SYNC_FLUSH (``00 00 ff ff``),
which discord.py inflates (``DiscordWebSocket.received_message``); other clients get
TEXT frames. No websocket-level compression is negotiated (Discord offers none).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
from aiohttp import WSMsgType, web

if TYPE_CHECKING:
    from .server import FakeDiscord

log = logging.getLogger(__name__)

# op codes
DISPATCH, HEARTBEAT, IDENTIFY, RESUME, RECONNECT = 0, 1, 2, 6, 7
REQUEST_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 8, 9, 10, 11

# Gateway intents that gate the events we dispatch.
GUILD_MEMBERS = 1 << 1
GUILD_MESSAGES = 1 << 9
GUILD_MESSAGE_REACTIONS = 1 << 10
DIRECT_MESSAGES = 1 << 12
DIRECT_MESSAGE_REACTIONS = 1 << 13
MESSAGE_CONTENT = 1 << 15


def required_intent(event: str, data: dict[str, Any]) -> int:
    """Intent bit a bot needs to receive ``event`` (0: always delivered)."""
    in_guild = "guild_id" in data
    if event.startswith("MESSAGE_REACTION"):
        return GUILD_MESSAGE_REACTIONS if in_guild else DIRECT_MESSAGE_REACTIONS
    if event.startswith("MESSAGE_"):
        return GUILD_MESSAGES if in_guild else DIRECT_MESSAGES
    if event.startswith("GUILD_MEMBER"):
        return GUILD_MEMBERS
    return 0


def _guild_of(event: str, data: dict[str, Any]) -> int | None:
    """The guild an event belongs to (GUILD_CREATE/UPDATE/DELETE carry it as their id)."""
    if "guild_id" in data and data["guild_id"] is not None:
        return int(data["guild_id"])
    if event in ("GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE") and "id" in data:
        return int(data["id"])
    return None


class Wire:
    """One connection's way of sending frames (see the module's docstring)."""

    def __init__(self, ws: web.WebSocketResponse, compress: str | None) -> None:
        self.ws = ws
        self._zlib = zlib.compressobj() if compress == "zlib-stream" else None
        # Pieces of one zlib stream must reach the socket in the order they were made.
        self._lock = asyncio.Lock()
        self.frames = 0
        self.bytes_out = 0

    @property
    def compressed(self) -> bool:
        return self._zlib is not None

    async def send(self, frame: bytes) -> None:
        async with self._lock:
            if self._zlib is None:
                await self.ws.send_str(frame.decode())
                self.bytes_out += len(frame)
            else:
                data = self._zlib.compress(frame) + self._zlib.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(data)
                self.bytes_out += len(data)
            self.frames += 1


@dataclass
class Session:
    id: str
    intents: int
    shard: list[int]
    seq: int = 0
    log: list[tuple[int, bytes]] = field(default_factory=list)
    ws: web.WebSocketResponse | None = None
    wire: Wire | None = None
    ended: bool = False  # closed with 1000/1001 or invalidated: cannot resume
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def send(self, event: str, data: Any) -> None:
        """Sequence, log and (if connected) send one dispatch; replayed on RESUME if missed."""
        async with self.lock:
            self.seq += 1
            frame = orjson.dumps({"op": DISPATCH, "t": event, "s": self.seq, "d": data})
            self.log.append((self.seq, frame))
            await self._write(frame)

    async def _write(self, frame: bytes) -> None:
        ws, wire = self.ws, self.wire
        if ws is None or ws.closed or wire is None:
            return
        try:
            await wire.send(frame)
        except (ConnectionError, RuntimeError):
            # The client resumes from the last seq it saw, so nothing is lost.
            log.debug("send on closing socket of session %s", self.id)


class Gateway:
    """Accepts websocket connections for one :class:`FakeDiscord`."""

    def __init__(self, fake: FakeDiscord, heartbeat_interval_ms: int = 5000) -> None:
        self.fake = fake
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.sessions: dict[str, Session] = {}
        self.identifies = 0
        self.resumes = 0
        # What the next RESUME attempt gets: None (normal) or an INVALID_SESSION.
        self.invalidate_next_resume = False
        # Discord's IDENTIFY limit: per bucket (shard id % max_concurrency) one IDENTIFY
        # per `fake.identify_window_s`; a second one is refused with an invalid session.
        self.identified_at: dict[int, float] = {}
        self.identify_refusals = 0
        self.identify_log: list[tuple[float, int, bool]] = []  # (monotonic, shard, accepted)

    @property
    def connected(self) -> list[Session]:
        return [s for s in self.sessions.values() if s.ws is not None and not s.ws.closed]

    @property
    def live(self) -> list[Session]:
        return [s for s in self.sessions.values() if not s.ended]

    @staticmethod
    def owns(session: Session, guild_id: int | None) -> bool:
        """Whether Discord sends this guild's events to the session's shard.

        A guild belongs to shard (guild_id >> 22) % shard_count; events without a guild
        (DMs) go to shard 0. A session that identified without a shard gets everything.
        """
        shard_id, shard_count = session.shard[0], session.shard[1]
        if shard_count <= 1:
            return True
        if guild_id is None:
            return shard_id == 0
        return (guild_id >> 22) % shard_count == shard_id

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Deliver to every live session of the event's shard that asked for its intent."""
        need = required_intent(event, data)
        guild_id = _guild_of(event, data)
        for session in self.live:
            if need and not session.intents & need:
                continue
            if not self.owns(session, guild_id):
                continue
            payload = data
            if (
                event in ("MESSAGE_CREATE", "MESSAGE_UPDATE")
                and not session.intents & MESSAGE_CONTENT
            ):
                payload = self._strip_content(data)
            await session.send(event, payload)

    def _strip_content(self, data: dict[str, Any]) -> dict[str, Any]:
        # Without MESSAGE_CONTENT a bot only sees content of its own messages, DMs and mentions.
        bot_id = str(self.fake.bot_user.id)
        author = (data.get("author") or {}).get("id")
        mentioned = any(m.get("id") == bot_id for m in data.get("mentions", []))
        if author == bot_id or mentioned or "guild_id" not in data:
            return data
        return {**data, "content": "", "embeds": [], "attachments": [], "components": []}

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True, compress=False)
        await ws.prepare(request)
        wire = Wire(ws, request.query.get("compress"))
        self.fake._ws_clients.add(ws)
        session: Session | None = None
        try:
            await wire.send(
                orjson.dumps({"op": HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
            )
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                payload = orjson.loads(msg.data)
                op = payload.get("op")
                data = payload.get("d")
                if op == HEARTBEAT:
                    await wire.send(b'{"op": 11}')
                elif op == IDENTIFY:
                    session = await self._identify(wire, data)
                elif op == RESUME:
                    session = await self._resume(wire, data)
                elif op == REQUEST_MEMBERS and session is not None:
                    await self._members_chunk(session, data)
        finally:
            self.fake._ws_clients.discard(ws)
            if session is not None and session.ws is ws:
                session.ws = None
                # A client-initiated clean close ends the session (discord.py's close()).
                if ws.close_code in (1000, 1001):
                    session.ended = True
            self.fake._notify()
        return ws

    async def _identify(self, wire: Wire, data: dict[str, Any]) -> Session | None:
        fake = self.fake
        if data.get("token") != fake.token:
            await wire.ws.close(code=4004, message=b"Authentication failed.")
            return None
        shard = list(data.get("shard") or [0, 1])
        if not self._identify_allowed(shard[0]):
            self.identify_refusals += 1
            fake._notify()
            await wire.send(orjson.dumps({"op": INVALID_SESSION, "d": False}))
            return None
        self.identifies += 1
        session = Session(
            id=secrets.token_hex(16),
            intents=int(data.get("intents", 0)),
            shard=shard,
        )
        session.ws, session.wire = wire.ws, wire
        self.sessions[session.id] = session
        guilds = [g for g in fake.guilds.values() if self.owns(session, g.id)]
        ready = {
            "v": 10,
            "user": {**fake.bot_user.payload(), "verified": True, "mfa_enabled": False},
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "resume_gateway_url": fake.gateway_url,
            "shard": session.shard,
            "application": {"id": str(fake.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "session_type": "normal",
            "auth": {},
            "user_settings": {},
            "_trace": ["discord-fake"],
        }
        # GUILD_CREATEs go in the same burst so discord.py's ready delay sees them at once.
        await session.send("READY", ready)
        for guild in guilds:
            members = (
                list(guild.members.values())
                if session.intents & GUILD_MEMBERS
                else [m for m in guild.members.values() if m.user.id == fake.bot_user.id]
            )
            await session.send("GUILD_CREATE", guild.payload(members=members))
        fake._notify()
        return session

    def identify_wait_s(self, shard_id: int) -> float:
        """Seconds until the shard's bucket takes another IDENTIFY (0: now)."""
        window = self.fake.identify_window_s
        last = self.identified_at.get(shard_id % max(1, self.fake.max_concurrency))
        if window <= 0 or last is None:
            return 0.0
        return max(0.0, last + window - time.monotonic())

    def _identify_allowed(self, shard_id: int) -> bool:
        if self.identify_wait_s(shard_id) > 0:
            self.identify_log.append((time.monotonic(), shard_id, False))
            return False
        self.identify_log.append((time.monotonic(), shard_id, True))
        self.identified_at[shard_id % max(1, self.fake.max_concurrency)] = time.monotonic()
        return True

    async def _resume(self, wire: Wire, data: dict[str, Any]) -> Session | None:
        session = self.sessions.get(data.get("session_id", ""))
        if (
            self.invalidate_next_resume
            or session is None
            or session.ended
            or data.get("token") != self.fake.token
        ):
            self.invalidate_next_resume = False
            if session is not None:
                session.ended = True
            await wire.send(orjson.dumps({"op": INVALID_SESSION, "d": False}))
            return None
        self.resumes += 1
        last_seen = int(data.get("seq") or 0)
        async with session.lock:
            old = session.ws
            session.ws, session.wire = wire.ws, wire
            if old is not None and not old.closed:
                await old.close(code=4000)
            for seq, frame in session.log:
                if seq > last_seen:
                    await session._write(frame)
        await session.send("RESUMED", {"_trace": ["discord-fake"]})
        self.fake._notify()
        return session

    async def _members_chunk(self, session: Session, data: dict[str, Any]) -> None:
        guild = self.fake.guilds.get(int(data["guild_id"]))
        if guild is None:
            return
        wanted: Callable[[int], bool]
        ids = data.get("user_ids")
        if ids:
            id_set = {int(i) for i in (ids if isinstance(ids, list) else [ids])}
            wanted = id_set.__contains__
        else:
            wanted = lambda _uid: True  # noqa: E731
        query = (data.get("query") or "").lower()
        members = [
            m.payload()
            for uid, m in guild.members.items()
            if wanted(uid) and m.user.username.lower().startswith(query)
        ]
        limit = int(data.get("limit") or 0)
        await session.send(
            "GUILD_MEMBERS_CHUNK",
            {
                "guild_id": str(guild.id),
                "members": members[:limit] if limit else members,
                "chunk_index": 0,
                "chunk_count": 1,
                "not_found": [],
                "nonce": data.get("nonce"),
            },
        )
