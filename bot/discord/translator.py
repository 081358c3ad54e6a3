"""Slash commands shown in the member's language: Discord asks the translator for every
command, option and choice name when the commands are registered (`quiztutor sync`)."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.discord.command_texts import COMMAND_TEXTS_ID


def _demo_titles_id() -> dict[str, str]:
    from experiments.catalog import CATALOG  # torch-free

    return {info.title("en"): info.title("id") for info in CATALOG.values()}


class CommandTranslator(app_commands.Translator):
    def __init__(self) -> None:
        # Demo choices are named by the experiments' own localized titles.
        self.texts_id = {**_demo_titles_id(), **COMMAND_TEXTS_ID}

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if locale is discord.Locale.indonesian:
            return self.texts_id.get(string.message)
        return None
