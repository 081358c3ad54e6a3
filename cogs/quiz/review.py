"""Starting a review session: from `/quiz review` in a server, or from a reminder's
"Review now" button in a DM (which reviews the server the reminder was set in)."""

from __future__ import annotations

import logging

import discord

from bot.common.errors import UserError
from bot.common.i18n import t
from bot.db.tables.quiz import QuizSession
from bot.quiz.sessions import NothingDue, QuizStep
from cogs.common import interaction_locale, services_of
from cogs.quiz.buttons import render_step
from cogs.ui.replies import log_context, send_ephemeral

log = logging.getLogger("quiztutor.quiz")

DEFAULT_REVIEW = 10


def take_cooldown(interaction: discord.Interaction) -> None:
    """One /quiz start or review per member per cooldown (shared by both)."""
    wait = services_of(interaction).quiz_cooldown.use(interaction.user.id)
    if wait:
        raise UserError("cooldown", seconds=max(1, round(wait)))


async def show_first(
    interaction: discord.Interaction, session: QuizSession, note: str | None = None
) -> None:
    """The session's first question, privately; `note` (if any) above it."""
    services = services_of(interaction)
    question, order = services.sessions.current_question(session)
    step = QuizStep(session, question, order, session.position + 1, len(session.question_ids))
    embed, view = render_step(services.bank, step)
    await interaction.response.send_message(content=note, embed=embed, view=view, ephemeral=True)


async def begin_review(
    interaction: discord.Interaction, guild_id: int | None, questions: int
) -> None:
    """A review of the member's due questions of `guild_id`'s quizzes, privately."""
    locale = interaction_locale(interaction)
    take_cooldown(interaction)
    services = services_of(interaction)
    started = await services.sessions.start_review(interaction.user.id, guild_id, questions, locale)
    if isinstance(started, NothingDue):
        services.quiz_cooldown.reset(interaction.user.id)
        if started.next_due is None:
            raise UserError("quiz.no_questions")
        due = started.next_due
        when = f"{discord.utils.format_dt(due, 'F')} ({discord.utils.format_dt(due, 'R')})"
        await send_ephemeral(interaction, t("review.nothing_due", locale, when=when))
        return
    await show_first(interaction, started)
    log.info("review started", extra={**log_context(interaction), "session_id": started.id})
