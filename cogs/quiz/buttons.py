"""The buttons of a private quiz (A-F and Next) and what a press does: grade the answer,
show the explanation, go on. Their custom_id carries the session id and the question's
number, so a quiz in progress continues after a restart and an old question's buttons
are refused. One `DynamicItem` per action (answer, next), whose template is the only parser
of its custom id; a "qz:" id that neither takes is told the quiz is no longer active
(`cogs.ui.buttons.UnclaimedButtons`)."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.common.i18n import t
from bot.quiz.sessions import QuizAnswerOutcome, QuizStep, QuizSummary
from bot.quizbank import QuizBank
from bot.quizbank.generated import GeneratedQuestion
from bot.quizbank.schema import MAX_CHOICES
from cogs.common import interaction_locale, services_of
from cogs.ui.buttons import PersistentButton, ShowDemoButton
from cogs.ui.embeds import answered_embed, question_embed, summary_embed
from cogs.ui.replies import edit_response, in_time
from cogs.ui.report import ReportButton
from cogs.ui.style import LETTERS

PREFIX = "qz:"
SESSION_ID = r"[A-Za-z0-9_-]{4,32}"


class AnswerButton(
    PersistentButton,
    template=rf"{PREFIX}(?P<sid>{SESSION_ID}):(?P<num>[0-9]{{1,4}}):a:(?P<pos>[0-{MAX_CHOICES - 1}])",
):
    """Choice `position` of question `number`; the number refuses clicks on old questions."""

    def __init__(
        self,
        session_id: str,
        number: int,
        position: int,
        *,
        style: discord.ButtonStyle = discord.ButtonStyle.primary,
        disabled: bool = False,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=LETTERS[position],
                style=style,
                disabled=disabled,
                custom_id=f"{PREFIX}{session_id}:{number}:a:{position}",
            ),
            # Five buttons fit a row: a sixth choice goes to the row of Next / Show me.
            row=position // 5,
        )
        self.session_id = session_id
        self.number = number
        self.position = position

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> AnswerButton:
        return cls(match["sid"], int(match["num"]), int(match["pos"]))

    async def pressed(self, interaction: discord.Interaction) -> None:
        await answer_question(interaction, self.session_id, self.number, self.position)


class NextButton(PersistentButton, template=rf"{PREFIX}(?P<sid>{SESSION_ID}):n"):
    def __init__(self, session_id: str, *, label: str = "→") -> None:
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.primary, custom_id=f"{PREFIX}{session_id}:n"
            ),
            row=1,
        )
        self.session_id = session_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> NextButton:
        return cls(match["sid"])

    async def pressed(self, interaction: discord.Interaction) -> None:
        await next_question(interaction, self.session_id)


def choice_buttons_view(session_id: str, number: int, n_choices: int) -> discord.ui.View:
    """Under a private quiz's question: a button per choice (A, B, ...)."""
    view = discord.ui.View(timeout=None)
    for position in range(n_choices):
        view.add_item(AnswerButton(session_id, number, position))
    return view


def answered_view(session_id: str, outcome: QuizAnswerOutcome) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for position in range(len(outcome.order)):
        if position == outcome.correct_position:
            style = discord.ButtonStyle.success
        elif position == outcome.chosen_position:
            style = discord.ButtonStyle.danger
        else:
            style = discord.ButtonStyle.secondary
        view.add_item(
            AnswerButton(session_id, outcome.number, position, style=style, disabled=True)
        )
    label = t("quiz.finish" if outcome.is_last else "quiz.next", outcome.locale)
    view.add_item(NextButton(session_id, label=label))
    if outcome.question.demo:
        view.add_item(
            ShowDemoButton(outcome.question.demo, label=t("quiz.show_me", outcome.locale))
        )
    if not isinstance(outcome.question, GeneratedQuestion):
        # A report hides a question's text until it is fixed; an instance has none to fix.
        view.add_item(ReportButton(outcome.question.id, label=t("report.button", outcome.locale)))
    return view


def render_step(bank: QuizBank, step: QuizStep) -> tuple[discord.Embed, discord.ui.View]:
    quiz = bank.quiz_of(step.question.id)
    locale = step.session.locale
    embed = question_embed(quiz, step.question, step.order, locale, step.number, step.total)
    return embed, choice_buttons_view(step.session.id, step.number, len(step.order))


async def answer_question(
    interaction: discord.Interaction, session_id: str, number: int, position: int
) -> None:
    services = services_of(interaction)
    outcome = await in_time(
        interaction,
        services.sessions.answer(session_id, interaction.user.id, position, number),
        update=True,
    )
    quiz = services.bank.quiz_of(outcome.question.id)
    embed = answered_embed(
        quiz,
        outcome.question,
        outcome.order,
        outcome.locale,
        outcome.number,
        outcome.total,
        outcome.chosen_position,
    )
    await edit_response(interaction, embed=embed, view=answered_view(session_id, outcome))


async def next_question(interaction: discord.Interaction, session_id: str) -> None:
    services = services_of(interaction)

    async def work() -> tuple[discord.Embed, discord.ui.View | None]:
        found = await services.sessions.next(session_id, interaction.user.id)
        if isinstance(found, QuizSummary):
            locale = interaction_locale(interaction)
            # What the answers left to practise: mistakes are due at once (/quiz review).
            reviews = await services.sessions.reviews.counts(
                interaction.user.id, interaction.guild_id
            )
            return summary_embed(
                locale, found.score, found.total, found.elapsed, reviews=reviews
            ), None
        return render_step(services.bank, found)

    embed, view = await in_time(interaction, work(), update=True)
    await edit_response(interaction, embed=embed, view=view)
