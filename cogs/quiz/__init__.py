"""Private quizzes on Discord (the extension `cogs.quiz`): the `/quiz` commands and the
buttons of a running quiz."""

from __future__ import annotations

from discord.ext import commands

from cogs.quiz.buttons import AnswerButton, NextButton
from cogs.quiz.commands import QuizCog
from cogs.quiz.suggest import SuggestModal
from cogs.ui.modals import add_modals


async def setup(bot: commands.Bot) -> None:
    bot.add_dynamic_items(AnswerButton, NextButton)
    add_modals(bot, SuggestModal)
    await bot.add_cog(QuizCog(bot))
