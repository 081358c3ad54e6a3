"""`/quiz suggest`: a member proposes a question in a form (a modal). Its problems come back
in the form's reply and nothing is saved; a valid one waits for an admin's review
(`/quizadmin suggestions`)."""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from bot.common.errors import UserError
from bot.common.i18n import t
from cogs.common import interaction_locale, services_of
from cogs.ui.modals import PersistentModal
from cogs.ui.replies import log_context, send_ephemeral
from cogs.ui.suggestion_form import read_form, suggestion_modal

log = logging.getLogger("quiztutor.community")


async def open_suggestion_form(interaction: discord.Interaction) -> None:
    if interaction.guild_id is None:
        raise UserError("perm.guild_only")
    locale = interaction_locale(interaction)
    await interaction.response.send_modal(
        suggestion_modal("m:sg:new", t("suggest.title", locale), locale)
    )


class SuggestModal(PersistentModal):
    template = re.compile(r"m:sg:new")

    @classmethod
    async def submitted(
        cls, interaction: discord.Interaction, match: re.Match[str], values: dict[str, Any]
    ) -> None:
        if interaction.guild_id is None:
            raise UserError("perm.guild_only")
        locale = interaction_locale(interaction)
        number, _ = await services_of(interaction).suggestions.submit(
            interaction.guild_id, interaction.user.id, locale, read_form(values)
        )
        await send_ephemeral(interaction, t("suggest.stored", locale, number=number))
        log.info("suggestion stored", extra={**log_context(interaction), "suggestion": number})
