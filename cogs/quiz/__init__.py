"""Private quizzes on Discord (the extension `cogs.quiz`): the `/quiz` commands, the
buttons of a running quiz, and review reminders by DM."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from discord.ext import commands

from bot.outbox.rules import Owed
from cogs.quiz.buttons import PREFIX, AnswerButton, NextButton
from cogs.quiz.commands import QuizCog
from cogs.quiz.reminders import ReminderSender, ReviewNowButton
from cogs.quiz.suggest import SuggestModal
from cogs.ui.buttons import add_buttons
from cogs.ui.modals import add_modals

if TYPE_CHECKING:
    from bot.discord.client import QuizTutorBot


async def setup(bot: commands.Bot) -> None:
    add_buttons(bot, AnswerButton, NextButton, unknown=(PREFIX, "quiz.expired"))
    add_buttons(bot, ReviewNowButton)
    client = cast("QuizTutorBot", bot)
    if client.has_services:
        # The outbox sends owed reminders through this process's client.
        client.services.reminders.outbox.register(Owed.REMINDER, ReminderSender(client))
    add_modals(bot, SuggestModal)
    await bot.add_cog(QuizCog(bot))
