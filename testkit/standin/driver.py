"""Driver API of the stand-in: tests play users (slash commands, clicks, reactions, ...).

Every wait is event-driven (``FakeDiscord.wait_until`` re-checks on each state change)
and bounded by a timeout, so a broken bot fails a test instead of hanging it.
"""

# The driver API takes per-call `timeout=` arguments on purpose (tests pass short ones).
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .modals import submission
from .models import (
    Emoji,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeRole,
    FakeUser,
    iter_components,
    token,
)

if TYPE_CHECKING:
    from .server import FakeDiscord

MessagePredicate = Callable[[FakeMessage], Any]

# Application command option types.
SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, BOOLEAN = 1, 2, 3, 4, 5
USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 6, 7, 8, 9, 10, 11


@dataclass
class PendingInteraction:
    """An interaction the stand-in dispatched, and everything the bot did with it."""

    id: int
    token: str
    type: int  # 2 command, 3 component, 4 autocomplete, 5 modal submit
    user: FakeUser
    guild_id: int | None
    channel_id: int
    payload: dict[str, Any]
    dispatched_at: float
    name: str = ""
    source_message: FakeMessage | None = None  # the clicked message (components)
    callback_type: int | None = None
    callback_data: dict[str, Any] = field(default_factory=dict)
    callback_files: list[tuple[str, bytes]] = field(default_factory=list)
    callback_at: float | None = None
    original: FakeMessage | None = None
    followups: list[FakeMessage] = field(default_factory=list)
    modal: dict[str, Any] | None = None
    choices: list[dict[str, Any]] | None = None
    expired: bool = False  # answered after the 3 s deadline
    # Set at the bot's first callback (or its refusal as late): `press` callers await it.
    answered: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    def metadata(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "user": self.user.payload(),
            "authorizing_integration_owners": {},
        }
        if self.source_message is not None:
            data["interacted_message_id"] = str(self.source_message.id)
        return data


@dataclass
class InteractionResult:
    """What the bot answered to one interaction; live view (follow-ups keep arriving)."""

    fake: FakeDiscord
    interaction: PendingInteraction

    @property
    def type(self) -> int:
        """Callback type: 4 message, 5 deferred, 6 deferred update, 7 update, 8, 9 modal."""
        assert self.interaction.callback_type is not None
        return self.interaction.callback_type

    @property
    def data(self) -> dict[str, Any]:
        return self.interaction.callback_data

    @property
    def message(self) -> FakeMessage | None:
        """The ``@original`` message (created, deferred, or the updated clicked message)."""
        return self.interaction.original

    @property
    def content(self) -> str:
        return self.message.content if self.message else self.data.get("content") or ""

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.message.embeds if self.message else list(self.data.get("embeds") or [])

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.message.components if self.message else list(self.data.get("components") or [])

    @property
    def attachments(self) -> list[FakeAttachment]:
        return self.message.attachments if self.message else []

    @property
    def ephemeral(self) -> bool:
        if self.message is not None:
            return self.message.ephemeral
        return bool(int(self.data.get("flags") or 0) & 64)

    @property
    def text(self) -> str:
        return self.message.text() if self.message else self.content

    @property
    def first_response_s(self) -> float:
        """Seconds from dispatching the interaction to the bot's first callback."""
        assert self.interaction.callback_at is not None
        return self.interaction.callback_at - self.interaction.dispatched_at

    @property
    def followups(self) -> list[FakeMessage]:
        return list(self.interaction.followups)

    @property
    def modal(self) -> dict[str, Any] | None:
        return self.interaction.modal

    @property
    def choices(self) -> list[dict[str, Any]] | None:
        return self.interaction.choices

    def messages(self) -> list[FakeMessage]:
        """``@original`` (if any) then follow-ups, deleted ones excluded."""
        found = ([self.message] if self.message else []) + self.interaction.followups
        return [m for m in found if not m.deleted]

    async def wait_final(self, predicate: MessagePredicate, timeout: float = 10.0) -> FakeMessage:
        """First message of this interaction (``@original`` or follow-up) matching ``predicate``."""
        return await self.fake.wait_until(
            lambda: next((m for m in self.messages() if predicate(m)), None),
            timeout,
            f"a message of interaction {self.interaction.name!r} matching the predicate",
        )

    async def wait_original(
        self, predicate: MessagePredicate | None = None, timeout: float = 10.0
    ) -> FakeMessage:
        """The ``@original`` once edited out of "thinking..." (and matching ``predicate``)."""

        def check() -> FakeMessage | None:
            msg = self.message
            if msg is None or msg.loading:
                return None
            return msg if predicate is None or predicate(msg) else None

        return await self.fake.wait_until(check, timeout, f"@original of {self.interaction.name!r}")

    async def wait_followup(
        self, predicate: MessagePredicate | None = None, timeout: float = 10.0
    ) -> FakeMessage:
        return await self.fake.wait_until(
            lambda: next(
                (m for m in self.interaction.followups if predicate is None or predicate(m)), None
            ),
            timeout,
            f"a follow-up of {self.interaction.name!r}",
        )


