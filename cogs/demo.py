"""`/demo` and the "Show me" button: run a torch experiment in the worker process.

The interaction is deferred at once (Discord allows 3 s for the first response);
the demo runs in the worker, never in the bot process; the answer is a follow-up
with the numbers, the snippet that ran and the plot.
"""

from __future__ import annotations

import io
import logging
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cooldowns import Cooldown
from bot.errors import UserError
from bot.i18n import t
from cogs.common import (
    BRAND_COLOUR,
    handle_interaction_error,
    interaction_locale,
    log_context,
    services_of,
)
from cogs.render import clip
from experiments.catalog import CATALOG

log = logging.getLogger("quiztutor.demo")

DEMO_CHOICES = [
    app_commands.Choice(name=info.title("en"), value=name) for name, info in CATALOG.items()
]


def demo_embed(result: Any, locale: str) -> discord.Embed:
    info = CATALOG[result.demo]
    embed = discord.Embed(
        title=info.title(locale), description=info.summary(locale), colour=BRAND_COLOUR
    )
    # 25 fields at most per embed; two more follow (device, parameters).
    for label, value in result.highlights[:20]:
        embed.add_field(name=clip(str(label), 256), value=clip(str(value), 1024), inline=True)
    embed.add_field(
        name=t("demo.ran_on", locale),
        value=t(
            "demo.device_time", locale, device=result.device, seconds=f"{result.elapsed_s:.2f}"
        ),
        inline=False,
    )
    if result.params:
        params = ", ".join(f"{k}={v}" for k, v in result.params.items())
        embed.add_field(name=t("demo.params", locale), value=f"`{params}`", inline=False)
    embed.set_image(url=f"attachment://{result.demo}.png")
    return embed


def checked_params(name: str, params: dict[str, Any]) -> dict[str, int]:
    """Bounds from the torch-free catalog, with messages in the member's language."""
    info = CATALOG.get(name)
    if info is None:
        raise UserError("demo.unknown", name=name, available=", ".join(CATALOG))
    specs = {spec.name: spec for spec in info.params}
    for key, value in params.items():
        spec = specs.get(key)
        if spec is None:
            raise UserError("demo.param_unused", param=key, demo=name)
        if not spec.min <= value <= spec.max:
            raise UserError("demo.param_range", param=key, value=value, min=spec.min, max=spec.max)
    return info.validate(params)


async def run_demo_for(
    interaction: discord.Interaction, name: str, params: dict[str, Any], *, ephemeral: bool
) -> None:
    """Defer, queue the demo, report the queue place, then answer with the result."""
    from bot.demo_runner import (
        DemoCrashed,
        DemoFailed,
        DemoQueueFull,
        DemoRunnerClosed,
        DemoTimeout,
    )

    locale = interaction_locale(interaction)
    services = services_of(interaction)
    cog: DemoCog | None = interaction.client.get_cog("DemoCog")  # type: ignore[attr-defined]
    clean = checked_params(name, params)
    if services.demos is None:
        raise UserError("demo.disabled")
    if cog is not None:
        wait = cog.cooldown.retry_after(interaction.user.id)
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
        if cog is not None:
            cog.cooldown.reset(interaction.user.id)
        await interaction.edit_original_response(content="⚠️ " + t("demo.busy", locale))
        return
    except DemoTimeout:
        await interaction.edit_original_response(content="⚠️ " + t("demo.timeout", locale))
        log.warning("demo timed out", extra=log_context(interaction))
        return
    except (DemoCrashed, DemoFailed, DemoRunnerClosed):
        await interaction.edit_original_response(content="⚠️ " + t("demo.crashed", locale))
        log.exception("demo failed", extra=log_context(interaction))
        return
    snippet = clip(result.snippet, 1900)
    await interaction.edit_original_response(
        content=f"```python\n{snippet}\n```",
        embed=demo_embed(result, locale),
        attachments=[discord.File(io.BytesIO(result.png), filename=f"{result.demo}.png")],
    )


class ShowDemoButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"demo:(?P<name>[a-z][a-z0-9-]{1,39})"
):
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

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await run_demo_for(interaction, self.name, {}, ephemeral=True)
        except Exception as exc:
            await handle_interaction_error(interaction, exc)


class DemoCog(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        settings = getattr(bot, "settings", None)
        self.cooldown = Cooldown(settings.demo_cooldown_s if settings else 30.0)

    @app_commands.command(
        name="demo", description="Run a small torch experiment that shows the point"
    )
    @app_commands.describe(
        name="Which experiment",
        micro_batches="Number of micro-batches (1-16)",
        micro_batch_size="Samples per micro-batch (1-256)",
    )
    @app_commands.choices(name=DEMO_CHOICES)
    async def demo(
        self,
        interaction: discord.Interaction,
        name: app_commands.Choice[str],
        micro_batches: int | None = None,
        micro_batch_size: int | None = None,
    ) -> None:
        # Bounds are checked against the catalog so the message names the allowed range.
        params = {
            k: v
            for k, v in {
                "micro_batches": micro_batches,
                "micro_batch_size": micro_batch_size,
            }.items()
            if v is not None
        }
        await run_demo_for(interaction, name.value, params, ephemeral=False)


async def setup(bot: commands.Bot) -> None:
    bot.add_dynamic_items(ShowDemoButton)
    await bot.add_cog(DemoCog(bot))
