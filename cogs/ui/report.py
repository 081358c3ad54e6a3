"""The Report button every question a member sees can carry (private quiz and review, the
daily reveal, a live round's reveal): a persistent button whose custom_id names the
question, opening a form with the reasons (a select) and an optional line of text.

Any feature adds it to its view with `ReportButton(question_id, label=...)`; it is
registered once, by `cogs.interactions`, with its form (`ReportModal`).
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.common.i18n import t
from bot.community.rules import NOTE_MAX, REASONS
from cogs.common import interaction_locale, services_of
from cogs.ui.buttons import PersistentButton
from cogs.ui.modals import PersistentModal, build_modal, text_field
from cogs.ui.replies import send_ephemeral

QUESTION_ID = r"[a-z0-9][a-z0-9-]{0,39}"


class ReportButton(PersistentButton, template=rf"rp:(?P<qid>{QUESTION_ID})"):
    def __init__(self, question_id: str, *, label: str = "Report", row: int = 1) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                emoji="🚩",
                style=discord.ButtonStyle.secondary,
                custom_id=f"rp:{question_id}",
            ),
            row=row,
        )
        self.question_id = question_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReportButton:
        return cls(match["qid"])

    async def pressed(self, interaction: discord.Interaction) -> None:
        locale = interaction_locale(interaction)
        # Refused before the form: a question this server does not see (gone, or another
        # server's: its text is never shown here), or one this member reported.
        await services_of(interaction).reports.check_can_report(
            interaction.guild_id, self.question_id, interaction.user.id
        )
        await interaction.response.send_modal(report_modal(self.question_id, locale))


def report_modal(question_id: str, locale: str) -> discord.ui.Modal:
    reasons = discord.ui.Select[Any](
        custom_id="reason",
        options=[discord.SelectOption(label=t(f"report.{r}", locale), value=r) for r in REASONS],
        min_values=1,
        max_values=1,
    )
    return build_modal(
        f"m:rp:{question_id}",
        t("report.title", locale),
        [
            discord.ui.Label(text=t("report.reason", locale), component=reasons),
            text_field(
                "note",
                t("report.note", locale),
                description=t("report.note_hint", locale),
                required=False,
                max_length=NOTE_MAX,
            ),
        ],
    )


class ReportModal(PersistentModal):
    template = re.compile(rf"m:rp:(?P<qid>{QUESTION_ID})")

    @classmethod
    async def submitted(
        cls, interaction: discord.Interaction, match: re.Match[str], values: dict[str, Any]
    ) -> None:
        picked = values.get("reason") or []
        reason = picked[0] if isinstance(picked, list) and picked else ""
        note = values.get("note")
        await services_of(interaction).reports.report(
            interaction.guild_id,
            interaction.user.id,
            match["qid"],
            str(reason),
            note if isinstance(note, str) else None,
        )
        await send_ephemeral(interaction, t("report.thanks", interaction_locale(interaction)))