class Driver:
    """Mixin of :class:`~testkit.standin.server.FakeDiscord`: the test-facing user actions."""

    # ------------------------------------------------------------------ inspection

    def messages(
        self: FakeDiscord, channel: FakeChannel | int, *, include_ephemeral: bool = False
    ) -> list[FakeMessage]:
        """Messages of a channel, oldest first (deleted ones excluded)."""
        channel_id = channel.id if isinstance(channel, FakeChannel) else int(channel)
        found = [
            m for m in self.message_store.values() if m.channel_id == channel_id and not m.deleted
        ]
        return [m for m in found if include_ephemeral or not m.ephemeral]

    def message(self: FakeDiscord, message_id: int) -> FakeMessage:
        return self.message_store[int(message_id)]

    async def wait_for_message(
        self: FakeDiscord,
        predicate: MessagePredicate = lambda m: True,
        timeout: float = 5.0,
        *,
        channel: FakeChannel | int | None = None,
        after: FakeMessage | int | None = None,
        include_ephemeral: bool = False,
    ) -> FakeMessage:
        """First stored message (newer than ``after``) matching ``predicate``."""
        channel_id = channel.id if isinstance(channel, FakeChannel) else channel
        floor = after.id if isinstance(after, FakeMessage) else int(after or 0)

        def check() -> FakeMessage | None:
            for m in self.message_store.values():
                if m.deleted or m.id <= floor or (m.ephemeral and not include_ephemeral):
                    continue
                if channel_id is not None and m.channel_id != int(channel_id):
                    continue
                if predicate(m):
                    return m
            return None

        return await self.wait_until(check, timeout, "a matching message")

    def registered_commands(self: FakeDiscord, guild_id: int | None = None) -> list[dict[str, Any]]:
        return list(self.commands.get(guild_id, {}).values())

    def calls_to(self: FakeDiscord, method: str, path_regex: str) -> list[Any]:
        """Recorded HTTP calls with this method whose path matches ``path_regex``."""
        pattern = re.compile(path_regex)
        return [c for c in self.calls if c.method == method and pattern.search(c.path)]

    # ------------------------------------------------------------------ gateway control

    async def wait_connected(self: FakeDiscord, timeout: float = 5.0) -> None:
        """Until a bot is connected (READY or RESUMED sent) after the last ``drop_gateway``."""
        gw = self.gateway
        await self.wait_until(
            lambda: gw.connected and gw.identifies + gw.resumes > self._drop_mark,
            timeout,
            "a gateway connection",
        )

    wait_ready = wait_connected

    async def drop_gateway(self: FakeDiscord, code: int = 4000, *, resumable: bool = True) -> None:
        """Close every bot websocket with ``code``; the bot reconnects by itself.

        ``resumable=False`` makes the next RESUME fail with INVALID_SESSION, so the bot
        re-IDENTIFIEs. Events dispatched until it is back are replayed on RESUME.
        """
        gw = self.gateway
        self._drop_mark = gw.identifies + gw.resumes
        if not resumable:
            gw.invalidate_next_resume = True
        for session in gw.connected:
            async with session.lock:  # no frame goes out half-way through the switch
                ws, session.ws = session.ws, None  # later events are buffered for replay
            if ws is not None:
                await ws.close(code=code, message=b"dropped by test")
        self._notify()

    # ------------------------------------------------------------------ user actions

    async def post_message(
        self: FakeDiscord, user: FakeUser, channel: FakeChannel, content: str
    ) -> FakeMessage:
        """A user writes ``content`` in ``channel`` (MESSAGE_CREATE)."""
        message = self.store_message(channel, user, {"content": content})
        await self.announce_message(message)
        return message

    async def react(
        self: FakeDiscord, message: FakeMessage | int, user: FakeUser, emoji: str | Emoji
    ) -> None:
        """``user`` adds a reaction: stored, then MESSAGE_REACTION_ADD."""
        await self.add_reaction(self._msg(message), user, Emoji.parse(emoji), dispatch=True)

    async def unreact(
        self: FakeDiscord, message: FakeMessage | int, user: FakeUser, emoji: str | Emoji
    ) -> None:
        await self.remove_reaction(self._msg(message), user, Emoji.parse(emoji), dispatch=True)

    def react_silently(
        self: FakeDiscord, message: FakeMessage | int, user: FakeUser, emoji: str | Emoji
    ) -> None:
        """Store a reaction without any event (made while the bot was offline)."""
        msg = self._msg(message)
        parsed = Emoji.parse(emoji)
        _, users = msg.reactions.setdefault(parsed.key, (parsed, []))
        if user.id not in users:
            users.append(user.id)
        self._notify()

    def _msg(self: FakeDiscord, message: FakeMessage | int) -> FakeMessage:
        return message if isinstance(message, FakeMessage) else self.message_store[int(message)]

    async def slash(
        self: FakeDiscord,
        user: FakeUser,
        command: str,
        *,
        guild: FakeGuild | None = None,
        channel: FakeChannel | None = None,
        locale: str | None = None,
        timeout: float = 5.0,
        options: dict[str, Any] | None = None,
        **kw_options: Any,
    ) -> InteractionResult:
        """Run ``/command`` ("quiz start") as ``user``; returns after the bot's first callback.

        Options are typed from the command the bot REGISTERED (guild scope first, then
        global). Pass options named like the keywords above (``channel``, ``user``, ...)
        through ``options={...}``. Users/channels/roles are given as fake objects or ids.
        """
        channel = channel or (guild.text_channels[0] if guild else self.channel)
        given = {**kw_options, **(options or {})}
        data = self._command_data(command, channel, given, focused=None)
        return await self._interact(
            2, user, channel, data, locale=locale, timeout=timeout, name=f"/{command}"
        )

    async def autocomplete(
        self: FakeDiscord,
        user: FakeUser,
        command: str,
        focused: str,
        value: str,
        *,
        channel: FakeChannel | None = None,
        timeout: float = 5.0,
        **others: Any,
    ) -> list[dict[str, Any]]:
        """Ask the bot for choices of option ``focused`` while the user typed ``value``."""
        channel = channel or self.channel
        data = self._command_data(command, channel, {**others, focused: value}, focused=focused)
        result = await self._interact(4, user, channel, data, timeout=timeout, name=command)
        return result.choices or []

    def _command_data(
        self: FakeDiscord,
        command: str,
        channel: FakeChannel,
        given: dict[str, Any],
        focused: str | None,
    ) -> dict[str, Any]:
        path = command.strip().lstrip("/").split()
        definition = self._find_command(path[0], channel.guild_id)
        resolved: dict[str, dict[str, Any]] = {}
        data: dict[str, Any] = {"id": definition["id"], "name": definition["name"], "type": 1}
        if "guild_id" in definition:
            data["guild_id"] = definition["guild_id"]
        target = definition
        holder = data
        for name in path[1:]:
            sub = next(
                (
                    o
                    for o in target.get("options", [])
                    if o["name"] == name and o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)
                ),
                None,
            )
            if sub is None:
                raise LookupError(f"/{command}: {target['name']!r} has no subcommand {name!r}")
            entry: dict[str, Any] = {"name": name, "type": sub["type"], "options": []}
            holder.setdefault("options", []).append(entry)
            holder, target = entry, sub
        if any(o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in target.get("options", [])):
            raise LookupError(f"/{command} needs a subcommand")
        rest = {k: v for k, v in given.items() if k != focused}
        built = self._build_options(
            command, target, rest, resolved, channel, partial=focused is not None
        )
        if focused is not None:
            # What the user typed so far is raw text: sent untyped and unvalidated.
            opt = next((o for o in target.get("options", []) if o["name"] == focused), None)
            if opt is None:
                raise LookupError(f"/{command} has no option {focused!r}")
            built.append(
                {"name": focused, "type": opt["type"], "value": given[focused], "focused": True}
            )
        holder["options"] = built
        if resolved:
            data["resolved"] = resolved
        return data

    async def click(
        self: FakeDiscord,
        message: FakeMessage,
        custom_id: str,
        user: FakeUser,
        *,
        values: list[str] | None = None,
        timeout: float = 5.0,
        force: bool = False,
    ) -> InteractionResult:
        """``user`` clicks button (or picks ``values`` in the select) ``custom_id``.

        ``force``: press it even if disabled (a client that has not seen the edit yet)."""
        component = next(
            (c for c in iter_components(message.components) if c.get("custom_id") == custom_id),
            None,
        )
        if component is None:
            raise LookupError(
                f"message {message.id} has no component {custom_id!r}; has {message.custom_ids()}"
            )
        if component.get("disabled") and not force:
            raise AssertionError(f"component {custom_id!r} is disabled: users cannot click it")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component["type"]}
        if component["type"] != 2:
            data["values"] = list(values or [])
        channel = self.channels[message.channel_id]
        return await self._interact(
            3, user, channel, data, timeout=timeout, name=custom_id, source=message
        )

    async def submit_modal(
        self: FakeDiscord,
        shown: InteractionResult,
        values: dict[str, str],
        *,
        user: FakeUser | None = None,
        timeout: float = 5.0,
    ) -> InteractionResult:
        """Submit the modal the bot opened in ``shown``: ``values`` maps an input's custom_id
        to its text (or a select's list of values); as a member's client, refused when a
        required input is empty or a text is outside its lengths (`modals.submission`)."""
        modal = shown.modal
        if modal is None:
            raise AssertionError("the bot did not answer with a modal (callback type 9)")
        data = submission(modal, values)
        inter = shown.interaction
        channel = self.channels[inter.channel_id]
        return await self._interact(
            5,
            user or inter.user,
            channel,
            data,
            timeout=timeout,
            name=modal["custom_id"],
            source=inter.source_message,
        )

    # ------------------------------------------------------------------ internals

    def _find_command(self: FakeDiscord, name: str, guild_id: int | None) -> dict[str, Any]:
        for scope in (guild_id, None):
            found = self.commands.get(scope, {}).get(name)
            if found is not None and found.get("type", 1) == 1:
                return found
        known = sorted({n for scope in self.commands.values() for n in scope})
        raise LookupError(f"/{name} is not registered (registered: {known})")

    def _build_options(
        self: FakeDiscord,
        command: str,
        target: dict[str, Any],
        given: dict[str, Any],
        resolved: dict[str, dict[str, Any]],
        channel: FakeChannel,
        partial: bool = False,
    ) -> list[dict[str, Any]]:
        defs = {o["name"]: o for o in target.get("options", [])}
        built = []
        for raw_name, value in given.items():
            name = raw_name if raw_name in defs else raw_name.replace("_", "-")
            opt = defs.get(name)
            if opt is None:
                raise LookupError(f"/{command} has no option {raw_name!r} (has {sorted(defs)})")
            built.append(
                {
                    "name": name,
                    "type": opt["type"],
                    "value": self._option_value(opt, value, resolved, channel),
                }
            )
        missing = [
            n for n, o in defs.items() if o.get("required") and n not in {b["name"] for b in built}
        ]
        if missing and not partial:
            raise ValueError(f"/{command}: missing required options {missing}")
        return built

    def _option_value(
        self: FakeDiscord,
        opt: dict[str, Any],
        value: Any,
        resolved: dict[str, dict[str, Any]],
        channel: FakeChannel,
    ) -> Any:
        kind = opt["type"]
        guild = self.guilds.get(channel.guild_id) if channel.guild_id else None
        choices = [c["value"] for c in opt.get("choices") or []]
        if kind in (STRING, INTEGER, NUMBER, BOOLEAN):
            cast = {STRING: str, INTEGER: int, NUMBER: float, BOOLEAN: bool}[kind]
            if kind == INTEGER and (isinstance(value, bool) or int(value) != value):
                raise TypeError(f"option {opt['name']!r} is an integer, got {value!r}")
            value = cast(value)
            if choices and value not in choices:
                raise ValueError(f"option {opt['name']!r} must be one of {choices}, got {value!r}")
            return value
        if kind in (USER, MENTIONABLE) and not isinstance(value, FakeRole):
            user = value if isinstance(value, FakeUser) else self.users[int(value)]
            resolved.setdefault("users", {})[str(user.id)] = user.payload()
            if guild is not None and user.id in guild.members:
                member = self._member_payload(guild, user)
                member.pop("user")
                resolved.setdefault("members", {})[str(user.id)] = member
            return str(user.id)
        if kind in (ROLE, MENTIONABLE):
            assert guild is not None, "role options need a guild channel"
            role = value if isinstance(value, FakeRole) else guild.roles[int(value)]
            resolved.setdefault("roles", {})[str(role.id)] = role.payload()
            return str(role.id)
        if kind == CHANNEL:
            target = value if isinstance(value, FakeChannel) else self.channels[int(value)]
            perms = guild.permissions_of(self.bot_user.id) if guild else 0
            resolved.setdefault("channels", {})[str(target.id)] = {
                **target.payload(),
                "permissions": str(perms),
            }
            return str(target.id)
        if kind == ATTACHMENT:
            filename, blob = value if isinstance(value, tuple) else ("upload.bin", value)
            att_id = self.snowflakes.next()
            att = FakeAttachment(
                att_id, filename, bytes(blob), url=f"{self.url}/attachments/0/{att_id}/{filename}"
            )
            self._uploads[att_id] = att
            resolved.setdefault("attachments", {})[str(att_id)] = att.payload()
            return str(att_id)
        raise TypeError(f"unsupported option type {kind} for {opt['name']!r}")

    async def _interact(
        self: FakeDiscord,
        kind: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        locale: str | None = None,
        timeout: float,
        name: str,
        source: FakeMessage | None = None,
    ) -> InteractionResult:
        inter = await self._dispatch_interaction(
            kind, user, channel, data, locale=locale, name=name, source=source
        )
        await self.wait_until(
            lambda: inter.callback_type is not None or inter.expired,
            timeout,
            f"the bot's response to {name}",
        )
        if inter.expired:
            raise AssertionError(f"{name}: the bot answered after Discord's 3 s deadline")
        return InteractionResult(self, inter)

    async def press(
        self: FakeDiscord, message: FakeMessage, custom_id: str, user: FakeUser
    ) -> PendingInteraction:
        """``user`` clicks button ``custom_id`` without waiting for the bot: for many
        members at once, await ``interaction.answered`` (set at the bot's first
        callback) instead of a wait per click re-checked on every state change."""
        component = next(
            (c for c in iter_components(message.components) if c.get("custom_id") == custom_id),
            None,
        )
        if component is None:
            raise LookupError(f"message {message.id} has no component {custom_id!r}")
        data = {"custom_id": custom_id, "component_type": component["type"]}
        channel = self.channels[message.channel_id]
        return await self._dispatch_interaction(
            3, user, channel, data, name=custom_id, source=message
        )

    async def press_all(
        self: FakeDiscord,
        presses: list[tuple[FakeMessage, str, FakeUser]],
        spread_s: float,
        *,
        seed: int = 0,
        timeout: float = 60.0,
    ) -> list[PendingInteraction]:
        """Many members press at once: each (message, custom id, user) at a random moment
        within `spread_s` seconds (uniform, seeded), none waiting for another's answer.
        Returns the interactions, in the order given, once the bot answered every one."""
        rng = random.Random(seed)
        moments = sorted((rng.uniform(0, spread_s), i) for i in range(len(presses)))
        loop = asyncio.get_running_loop()
        start = loop.time()
        sent: dict[int, PendingInteraction] = {}
        for moment, index in moments:
            delay = start + moment - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            message, custom_id, user = presses[index]
            sent[index] = await self.press(message, custom_id, user)
        ordered = [sent[i] for i in range(len(presses))]
        await asyncio.wait_for(
            asyncio.gather(*(inter.answered.wait() for inter in ordered)), timeout
        )
        return ordered

    async def _dispatch_interaction(
        self: FakeDiscord,
        kind: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        locale: str | None = None,
        name: str,
        source: FakeMessage | None = None,
    ) -> PendingInteraction:
        guild = self.guilds.get(channel.guild_id) if channel.guild_id else None
        inter_id = self.snowflakes.next()
        payload: dict[str, Any] = {
            "id": str(inter_id),
            "application_id": str(self.application_id),
            "type": kind,
            "token": token(),
            "version": 1,
            "channel_id": str(channel.id),
            "channel": channel.payload(),
            "locale": locale or user.locale,
            "entitlements": [],
            "attachment_size_limit": 10 * 1024 * 1024,
            "data": data,
        }
        if guild is not None:
            bot_perms = guild.permissions_in(channel, self.bot_user.id)
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": guild.locale, "features": []},
                guild_locale=guild.locale,
                member=self._member_payload_in(guild, channel, user),
                app_permissions=str(bot_perms),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
            payload["channel"]["permissions"] = str(guild.permissions_in(channel, user.id))
        else:
            payload.update(
                user=user.payload(),
                app_permissions="0",
                authorizing_integration_owners={"0": "0"},
                context=1,
            )
        if source is not None:
            payload["message"] = source.payload(self.bot_user.id)
        inter = PendingInteraction(
            id=inter_id,
            token=payload["token"],
            type=kind,
            user=user,
            guild_id=guild.id if guild else None,
            channel_id=channel.id,
            payload=payload,
            dispatched_at=time.monotonic(),
            name=name,
            source_message=source,
        )
        self.interactions[inter.token] = inter
        if not self.gateway.connected:
            raise AssertionError(f"{name}: no bot is connected to the gateway")
        await self.gateway.dispatch("INTERACTION_CREATE", payload)
        return inter
