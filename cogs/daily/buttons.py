"""The A-D buttons of a daily post in buttons mode, and what a press does.

A button's custom id names its post (`dq:<post id>:<letter>`): a press is graded by the
post id from the moment the message exists, before its message id is recorded.

A press is graded like a reaction (`DailyAnswers.record_nowait`: the same writer, the
same first-answer-counts rule) and acknowledged only to the member ("your answer: B");
nobody sees how others answered before the reveal. The answer is committed before the
member is told, but the interaction is acknowledged within Discord's 3 s whatever the
database is doing: after `ACK_WITHIN_S` without a commit the reply is deferred, and the
answer follows when the commit is done.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.common.errors import UserError
from bot.common.i18n import t
from bot.daily import posts_store
from bot.daily.types import DailyAnswerOutcome, shown_position
from bot.quizbank.schema import MAX_CHOICES
from cogs.common import interaction_locale, services_of
from cogs.ui.buttons import PersistentButton
from cogs.ui.replies import in_time, send_ephemeral
from cogs.ui.style import LETTERS

PREFIX = "dq:"
# How long a press waits for its commit before the reply is deferred (Discord allows 3 s).
ACK_WITHIN_S = 1.5


class DailyAnswerButton(
    PersistentButton,
    template=rf"{PREFIX}(?P<post>[1-9][0-9]{{0,17}}):(?P<pos>[0-{MAX_CHOICES - 1}])",
):
    """Letter `position` (as shown) of daily post `post_id`. A "dq:" id this template does
    not take (forged or garbled) is told the answers are closed
    (`cogs.ui.buttons.UnclaimedButtons`): never a dead button."""

    def __init__(
        self, post_id: int, position: int, *, disabled: bool = False, row: int | None = None
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=LETTERS[position],
                style=discord.ButtonStyle.primary,
                disabled=disabled,
                custom_id=f"{PREFIX}{post_id}:{position}",
            ),
            row=row,
        )
        self.post_id = post_id
        self.position = position

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> DailyAnswerButton:
        return cls(int(match["post"]), int(match["pos"]))

    async def pressed(self, interaction: discord.Interaction) -> None:
        await answer_pressed(interaction, self.post_id, self.position)


def answer_view(post_id: int, n_choices: int, *, closed: bool = False) -> discord.ui.View:
    """One button per shown choice (A, B, ...), disabled once the post is revealed."""
    view = discord.ui.View(timeout=None)
    for position in range(n_choices):
        view.add_item(DailyAnswerButton(post_id, position, disabled=closed, row=position // 5))
    return view


async def answer_pressed(interaction: discord.Interaction, post_id: int, position: int) -> None:
    locale = interaction_locale(interaction)
    daily = services_of(interaction).daily
    answers = daily.answers
    message = interaction.message
    post = None
    if message is not None and interaction.channel_id is not None:
        post = await answers.button_post(post_id, interaction.channel_id, message.id)
    if post is None:
        raise UserError("daily.answers_closed")
    queued = answers.record_nowait(post, interaction.user.id, position)
    if isinstance(queued, DailyAnswerOutcome):  # closed meanwhile, or a forged letter
        raise UserError("daily.answers_closed")
    _correct, written = queued  # never shown before the reveal
    # The database is slow: acknowledge now (privately), answer when it is written.
    first = await in_time(interaction, written, after_s=ACK_WITHIN_S)
    if first:
        await send_ephemeral(interaction, t("daily.your_answer", locale, letter=LETTERS[position]))
        return
    counted = await posts_store.answer_of(daily.db, post.post_id, interaction.user.id)
    shown = shown_position(post.order, counted) if counted is not None else position
    await send_ephemeral(interaction, t("daily.already_answered", locale, letter=LETTERS[shown]))
