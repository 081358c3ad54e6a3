"""The buttons of live rounds and what a press does.

One persistent `DynamicItem` serves every live button: its template takes any custom id
that starts with "lv:", and `bot.live.rules.parse_button` says what it asks for. So a
forged or stale id gets a clear answer instead of a dead button. Every answer to a
press is private and in the presser's own language.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.common.errors import UserError
from bot.common.i18n import t
from bot.live.answers_store import Outcome
from bot.live.rules import PREFIX, ButtonRef, Press, parse_button
from cogs.common import interaction_locale, services_of
from cogs.live.embeds import result_text
from cogs.ui.buttons import PersistentButton, ShowDemoButton
from cogs.ui.replies import in_time, send_ephemeral
from cogs.ui.report import ReportButton
from cogs.ui.style import LETTERS


class LiveButton(PersistentButton, template=rf"{PREFIX}(?P<rest>.{{0,90}})"):
    def __init__(
        self,
        ref: ButtonRef | None,
        *,
        label: str = "?",
        style: discord.ButtonStyle = discord.ButtonStyle.primary,
        disabled: bool = False,
        row: int | None = None,
        custom_id: str | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style,
                disabled=disabled,
                custom_id=custom_id or (ref.custom_id if ref else f"{PREFIX}?"),
            ),
            row=row,
        )
        self.ref = ref

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> LiveButton:
        rest = match["rest"]
        return cls(parse_button(rest), custom_id=f"{PREFIX}{rest}")

    async def pressed(self, interaction: discord.Interaction) -> None:
        ref = self.ref
        if ref is None:
            raise UserError("live.unknown_round")
        await HANDLERS[ref.press](interaction, ref)


# -- views ------------------------------------------------------------------------------


def lobby_view(round_id: int, locale: str, *, started: bool) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(
        LiveButton(
            ButtonRef(Press.JOIN, round_id),
            label=t("live.join", locale),
            style=discord.ButtonStyle.success,
        )
    )
    view.add_item(
        LiveButton(
            ButtonRef(Press.START, round_id),
            label=t("live.start", locale),
            style=discord.ButtonStyle.secondary,
            disabled=started,
        )
    )
    return view


def question_view(
    round_id: int, number: int, n_choices: int, locale: str, *, closed: bool
) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for position in range(n_choices):
        view.add_item(
            LiveButton(
                ButtonRef(Press.ANSWER, round_id, number, position),
                label=LETTERS[position],
                disabled=closed,
                row=position // 5,
            )
        )
    view.add_item(
        LiveButton(
            ButtonRef(Press.SKIP, round_id, number),
            label=t("live.skip", locale),
            style=discord.ButtonStyle.secondary,
            disabled=closed,
            row=1 if n_choices <= 5 else 2,
        )
    )
    return view


def reveal_view(
    question_id: str, demo: str | None, locale: str, *, report: bool = True
) -> discord.ui.View:
    """Under a reveal: "Show me" when the question has a demo, and Report (not under a
    generated question)."""
    view = discord.ui.View(timeout=None)
    if demo:
        view.add_item(ShowDemoButton(demo, label=t("quiz.show_me", locale)))
    if report:
        view.add_item(ReportButton(question_id, label=t("report.button", locale)))
    return view


def scoreboard_view(round_id: int, locale: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(
        LiveButton(
            ButtonRef(Press.RESULT, round_id),
            label=t("live.my_result", locale),
            style=discord.ButtonStyle.secondary,
        )
    )
    return view


# -- presses ----------------------------------------------------------------------------

_REFUSED = {
    Outcome.CLOSED: "live.question_closed",
    Outcome.LATE: "live.late",
    Outcome.NOT_OPEN: "live.not_open",
}


async def _answer(interaction: discord.Interaction, ref: ButtonRef) -> None:
    """The answer is acknowledged once written; while the database is away the writer
    retries (the press keeps its moment, so the deadline and the points are as when it
    was pressed) and the reply is deferred, then followed up."""
    locale = interaction_locale(interaction)
    answer = services_of(interaction).live.answer(
        ref.round_id, ref.number, ref.position, interaction.user.id, interaction.channel_id
    )
    answered = await in_time(interaction, answer)
    outcome = answered.recorded.outcome
    if outcome in _REFUSED:
        raise UserError(_REFUSED[outcome])
    position = answered.letter_position if answered.letter_position is not None else ref.position
    key = "live.your_answer" if outcome is Outcome.COUNTED else "live.already_answered"
    await send_ephemeral(interaction, t(key, locale, letter=LETTERS[position]))


async def _join(interaction: discord.Interaction, ref: ButtonRef) -> None:
    locale = interaction_locale(interaction)
    join = services_of(interaction).live.join(
        ref.round_id, interaction.user.id, interaction.channel_id
    )
    joined = await in_time(interaction, join)
    await send_ephemeral(interaction, t("live.joined" if joined else "live.already_joined", locale))


def _manages_server(interaction: discord.Interaction) -> bool:
    return interaction.guild_id is not None and interaction.permissions.manage_guild


async def _start(interaction: discord.Interaction, ref: ButtonRef) -> None:
    locale = interaction_locale(interaction)
    started = await services_of(interaction).live.start_now(
        ref.round_id, interaction.user.id, _manages_server(interaction), interaction.channel_id
    )
    await send_ephemeral(
        interaction, t("live.starting" if started else "live.started_already", locale)
    )


async def _skip(interaction: discord.Interaction, ref: ButtonRef) -> None:
    locale = interaction_locale(interaction)
    skipped = await services_of(interaction).live.skip(
        ref.round_id,
        ref.number,
        interaction.user.id,
        _manages_server(interaction),
        interaction.channel_id,
    )
    key = "live.skipped" if skipped else "live.skip_late"
    await send_ephemeral(interaction, t(key, locale, number=ref.number))


async def _result(interaction: discord.Interaction, ref: ButtonRef) -> None:
    locale = interaction_locale(interaction)
    live = services_of(interaction).live
    await live.info(ref.round_id)  # a round that never existed is refused
    result = await live.result(ref.round_id, interaction.user.id)
    await send_ephemeral(interaction, result_text(result, locale))


HANDLERS = {
    Press.ANSWER: _answer,
    Press.JOIN: _join,
    Press.START: _start,
    Press.SKIP: _skip,
    Press.RESULT: _result,
}
