"""`/quiz start`, `/quiz review` and `/quiz stop`: a private, button-driven quiz session
per member; a review asks the member's due questions (`bot.services.review`).
`/quiz suggest` opens the form of a suggested question (`cogs.quiz.suggest`).

The buttons (`cogs.ui.buttons`) are persistent `DynamicItem`s whose custom_id carries the
session id; the session itself lives in the database, so a quiz in progress continues
after a restart.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.errors import UserError
from bot.core.i18n import t
from bot.services.sessions import NothingDue, QuizStep
from bot.storage import QuizSession
from cogs.common import interaction_locale, services_of, topic_choices
from cogs.quiz.buttons import render_step
from cogs.quiz.suggest import open_suggestion_form
from cogs.ui.replies import log_context, send_ephemeral

log = logging.getLogger("quiztutor.quiz")

MAX_QUESTIONS = 50
DEFAULT_REVIEW = 10


class QuizCog(commands.Cog):
    quiz = app_commands.Group(
        name="quiz", description="Take a quiz on mixed precision or gradient accumulation"
    )

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @quiz.command(name="start", description="Start a quiz (only you see it)")
    @app_commands.describe(topic="Which quiz (default: all)", questions="How many questions")
    async def start(
        self,
        interaction: discord.Interaction,
        topic: str | None = None,
        questions: app_commands.Range[int, 1, MAX_QUESTIONS] | None = None,
    ) -> None:
        locale = interaction_locale(interaction)
        self._take_cooldown(interaction)
        services = services_of(interaction)
        try:
            session = await services.sessions.start(
                interaction.user.id, interaction.guild_id, topic, questions, locale
            )
        except UserError:
            # A refused start should not cost the member their cooldown.
            services.quiz_cooldown.reset(interaction.user.id)
            raise
        await self._show_first(interaction, session)
        log.info("quiz started", extra={**log_context(interaction), "session_id": session.id})

    @quiz.command(name="review", description="Review the questions due for you (only you see it)")
    @app_commands.describe(questions="How many questions")
    async def review(
        self,
        interaction: discord.Interaction,
        questions: app_commands.Range[int, 1, MAX_QUESTIONS] = DEFAULT_REVIEW,
    ) -> None:
        locale = interaction_locale(interaction)
        self._take_cooldown(interaction)
        services = services_of(interaction)
        started = await services.sessions.start_review(
            interaction.user.id, interaction.guild_id, questions, locale
        )
        if isinstance(started, NothingDue):
            services.quiz_cooldown.reset(interaction.user.id)
            if started.next_due is None:
                raise UserError("quiz.no_questions")
            due = started.next_due
            when = f"{discord.utils.format_dt(due, 'F')} ({discord.utils.format_dt(due, 'R')})"
            await send_ephemeral(interaction, t("review.nothing_due", locale, when=when))
            return
        await self._show_first(interaction, started)
        log.info("review started", extra={**log_context(interaction), "session_id": started.id})

    def _take_cooldown(self, interaction: discord.Interaction) -> None:
        """One /quiz start or review per member per cooldown (shared by both)."""
        wait = services_of(interaction).quiz_cooldown.use(interaction.user.id)
        if wait:
            raise UserError("cooldown", seconds=max(1, round(wait)))

    async def _show_first(self, interaction: discord.Interaction, session: QuizSession) -> None:
        services = services_of(interaction)
        question, order = services.sessions.current_question(session)
        step = QuizStep(session, question, order, session.position + 1, len(session.question_ids))
        embed, view = render_step(services.bank, step)
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True)

    @start.autocomplete("topic")
    async def topic_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return await topic_choices(interaction, current)

    @quiz.command(name="suggest", description="Suggest a question for this server's quizzes")
    async def suggest(self, interaction: discord.Interaction) -> None:
        await open_suggestion_form(interaction)

    @quiz.command(name="stop", description="Stop your current quiz")
    async def stop(self, interaction: discord.Interaction) -> None:
        locale = interaction_locale(interaction)
        stopped = await services_of(interaction).sessions.stop(interaction.user.id)
        await send_ephemeral(
            interaction, t("quiz.stopped" if stopped else "quiz.nothing_to_stop", locale)
        )
