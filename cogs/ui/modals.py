"""Persistent modals: like the persistent buttons, a modal's custom_id carries the state it
needs (`m:...`: which suggestion, which question), and its submission is routed by a
pattern over that custom_id, not by an object kept in memory. A form opened before a
restart (or answered by another process) is still understood after it.

A modal is built with `build_modal` (discord.py's `Modal`, stopped before it is sent, so
discord.py keeps no copy), its inputs read back with `submitted_values`. Each feature
registers its `PersistentModal`s with `add_modals`; the router (`ModalRouter`, a cog that
`cogs.interactions` adds first) hands every submission to the first whose template
matches, through the one error handler. An `m:` form nobody knows gets a clear answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

import discord
from discord.ext import commands

from cogs.ui.replies import handle_interaction_error, say_error

PREFIX = "m:"
ROUTER = "ModalRouter"


class PersistentModal:
    """Subclasses set `template` (a regex over the custom_id, starting with `m:`) and say
    what a submission does in `submitted`."""

    template: ClassVar[re.Pattern[str]]

    @classmethod
    async def submitted(
        cls, interaction: discord.Interaction, match: re.Match[str], values: dict[str, Any]
    ) -> None:
        raise NotImplementedError


def build_modal(
    custom_id: str, title: str, items: Sequence[discord.ui.Item[Any]]
) -> discord.ui.Modal:
    assert custom_id.startswith(PREFIX), custom_id
    modal = discord.ui.Modal(title=title[:45], custom_id=custom_id, timeout=None)
    for item in items:
        modal.add_item(item)
    modal.stop()  # routed by its custom_id (ModalRouter), never kept by discord.py
    return modal


def text_field(
    custom_id: str,
    label: str,
    *,
    description: str | None = None,
    paragraph: bool = False,
    default: str | None = None,
    required: bool = True,
    max_length: int = 4000,
    placeholder: str | None = None,
) -> discord.ui.Label[Any]:
    """A labelled text input (Discord's limits: label 45, description 100, text 4,000)."""
    return discord.ui.Label(
        text=label[:45],
        description=description[:100] if description else None,
        component=discord.ui.TextInput(
            custom_id=custom_id,
            style=discord.TextStyle.paragraph if paragraph else discord.TextStyle.short,
            default=default[:max_length] if default else None,
            required=required,
            max_length=max_length,
            placeholder=placeholder[:100] if placeholder else None,
        ),
    )


def submitted_values(interaction: discord.Interaction) -> dict[str, Any]:
    """custom_id -> text (a text input) or list of values (a select), from the submission."""
    values: dict[str, Any] = {}

    def walk(components: list[dict[str, Any]]) -> None:
        for component in components:
            if component.get("type") == 1:
                walk(component.get("components") or [])
            elif component.get("type") == 18:
                walk([component.get("component") or {}])
            elif "custom_id" in component:
                found = component.get("value", component.get("values"))
                values[str(component["custom_id"])] = found

    data: dict[str, Any] = interaction.data or {}  # type: ignore[assignment]
    walk(list(data.get("components") or []))
    return values


class ModalRouter(commands.Cog, name=ROUTER):
    def __init__(self) -> None:
        self.routes: list[type[PersistentModal]] = []

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        data: dict[str, Any] = interaction.data or {}  # type: ignore[assignment]
        custom_id = str(data.get("custom_id") or "")
        if not custom_id.startswith(PREFIX):
            return  # not one of ours
        try:
            for route in self.routes:
                match = route.template.fullmatch(custom_id)
                if match is not None:
                    await route.submitted(interaction, match, submitted_values(interaction))
                    return
            await say_error(interaction, "modal.unknown")
        except Exception as exc:  # every failure becomes a clear message
            await handle_interaction_error(interaction, exc)


def add_modals(bot: commands.Bot, *modals: type[PersistentModal]) -> None:
    router = bot.get_cog(ROUTER)
    assert isinstance(router, ModalRouter), "cogs.interactions loads first"
    router.routes.extend(modals)
