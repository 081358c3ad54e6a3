"""The buttons of live rounds and what a press does.

One persistent `DynamicItem` per action (join, start, answer, skip, my result), whose
template is the only parser of its custom id: "lv:{round}:j", "lv:{round}:s",
"lv:{round}:r", "lv:{round}:{number}:k" and "lv:{round}:{number}:{position}". An "lv:" id
that none of them takes (forged, or never made) is told it belongs to no live round
(`cogs.ui.buttons.UnclaimedButtons`), and a well-formed one for a round or question that
does not exist is refused by the service: never a dead button. Every answer to a press
is private and in the presser's own language.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.common.i18n import t
from bot.live.answers_store import Outcome
from bot.live.rules import MAX_QUESTIONS
from bot.quizbank.schema import MAX_CHOICES
from cogs.common import interaction_locale, services_of
from cogs.live.embeds import result_text
from cogs.ui.buttons import PersistentButton, ShowDemoButton
from cogs.ui.replies import in_time, say_error, send_ephemeral
from cogs.ui.report import ReportButton
from cogs.ui.style import LETTERS

PREFIX = "lv:"
# A round id (no leading zero, under 2**63), a question's 1-based number (1 to
# MAX_QUESTIONS exactly, the longest first), a choice's display position.
ROUND = r"(?P<round>[1-9][0-9]{0,17})"
NUMBER = rf"(?P<number>{'|'.join(str(n) for n in range(MAX_QUESTIONS, 0, -1))})"
POSITION = rf"(?P<position>[0-{MAX_CHOICES - 1}])"


class LiveRoundButton(PersistentButton, template=r"(?!)"):
    """A button of a whole round (join, start, my result): "lv:{round}:{action}"."""

    action = ""

    def __init__(
        self,
        round_id: int,
        *,
        label: str = "?",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        disabled: bool = False,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=style,
                disabled=disabled,
                custom_id=f"{PREFIX}{round_id}:{self.action}",
            )
        )
        self.round_id = round_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> LiveRoundButton:
        return cls(int(match["round"]))


class LiveJoinButton(LiveRoundButton, template=rf"{PREFIX}{ROUND}:j"):
    action = "j"

    async def pressed(self, interaction: discord.Interaction) -> None:
        await _join(interaction, self)


class LiveStartButton(LiveRoundButton, template=rf"{PREFIX}{ROUND}:s"):
    action = "s"

    async def pressed(self, interaction: discord.Interaction) -> None:
        await _start(interaction, self)


class LiveResultButton(LiveRoundButton, template=rf"{PREFIX}{ROUND}:r"):
    action = "r"

    async def pressed(self, interaction: discord.Interaction) -> None:
        await _result(interaction, self)


class LiveSkipButton(PersistentButton, template=rf"{PREFIX}{ROUND}:{NUMBER}:k"):
    """The host's "skip": reveal question `number` now."""

    def __init__(
        self, round_id: int, number: int, *, label: str = "?", disabled: bool = False, row: int = 1
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                disabled=disabled,
                custom_id=f"{PREFIX}{round_id}:{number}:k",
            ),
            row=row,
        )
        self.round_id = round_id
        self.number = number

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> LiveSkipButton:
        return cls(int(match["round"]), int(match["number"]))

    async def pressed(self, interaction: discord.Interaction) -> None:
        await _skip(interaction, self)


class LiveAnswerButton(PersistentButton, template=rf"{PREFIX}{ROUND}:{NUMBER}:{POSITION}"):
    """Letter `position` (as shown) of question `number`."""

    def __init__(
        self, round_id: int, number: int, position: int, *, disabled: bool = False
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=LETTERS[position],
                style=discord.ButtonStyle.primary,
                disabled=disabled,
                custom_id=f"{PREFIX}{round_id}:{number}:{position}",
            ),
            row=position // 5,
        )
        self.round_id = round_id
        self.number = number
        self.position = position

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> LiveAnswerButton:
        return cls(int(match["round"]), int(match["number"]), int(match["position"]))

    async def pressed(self, interaction: discord.Interaction) -> None:
        await _answer(interaction, self)


BUTTONS = (LiveJoinButton, LiveStartButton, LiveResultButton, LiveSkipButton, LiveAnswerButton)


# -- views ------------------------------------------------------------------------------


def lobby_view(round_id: int, locale: str, *, started: bool) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(
        LiveJoinButton(round_id, label=t("live.join", locale), style=discord.ButtonStyle.success)
    )
    view.add_item(LiveStartButton(round_id, label=t("live.start", locale), disabled=started))
    return view


def answer_and_skip_view(
    round_id: int, number: int, n_choices: int, locale: str, *, closed: bool
) -> discord.ui.View:
    """Under a live question: a button per choice (A, B, ...) and the host's Skip."""
    view = discord.ui.View(timeout=None)
    for position in range(n_choices):
        view.add_item(LiveAnswerButton(round_id, number, position, disabled=closed))
    view.add_item(
        LiveSkipButton(
            round_id,
            number,
            label=t("live.skip", locale),
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
    view.add_item(LiveResultButton(round_id, label=t("live.my_result", locale)))
    return view


# -- presses ----------------------------------------------------------------------------

# What a press's outcome tells the member (privately).
_SAID = {
    Outcome.COUNTED: "live.your_answer",
    Outcome.REPEAT: "live.already_answered",
    Outcome.CLOSED: "live.question_closed",
    Outcome.LATE: "live.late",
    Outcome.NOT_OPEN: "live.not_open",
}


async def _answer(interaction: discord.Interaction, ref: LiveAnswerButton) -> None:
    """The answer is acknowledged once written; while the database is away the writer
    retries (the press keeps its moment, so the deadline and the points are as when it
    was pressed) and the reply is deferred, then followed up."""
    locale = interaction_locale(interaction)
    answer = services_of(interaction).live.answer(
        ref.round_id, ref.number, ref.position, interaction.user.id, interaction.channel_id
    )
    recorded = await in_time(interaction, answer)
    key = _SAID[recorded.outcome]
    if recorded.position is None:  # refused: closed, late, or not open yet
        await say_error(interaction, key)
        return
    await send_ephemeral(interaction, t(key, locale, letter=LETTERS[recorded.position]))


async def _join(interaction: discord.Interaction, ref: LiveRoundButton) -> None:
    locale = interaction_locale(interaction)
    join = services_of(interaction).live.join(
        ref.round_id, interaction.user.id, interaction.channel_id
    )
    joined = await in_time(interaction, join)
    await send_ephemeral(interaction, t("live.joined" if joined else "live.already_joined", locale))


def _manages_server(interaction: discord.Interaction) -> bool:
    return interaction.guild_id is not None and interaction.permissions.manage_guild


async def _start(interaction: discord.Interaction, ref: LiveRoundButton) -> None:
    locale = interaction_locale(interaction)
    started = await services_of(interaction).live.start_now(
        ref.round_id, interaction.user.id, _manages_server(interaction), interaction.channel_id
    )
    await send_ephemeral(
        interaction, t("live.starting" if started else "live.started_already", locale)
    )


async def _skip(interaction: discord.Interaction, ref: LiveSkipButton) -> None:
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


async def _result(interaction: discord.Interaction, ref: LiveRoundButton) -> None:
    locale = interaction_locale(interaction)
    live = services_of(interaction).live
    await live.info(ref.round_id)  # a round that never existed is refused
    result = await live.result(ref.round_id, interaction.user.id)
    await send_ephemeral(interaction, result_text(result, locale))
