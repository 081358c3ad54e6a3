"""Plain data kept by the Discord stand-in, and the Discord-shaped payloads built from it.

Everything here is synchronous and loop-free so the store can outlive bot connections:
the same objects back every bot that connects (or reconnects) to one stand-in.
"""

from __future__ import annotations

import datetime as dt
import itertools
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

DISCORD_EPOCH_MS = 1_420_070_400_000

# Permission bits (https://discord.com/developers/docs/topics/permissions).
ADD_REACTIONS = 1 << 6
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
USE_EXTERNAL_EMOJIS = 1 << 18
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 51) - 1

# Channel types (https://discord.com/developers/docs/resources/channel#channel-object-channel-types).
GUILD_TEXT, DM, GUILD_ANNOUNCEMENT = 0, 1, 5
ANNOUNCEMENT_THREAD, PUBLIC_THREAD, PRIVATE_THREAD = 10, 11, 12
THREAD_TYPES = (ANNOUNCEMENT_THREAD, PUBLIC_THREAD, PRIVATE_THREAD)

EVERYONE_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | USE_EXTERNAL_EMOJIS
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | CREATE_PRIVATE_THREADS
    | SEND_MESSAGES_IN_THREADS
)
BOT_PERMISSIONS = EVERYONE_PERMISSIONS | MANAGE_MESSAGES
ADMIN_PERMISSIONS = MANAGE_GUILD | MANAGE_MESSAGES

EPHEMERAL = 1 << 6
LOADING = 1 << 7


class Snowflakes:
    """Strictly increasing, time-based snowflakes (so before/after paging is meaningful)."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        candidate = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        self._last = max(candidate, self._last + 1)
        return self._last

    def next_on_shard(self, shard_id: int, shard_count: int) -> int:
        """The next id of a guild that Discord puts on `shard_id` ((id >> 22) % count)."""
        if not 0 <= shard_id < shard_count:
            raise ValueError(f"shard {shard_id} does not exist among {shard_count}")
        candidate = self.next()
        stamp = candidate >> 22
        while stamp % shard_count != shard_id:
            stamp += 1
        if stamp != candidate >> 22:
            candidate = stamp << 22
        self._last = candidate
        return candidate


def iso_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


@dataclass
class FakeUser:
    id: int
    username: str
    locale: str = "en-US"
    bot: bool = False
    global_name: str | None = None

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.username,
            "discriminator": "0",
            "global_name": self.global_name or self.username,
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
        }


@dataclass
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }


@dataclass
class FakeMember:
    user: FakeUser
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    def payload(self) -> dict[str, Any]:
        return {
            "user": self.user.payload(),
            "roles": [str(r) for r in self.role_ids],
            "nick": self.nick,
            "avatar": None,
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
        }


@dataclass
class FakeChannel:
    """A guild text channel, a DM, or a thread (types 10-12: `parent_id` is its channel;
    its messages use the same message routes)."""

    id: int
    name: str
    guild_id: int | None
    type: int = GUILD_TEXT
    position: int = 0
    recipient: FakeUser | None = None  # DM channels only
    last_message_id: int | None = None
    # Permission overwrites: target id (a role, the guild id for @everyone, or a member)
    # -> (allow, deny, type: 0 role, 1 member). A thread follows its parent's.
    overwrites: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    parent_id: int | None = None  # threads
    owner_id: int | None = None  # threads: who created it
    auto_archive_duration: int = 1440
    created_at: str = field(default_factory=iso_now)
    message_count: int = 0

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "last_message_id": str(self.last_message_id) if self.last_message_id else None,
        }
        if self.type == DM:
            data["recipients"] = [self.recipient.payload()] if self.recipient else []
            return data
        data.update(
            guild_id=str(self.guild_id),
            name=self.name,
            rate_limit_per_user=0,
            flags=0,
        )
        if self.is_thread:
            data.update(
                parent_id=str(self.parent_id),
                owner_id=str(self.owner_id),
                message_count=self.message_count,
                total_message_sent=self.message_count,
                member_count=1,
                thread_metadata={
                    "archived": False,
                    "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": self.created_at,
                    "locked": False,
                    "create_timestamp": self.created_at,
                },
            )
            return data
        data.update(
            position=self.position,
            parent_id=None,
            topic=None,
            nsfw=False,
            permission_overwrites=[
                {"id": str(target), "type": kind, "allow": str(allow), "deny": str(deny)}
                for target, (allow, deny, kind) in self.overwrites.items()
            ],
        )
        return data


@dataclass
class FakeGuild:
    id: int
    name: str
    owner_id: int
    locale: str = "en-US"
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    threads: dict[int, FakeChannel] = field(default_factory=dict)  # active threads
    roles: dict[int, FakeRole] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    joined_at: str = field(default_factory=iso_now)

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    @property
    def text_channels(self) -> list[FakeChannel]:
        return [c for c in self.channels.values() if c.type == 0]

    def permissions_of(self, user_id: int) -> int:
        if user_id == self.owner_id:
            return ALL_PERMISSIONS
        member = self.members.get(user_id)
        perms = self.everyone.permissions
        for role_id in member.role_ids if member else []:
            perms |= self.roles[role_id].permissions
        return ALL_PERMISSIONS if perms & ADMINISTRATOR else perms

    def permissions_in(self, channel: FakeChannel, user_id: int) -> int:
        """A member's permissions in a channel: the guild's, then the channel's overwrites
        (@everyone, the member's roles, the member), as Discord computes them. A thread
        has its parent's."""
        base = self.permissions_of(user_id)
        if base & ADMINISTRATOR or base == ALL_PERMISSIONS:
            return ALL_PERMISSIONS
        if channel.is_thread and channel.parent_id in self.channels:
            channel = self.channels[channel.parent_id]
        overwrites = channel.overwrites
        allow, deny, _ = overwrites.get(self.id, (0, 0, 0))
        base = (base & ~deny) | allow
        member = self.members.get(user_id)
        role_allow = role_deny = 0
        for role_id in member.role_ids if member else []:
            a, d, _ = overwrites.get(role_id, (0, 0, 0))
            role_allow |= a
            role_deny |= d
        base = (base & ~role_deny) | role_allow
        allow, deny, _ = overwrites.get(user_id, (0, 0, 0))
        return (base & ~deny) | allow

    def payload(self, *, members: list[FakeMember] | None = None) -> dict[str, Any]:
        """Full guild object as GUILD_CREATE carries it (``members`` defaults to all)."""
        member_list = list(self.members.values()) if members is None else members
        system_channel = self.text_channels[0].id if self.text_channels else None
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": str(system_channel) if system_channel else None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.locale,
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "joined_at": self.joined_at,
            "large": False,
            "unavailable": False,
            "member_count": len(self.members),
            "voice_states": [],
            "members": [m.payload() for m in member_list],
            "channels": [c.payload() for c in self.channels.values()],
            "threads": [c.payload() for c in self.threads.values()],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }


