"""`/quiz start`, `/quiz review` and `/quiz stop`: a private, button-driven quiz session
per member; a review asks the member's due questions (`bot.learning.review`).
`/quiz suggest` opens the form of a suggested question (`cogs.quiz.suggest`);
`/quiz remind on|off` sets the member's review reminders (`cogs.quiz.reminders`).

The buttons (`cogs.ui.buttons`) are persistent `DynamicItem`s whose custom_id carries the
session id; the session itself lives in the database, so a quiz in progress continues
after a restart.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.common.errors import UserError
from bot.common.i18n import t
from bot.learning.reminder_rules import MIN_DUE_MAX, MIN_DUE_MIN
from cogs.common import interaction_locale, services_of, timezone_choices, topic_choices
from cogs.quiz import reminders
from cogs.quiz.review import DEFAULT_REVIEW, begin_review, show_first, take_cooldown
from cogs.quiz.suggest import open_suggestion_form
from cogs.ui.replies import log_context, send_ephemeral

log = logging.getLogger("quiztutor.quiz")

MAX_QUESTIONS = 50


class QuizCog(commands.Cog):
    quiz = app_commands.Group(
        name="quiz", description="Take a quiz on mixed precision or gradient accumulation"
    )

    remind = app_commands.Group(
        name="remind", description="Review reminders by direct message", parent=quiz
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
        take_cooldown(interaction)
        services = services_of(interaction)
        try:
            session = await services.sessions.start(
                interaction.user.id, interaction.guild_id, topic, questions, locale
            )
        except UserError:
            # A refused start should not cost the member their cooldown.
            services.quiz_cooldown.reset(interaction.user.id)
            raise
        held = len(session.question_ids)
        fewer = questions is not None and held < questions  # all the quiz holds, and why
        note = t("quiz.fewer", locale, count=held, asked=questions) if fewer else None
        await show_first(interaction, session, note)
        log.info("quiz started", extra={**log_context(interaction), "session_id": session.id})

    @quiz.command(name="review", description="Review the questions due for you (only you see it)")
    @app_commands.describe(questions="How many questions")
    async def review(
        self,
        interaction: discord.Interaction,
        questions: app_commands.Range[int, 1, MAX_QUESTIONS] = DEFAULT_REVIEW,
    ) -> None:
        await begin_review(interaction, interaction.guild_id, questions)

    @remind.command(
        name="on",
        description="A DM when your reviews are due (at most once a day; only you see it)",
    )
    @app_commands.describe(
        time="Local time of the reminder, HH:MM (24h; default 19:00)",
        min_due="Only when at least this many reviews are due (default: 5)",
        timezone="IANA time zone (default: the server's daily-question time zone)",
    )
    async def remind_on(
        self,
        interaction: discord.Interaction,
        time: str | None = None,
        min_due: app_commands.Range[int, MIN_DUE_MIN, MIN_DUE_MAX] | None = None,
        timezone: str | None = None,
    ) -> None:
        await reminders.turn_on(interaction, time, min_due, timezone)

    @remind_on.autocomplete("timezone")
    async def remind_timezone(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return timezone_choices(current)

    @remind.command(name="off", description="No more review reminders")
    async def remind_off(self, interaction: discord.Interaction) -> None:
        await reminders.turn_off(interaction)

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
