"""`/quiz start` and `/quiz stop`: a private, button-driven quiz session per member.

The buttons are persistent `DynamicItem`s whose custom_id carries the session id; the
session itself lives in the database, so a quiz in progress continues after a restart.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cooldowns import Cooldown
from bot.errors import UserError
from bot.i18n import t
from bot.quizbank import QuizBank
from bot.sessions import QuizAnswerOutcome, QuizStep, QuizSummary
from cogs.common import (
    handle_interaction_error,
    interaction_locale,
    log_context,
    send_ephemeral,
    services_of,
    topic_choices,
)
from cogs.demo import ShowDemoButton
from cogs.render import LETTERS, answered_embed, question_embed, summary_embed

log = logging.getLogger("quiztutor.quiz")

SESSION_ID = r"[A-Za-z0-9_-]{4,32}"
MAX_QUESTIONS = 50


def question_view(session_id: str, number: int, n_choices: int) -> discord.ui.View:
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
    return view


class AnswerButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"qz:(?P<sid>{SESSION_ID}):(?P<num>[0-9]{{1,4}}):a:(?P<pos>[0-5])",
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
                custom_id=f"qz:{session_id}:{number}:a:{position}",
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

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_question(interaction, self.session_id, self.number, self.position)


class NextButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"qz:(?P<sid>{SESSION_ID}):n"
):
    def __init__(self, session_id: str, *, label: str = "→") -> None:
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.primary, custom_id=f"qz:{session_id}:n"
            ),
            row=1,
        )
        self.session_id = session_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> NextButton:
        return cls(match["sid"])

    async def callback(self, interaction: discord.Interaction) -> None:
        await next_question(interaction, self.session_id)


async def _guard(interaction: discord.Interaction, coro: Any) -> None:
    try:
        await coro
    except Exception as exc:  # every failure becomes a clear message, never a dead button
        await handle_interaction_error(interaction, exc)


def render_step(bank: QuizBank, step: QuizStep) -> tuple[discord.Embed, discord.ui.View]:
    quiz = bank.quiz_of(step.question.id)
    locale = step.session.locale
    embed = question_embed(quiz, step.question, step.order, locale, step.number, step.total)
    return embed, question_view(step.session.id, step.number, len(step.order))


async def answer_question(
    interaction: discord.Interaction, session_id: str, number: int, position: int
) -> None:
    async def run() -> None:
        services = services_of(interaction)
        outcome = await services.sessions.answer(session_id, interaction.user.id, position, number)
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
        await interaction.response.edit_message(
            embed=embed, view=answered_view(session_id, outcome)
        )

    await _guard(interaction, run())


async def next_question(interaction: discord.Interaction, session_id: str) -> None:
    async def run() -> None:
        services = services_of(interaction)
        step = await services.sessions.next(session_id, interaction.user.id)
        if isinstance(step, QuizSummary):
            locale = interaction_locale(interaction)
            embed = summary_embed(locale, step.score, step.total, step.elapsed)
            await interaction.response.edit_message(embed=embed, view=None)
            return
        embed, view = render_step(services.bank, step)
        await interaction.response.edit_message(embed=embed, view=view)

    await _guard(interaction, run())


class QuizCog(commands.Cog):
    quiz = app_commands.Group(
        name="quiz", description="Take a quiz on mixed precision or gradient accumulation"
    )

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        settings = getattr(bot, "settings", None)
        self.cooldown = Cooldown(settings.quiz_cooldown_s if settings else 3.0)

    @quiz.command(name="start", description="Start a quiz (only you see it)")
    @app_commands.describe(topic="Which quiz (default: all)", questions="How many questions")
    async def start(
        self,
        interaction: discord.Interaction,
        topic: str | None = None,
        questions: app_commands.Range[int, 1, MAX_QUESTIONS] | None = None,
    ) -> None:
        locale = interaction_locale(interaction)
        wait = self.cooldown.retry_after(interaction.user.id)
        if wait:
            raise UserError("cooldown", seconds=max(1, round(wait)))
        services = services_of(interaction)
        try:
            session = await services.sessions.start(
                interaction.user.id, interaction.guild_id, topic, questions, locale
            )
        except UserError:
            # A refused start should not cost the member their cooldown.
            self.cooldown.reset(interaction.user.id)
            raise
        question, order = services.sessions.current_question(session)
        step = QuizStep(session, question, order, session.position + 1, len(session.question_ids))
        embed, view = render_step(services.bank, step)
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True)
        log.info("quiz started", extra={**log_context(interaction), "session_id": session.id})

    @start.autocomplete("topic")
    async def topic_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await topic_choices(interaction, current)

    @quiz.command(name="stop", description="Stop your current quiz")
    async def stop(self, interaction: discord.Interaction) -> None:
        locale = interaction_locale(interaction)
        stopped = await services_of(interaction).sessions.stop(interaction.user.id)
        await send_ephemeral(
            interaction, t("quiz.stopped" if stopped else "quiz.nothing_to_stop", locale)
        )


async def setup(bot: commands.Bot) -> None:
    bot.add_dynamic_items(AnswerButton, NextButton)
    await bot.add_cog(QuizCog(bot))
