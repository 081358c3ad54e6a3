"""`/quizadmin reports`: the questions members reported in this server, newest report first,
five a page, with the counts per reason, the latest note, and per question a button that
hides it from this server until it is fixed (or shows it again)."""

from __future__ import annotations

import re
from typing import Any, ClassVar

import discord

from bot.common.i18n import t
from bot.common.text import clip
from bot.community.reports import ReportsPage
from bot.community.rules import REASONS
from bot.quizbank.links import unmask
from cogs.common import guild_of, interaction_locale, require_manage_server, services_of
from cogs.ui.buttons import PersistentButton
from cogs.ui.replies import send_ephemeral
from cogs.ui.style import BRAND_COLOUR, EMBED_DESCRIPTION_MAX

QUESTION_ID = r"[a-z0-9][a-z0-9-]{0,39}"
PROMPT_CHARS = 120


def reports_embed(page: ReportsPage, locale: str) -> discord.Embed:
    blocks = []
    for number, line in enumerate(page.lines, start=1):
        reported = line.reported
        counts = ", ".join(
            f"{t(f'report.{reason}', locale)}: {reported.counts[reason]}"
            for reason in REASONS
            if reported.counts[reason]
        )
        head = (
            f"**{number}.** `{reported.question_id}` · "
            f"{t('reports.count', locale, count=reported.total)} · "
            f"{t('reports.last', locale, when=discord.utils.format_dt(reported.last_at, 'R'))}"
        )
        if line.hidden:
            head += f" · {t('reports.hidden', locale)}"
        prompt = (
            clip(line.question.text("prompt", locale), PROMPT_CHARS)
            if line.question is not None
            else t("reports.gone", locale)
        )
        block = f"{head}\n> {prompt}\n{counts}"
        if reported.last_note:
            # A member's note: a masked link shows where it leads.
            note = clip(unmask(reported.last_note), 200)
            block += f"\n{t('reports.note', locale)}: *{note}*"
        blocks.append(block)
    return discord.Embed(
        title=t("reports.title", locale, page=page.page, pages=page.pages, total=page.total),
        description=clip("\n\n".join(blocks), EMBED_DESCRIPTION_MAX),
        colour=BRAND_COLOUR,
    )


def reports_view(page: ReportsPage, locale: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for number, line in enumerate(page.lines, start=1):
        if line.question is None:
            continue
        button = UnhideButton if line.hidden else HideButton
        key = "reports.unhide" if line.hidden else "reports.hide"
        view.add_item(
            button(page.page, line.reported.question_id, label=t(key, locale, number=number))
        )
    if page.pages > 1:
        view.add_item(ReportsPageButton(page.page - 1, label="◀", disabled=page.page <= 1))
        view.add_item(ReportsPageButton(page.page + 1, label="▶", disabled=page.page >= page.pages))
    return view


async def render(interaction: discord.Interaction, page_number: int) -> dict[str, Any]:
    locale = interaction_locale(interaction)
    page = await services_of(interaction).reports.page(guild_of(interaction), page_number)
    if not page.lines:
        return {"content": t("reports.empty", locale), "embed": None, "view": None}
    return {"embed": reports_embed(page, locale), "view": reports_view(page, locale)}


async def show_reports(interaction: discord.Interaction) -> None:
    shown = await render(interaction, 1)
    if shown.get("view") is None:
        await send_ephemeral(interaction, shown["content"])
        return
    await send_ephemeral(interaction, embed=shown["embed"], view=shown["view"])


PAGE = r"(?P<page>[0-9]{1,4})"


async def _show_page(interaction: discord.Interaction, page: int, done: str | None) -> None:
    """Edit the pressed list into page `page` (after `done`, what a press did)."""
    shown = await render(interaction, page)
    content = "\n".join(part for part in (done, shown.get("content")) if part) or None
    await interaction.response.edit_message(
        content=content, embed=shown.get("embed"), view=shown.get("view")
    )


class ReportsPageButton(PersistentButton, template=rf"rq:p:{PAGE}"):
    """Page `page` of the reports: "rq:p:{page}"."""

    def __init__(self, page: int, *, label: str = "", disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or str(page),
                style=discord.ButtonStyle.secondary,
                custom_id=f"rq:p:{page}",
                disabled=disabled,
            ),
            row=1,
        )
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReportsPageButton:
        return cls(int(match["page"]))

    async def pressed(self, interaction: discord.Interaction) -> None:
        await require_manage_server(interaction)
        await _show_page(interaction, self.page, None)


class QuestionButton(PersistentButton, template=r"(?!)"):
    """Hide or show again a reported question, listed on page `page`:
    "rq:{action}:{page}:{question id}", one class per action."""

    action: ClassVar[str] = ""
    style: ClassVar[discord.ButtonStyle] = discord.ButtonStyle.secondary

    def __init__(self, page: int, question_id: str, *, label: str = "") -> None:
        super().__init__(
            discord.ui.Button(
                label=label or self.action,
                style=self.style,
                custom_id=f"rq:{self.action}:{page}:{question_id}",
            ),
            row=0,
        )
        self.page = page
        self.question_id = question_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> QuestionButton:
        return cls(int(match["page"]), match["qid"])

    async def pressed(self, interaction: discord.Interaction) -> None:
        guild_id = await require_manage_server(interaction)
        done = await self.act(interaction, guild_id, interaction_locale(interaction))
        await _show_page(interaction, self.page, done)

    async def act(self, interaction: discord.Interaction, guild_id: int, locale: str) -> str:
        raise NotImplementedError


class HideButton(QuestionButton, template=rf"rq:h:{PAGE}:(?P<qid>{QUESTION_ID})"):
    action, style = "h", discord.ButtonStyle.danger

    async def act(self, interaction: discord.Interaction, guild_id: int, locale: str) -> str:
        reports = services_of(interaction).reports
        await reports.hide(guild_id, self.question_id, interaction.user.id)
        return t("reports.hid", locale, question_id=self.question_id)


class UnhideButton(QuestionButton, template=rf"rq:u:{PAGE}:(?P<qid>{QUESTION_ID})"):
    action, style = "u", discord.ButtonStyle.secondary

    async def act(self, interaction: discord.Interaction, guild_id: int, locale: str) -> str:
        reports = services_of(interaction).reports
        await reports.unhide(guild_id, self.question_id, interaction.user.id)
        return t("reports.unhid", locale, question_id=self.question_id)


REPORTS_BUTTONS = (ReportsPageButton, HideButton, UnhideButton)
