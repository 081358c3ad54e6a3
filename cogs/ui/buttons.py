"""The persistent-button base every feature's buttons share, the one place they are
registered, and the "Show me" button that runs a question's demo (on private quizzes, live
rounds and daily reveals alike).

Buttons are `DynamicItem`s: their custom_id carries the state they need (a session id,
a demo name, a leaderboard page), so they keep working after a restart. One class per
action: its `template` (a regex with named groups, which discord.py matches against the
whole custom_id) is the only parser of that id, and `from_custom_id` reads the groups.
Each feature registers its buttons with `add_buttons` when its extension loads. They
share one base whose failures go to the one error handler, and a press that no template
takes (a forged id, or one this version never made) is answered by `UnclaimedButtons`:
a press never ends in a dead button.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
from typing import Any, ClassVar

import discord
from discord.ext import commands

from bot.common.errors import UserError
from bot.common.i18n import t
from bot.common.text import clip
from cogs.common import interaction_locale, services_of
from cogs.ui.embeds import demo_embed
from cogs.ui.replies import (
    ERROR_PREFIX,
    error_text,
    handle_interaction_error,
    log_context,
    say_error,
)

log = logging.getLogger("quiztutor.discord")


class PersistentButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"(?!)"):
    """A persistent button of one action; subclasses say what a press does in `pressed`."""

    # The subclass's template, compiled once and handed to discord.py (which matches it
    # against the whole custom_id); `UnclaimedButtons` asks it whether an id is claimed.
    pattern: ClassVar[re.Pattern[str]] = re.compile(r"(?!)")

    def __init_subclass__(cls, *, template: str) -> None:
        cls.pattern = re.compile(template)
        super().__init_subclass__(template=cls.pattern)

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await self.pressed(interaction)
        except Exception as exc:  # every failure becomes a clear message, never a dead button
            await handle_interaction_error(interaction, exc)

    async def pressed(self, interaction: discord.Interaction) -> None:
        raise NotImplementedError


ROUTER = "UnclaimedButtons"


class UnclaimedButtons(commands.Cog, name=ROUTER):
    """Answers a press that no registered button's template takes: discord.py would drop
    it, and the member would see "This interaction failed". The message says what the
    family of the id (its prefix) means when one is registered, else that the button is
    no longer understood."""

    def __init__(self) -> None:
        self.patterns: list[re.Pattern[str]] = []
        self.unknown: dict[str, str] = {}  # custom_id prefix -> message key

    def claims(self, custom_id: str) -> bool:
        return any(pattern.fullmatch(custom_id) for pattern in self.patterns)

    def refusal(self, custom_id: str) -> str:
        for prefix, key in self.unknown.items():
            if custom_id.startswith(prefix):
                return key
        return "button.unknown"

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.type is not discord.InteractionType.component:
            return
        data: dict[str, Any] = interaction.data or {}  # type: ignore[assignment]
        custom_id = str(data.get("custom_id") or "")
        if self.claims(custom_id):
            return  # its button answers
        try:
            await say_error(interaction, self.refusal(custom_id))
        except Exception as exc:
            await handle_interaction_error(interaction, exc)


def add_buttons(
    bot: commands.Bot, *buttons: type[PersistentButton], unknown: tuple[str, str] | None = None
) -> None:
    """Register a feature's buttons with discord.py and with `UnclaimedButtons`;
    `unknown` is (prefix, message key): what a press of an id with this prefix that none
    of them takes is told."""
    router = bot.get_cog(ROUTER)
    assert isinstance(router, UnclaimedButtons), "cogs.interactions loads first"
    bot.add_dynamic_items(*buttons)
    router.patterns.extend(button.pattern for button in buttons)
    if unknown is not None:
        prefix, key = unknown
        router.unknown[prefix] = key


class ShowDemoButton(PersistentButton, template=r"demo:(?P<name>[a-z][a-z0-9-]{1,39})"):
    """After an answer: run the question's demo for whoever clicks (privately)."""

    def __init__(self, name: str, *, label: str = "Show me") -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                emoji="🔬",
                style=discord.ButtonStyle.secondary,
                custom_id=f"demo:{name}",
            ),
            row=1,
        )
        self.name = name

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ShowDemoButton:
        return cls(match["name"])

    async def pressed(self, interaction: discord.Interaction) -> None:
        await run_demo_for(interaction, self.name, {}, ephemeral=True)


async def run_demo_for(
    interaction: discord.Interaction, name: str, params: dict[str, Any], *, ephemeral: bool
) -> None:
    """Defer, queue the demo, report the queue place, then answer with the result."""
    from bot.demos.runner import (
        DemoCrashed,
        DemoFailed,
        DemoGpuBusy,
        DemoGpuFailed,
        DemoQueueFull,
        DemoRunnerClosed,
        DemoTimeout,
        check_demo,
    )

    locale = interaction_locale(interaction)
    services = services_of(interaction)
    cooldown = services.demo_cooldown
    clean = check_demo(name, params)
    if services.demos is None:
        raise UserError("demo.disabled")
    wait = cooldown.use(interaction.user.id)
    if wait:
        raise UserError("cooldown", seconds=max(1, round(wait)))
    await interaction.response.defer(ephemeral=ephemeral, thinking=True)

    async def tell_position(position: int) -> None:
        if position > 0:
            await interaction.edit_original_response(
                content=t("demo.queued", locale, position=position)
            )

    try:
        result = await services.demos.run(name, clean, on_queue_position=tell_position)
    except DemoQueueFull:
        cooldown.reset(interaction.user.id)
        await interaction.edit_original_response(content=ERROR_PREFIX + t("demo.busy", locale))
        return
    except DemoTimeout:
        await interaction.edit_original_response(content=ERROR_PREFIX + t("demo.timeout", locale))
        log.warning("demo timed out", extra=log_context(interaction))
        return
    except DemoRunnerClosed:
        # The bot is shutting down: tell the member if Discord can still be reached (its
        # HTTP session may be closing meanwhile: best effort, whatever the failure).
        with contextlib.suppress(Exception):
            await interaction.edit_original_response(
                content=ERROR_PREFIX + t("demo.crashed", locale)
            )
        log.info("demo stopped by the shutdown", extra=log_context(interaction))
        return
    except (DemoGpuBusy, DemoGpuFailed) as exc:  # what the GPU did, restarted or not
        await interaction.edit_original_response(content=error_text(exc.key, locale, **exc.params))
        return
    except (DemoCrashed, DemoFailed):
        await interaction.edit_original_response(content=ERROR_PREFIX + t("demo.crashed", locale))
        log.exception("demo failed", extra=log_context(interaction))
        return
    snippet = clip(result.snippet, 1900)
    await interaction.edit_original_response(
        content=f"```python\n{snippet}\n```",
        embed=demo_embed(result, locale),
        attachments=[discord.File(io.BytesIO(result.png), filename=f"{result.demo}.png")],
    )