@dataclass
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    content_type: str = "application/octet-stream"
    description: str | None = None
    url: str = ""

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
            "description": self.description,
        }


@dataclass(frozen=True)
class Emoji:
    """A reaction emoji: unicode (``id is None``) or custom (``name:id``)."""

    name: str
    id: int | None = None

    @classmethod
    def parse(cls, value: str | Emoji) -> Emoji:
        if isinstance(value, Emoji):
            return value
        value = unquote(value).strip("<>")
        if value.startswith("a:"):
            value = value[2:]
        name, sep, ident = value.rpartition(":")
        if sep and ident.isdigit():
            return cls(name.lstrip(":"), int(ident))
        return cls(value)

    @property
    def key(self) -> str:
        return self.name if self.id is None else f"{self.name}:{self.id}"

    def payload(self) -> dict[str, Any]:
        return {"id": str(self.id) if self.id else None, "name": self.name}


@dataclass
class FakeMessage:
    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    webhook_id: int | None = None
    interaction_metadata: dict[str, Any] | None = None
    message_reference: dict[str, Any] | None = None
    poll: dict[str, Any] | None = None
    nonce: str | None = None
    deleted: bool = False
    edits: int = 0
    edit_times: list[float] = field(default_factory=list)  # time.monotonic() of each edit
    # emoji key -> (emoji, user ids in reaction order)
    reactions: dict[str, tuple[Emoji, list[int]]] = field(default_factory=dict)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    def reactors(self, emoji: str | Emoji) -> list[int]:
        entry = self.reactions.get(Emoji.parse(emoji).key)
        return list(entry[1]) if entry else []

    def custom_ids(self) -> list[str]:
        """Custom ids of every component on the message, depth-first."""
        return [c["custom_id"] for c in iter_components(self.components) if "custom_id" in c]

    def text(self) -> str:
        """Content plus embed titles/descriptions/fields: handy for assertions."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [embed.get("title", ""), embed.get("description", "")]
            for f in embed.get("fields", []):
                parts += [f.get("name", ""), f.get("value", "")]
            parts.append((embed.get("footer") or {}).get("text", ""))
        return "\n".join(p for p in parts if p)

    def payload(self, me_id: int | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": self.embeds,
            "components": self.components,
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
            "reactions": [
                {
                    "emoji": emoji.payload(),
                    "count": len(users),
                    "count_details": {"burst": 0, "normal": len(users)},
                    "me": me_id in users,
                    "me_burst": False,
                    "burst_colors": [],
                }
                for emoji, users in self.reactions.values()
                if users
            ],
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(self.webhook_id)
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = self.interaction_metadata
        if self.message_reference is not None:
            data["message_reference"] = self.message_reference
        if self.nonce is not None:
            data["nonce"] = self.nonce
        if self.poll is not None:
            data["poll"] = self.poll
        return data


def iter_components(components: list[dict[str, Any]]) -> Any:
    """Walk a component tree (action rows, sections, containers, labels)."""
    for comp in components:
        yield comp
        yield from iter_components(comp.get("components", []))
        if isinstance(comp.get("component"), dict):
            yield from iter_components([comp["component"]])
        if isinstance(comp.get("accessory"), dict):
            yield from iter_components([comp["accessory"]])


_ids = itertools.count(1)


def token() -> str:
    return f"tok-{next(_ids)}-{time.monotonic_ns()}"
