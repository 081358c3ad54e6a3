"""Starting a review session: from `/quiz review` in a server, or from a reminder's
"Review now" button in a DM (which reviews the server the reminder was set in, for a
member still in it)."""

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


class NotMember(UserError):
    """A review of a server the member is no longer in (a reminder's button, pressed in a
    DM after they left): its questions are that server's members' only."""

    def __init__(self) -> None:
        super().__init__("review.not_member")


async def still_member(interaction: discord.Interaction, guild_id: int) -> bool:
    """Whether the member is in server `guild_id` now, as Discord says (the bot keeps no
    member lists: no members intent). False when the bot itself has left it."""
    client = interaction.client
    try:
        guild = client.get_guild(guild_id) or await client.fetch_guild(guild_id)
        await guild.fetch_member(interaction.user.id)
    except (discord.NotFound, discord.Forbidden):
        return False
    return True


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
    """A review of the member's due questions of `guild_id`'s quizzes, privately;
    `NotMember` when that is another server and the member is no longer in it."""
    if (
        guild_id is not None
        and guild_id != interaction.guild_id
        and not await still_member(interaction, guild_id)
    ):
        raise NotMember()
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
