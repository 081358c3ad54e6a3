"""`/quizadmin suggestions`: the server's pending suggestions, oldest first, one at a time,
with Approve, Edit (the form, prefilled), Reject (an optional reason) and Skip.

Every button and form carries the suggestion's id; each press checks Manage Server again
and that the suggestion is this server's and still pending, so a stale or forged button
gets a clear answer (decided by whom and when, or gone). A decision is taken once, in the
database; the author is told by DM, or with their next command when DMs are closed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar

import discord

from bot.common.i18n import t
from bot.community.rules import REASON_MAX, Suggestion, check_note
from bot.community.suggestions import ReviewItem
from cogs.common import guild_of, interaction_locale, require_manage_server, services_of
from cogs.ui.buttons import PersistentButton
from cogs.ui.modals import PersistentModal, build_modal, text_field
from cogs.ui.notices import tell_member
from cogs.ui.replies import send_ephemeral
from cogs.ui.suggestion_form import LANGUAGE_NAMES, read_form, suggestion_embed, suggestion_modal

if TYPE_CHECKING:
    from bot.discord.client import QuizTutorBot


def review_embed(item: ReviewItem, locale: str) -> discord.Embed:
    when = discord.utils.format_dt(item.row.created_at, "R")
    byline = t(
        "review.by",
        locale,
        author=f"<@{item.row.author_id}>",
        language=LANGUAGE_NAMES.get(item.suggestion.locale, item.suggestion.locale),
        when=when,
    )
    recent = [
        f"<@{a.actor_id}> {t(f'review.action_{a.action}', locale)} "
        + (f"#{a.suggestion_id}" if a.suggestion_id else f"`{a.question_id}`")
        for a in item.recent
    ]
    if recent:
        byline += f"\n**{t('review.recent', locale)}**: " + "; ".join(recent)
    title = t("review.title", locale, number=item.id, pending=item.pending)
    return suggestion_embed(item.suggestion, locale, title=title, byline=byline)


def review_view(suggestion_id: int, locale: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for button in SUGGESTION_BUTTONS:
        view.add_item(button(suggestion_id, label=t(button.label_key, locale)))
    return view


async def show_queue(interaction: discord.Interaction) -> None:
    """The first pending suggestion (a new private message)."""
    locale = interaction_locale(interaction)
    item = await services_of(interaction).suggestions.next_for_review(guild_of(interaction))
    if item is None:
        await send_ephemeral(interaction, t("review.empty", locale))
        return
    await send_ephemeral(
        interaction, embed=review_embed(item, locale), view=review_view(item.id, locale)
    )


async def _show_next(interaction: discord.Interaction, done: str, after_id: int = 0) -> str:
    """Replace the reviewed message with the next pending suggestion (or "none left");
    returns what follows `done` in its text."""
    locale = interaction_locale(interaction)
    item = await services_of(interaction).suggestions.next_for_review(
        guild_of(interaction), after_id
    )
    if item is None:
        tail = "\n" + t("review.empty", locale)
        await interaction.response.edit_message(
            content=(done + tail).strip(), embed=None, view=None
        )
        return tail
    await interaction.response.edit_message(
        content=done or None, embed=review_embed(item, locale), view=review_view(item.id, locale)
    )
    return ""


async def _tell_author(
    interaction: discord.Interaction, notice_id: int, done: str, tail: str
) -> None:
    """After the answer (Discord's 3 s): the DM, then how the author was told."""
    bot: QuizTutorBot = interaction.client  # type: ignore[assignment]
    by_dm = await tell_member(bot, notice_id)
    told = t("review.told_dm" if by_dm else "review.told_later", interaction_locale(interaction))
    await interaction.edit_original_response(content=f"{done} {told}{tail}")


SID = r"(?P<sid>[0-9]{1,18})"


class SuggestionButton(PersistentButton, template=r"(?!)"):
    """A decision on suggestion `suggestion_id`: "sg:{action}:{id}", one class per action.
    Each press checks Manage Server again."""

    action: ClassVar[str] = ""
    label_key: ClassVar[str] = ""
    style: ClassVar[discord.ButtonStyle] = discord.ButtonStyle.secondary

    def __init__(self, suggestion_id: int, *, label: str = "") -> None:
        super().__init__(
            discord.ui.Button(
                label=label or self.action,
                style=self.style,
                custom_id=f"sg:{self.action}:{suggestion_id}",
            )
        )
        self.suggestion_id = suggestion_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> SuggestionButton:
        return cls(int(match["sid"]))

    async def pressed(self, interaction: discord.Interaction) -> None:
        guild_id = await require_manage_server(interaction)
        await self.decide(interaction, guild_id, interaction_locale(interaction))

    async def decide(self, interaction: discord.Interaction, guild_id: int, locale: str) -> None:
        raise NotImplementedError


class ApproveButton(SuggestionButton, template=rf"sg:a:{SID}"):
    action, label_key, style = "a", "review.approve", discord.ButtonStyle.success

    async def decide(self, interaction: discord.Interaction, guild_id: int, locale: str) -> None:
        suggestions = services_of(interaction).suggestions
        sid = self.suggestion_id
        await suggestions.pending_row(guild_id, sid)  # stale or forged: says why
        server = interaction.guild.name if interaction.guild else str(guild_id)
        decision = await suggestions.approve(guild_id, sid, interaction.user.id, server)
        done = t("review.approved", locale, number=sid, question_id=decision.question_id)
        tail = await _show_next(interaction, done)
        await _tell_author(interaction, decision.notice_id, done, tail)


class EditButton(SuggestionButton, template=rf"sg:e:{SID}"):
    action, label_key, style = "e", "review.edit", discord.ButtonStyle.primary

    async def decide(self, interaction: discord.Interaction, guild_id: int, locale: str) -> None:
        sid = self.suggestion_id
        row = await services_of(interaction).suggestions.pending_row(guild_id, sid)
        form = Suggestion.from_json(row.content).form()
        title = t("suggest.edit_title", locale, number=sid)
        await interaction.response.send_modal(
            suggestion_modal(f"m:sg:e:{sid}", title, locale, form)
        )


class RejectButton(SuggestionButton, template=rf"sg:r:{SID}"):
    action, label_key, style = "r", "review.reject", discord.ButtonStyle.danger

    async def decide(self, interaction: discord.Interaction, guild_id: int, locale: str) -> None:
        sid = self.suggestion_id
        await services_of(interaction).suggestions.pending_row(guild_id, sid)
        await interaction.response.send_modal(reject_modal(sid, locale))


class SkipSuggestionButton(SuggestionButton, template=rf"sg:s:{SID}"):
    action, label_key, style = "s", "review.skip", discord.ButtonStyle.secondary

    async def decide(self, interaction: discord.Interaction, guild_id: int, locale: str) -> None:
        await _show_next(interaction, "", after_id=self.suggestion_id)


SUGGESTION_BUTTONS = (ApproveButton, EditButton, RejectButton, SkipSuggestionButton)


def reject_modal(suggestion_id: int, locale: str) -> discord.ui.Modal:
    return build_modal(
        f"m:sg:r:{suggestion_id}",
        t("review.reject_title", locale, number=suggestion_id),
        [
            text_field(
                "reason",
                t("review.reason", locale),
                description=t("review.reason_hint", locale),
                paragraph=True,
                required=False,
                max_length=REASON_MAX,
            )
        ],
    )


class EditModal(PersistentModal):
    template = re.compile(r"m:sg:e:(?P<sid>[0-9]{1,18})")

    @classmethod
    async def submitted(
        cls, interaction: discord.Interaction, match: re.Match[str], values: dict[str, Any]
    ) -> None:
        guild_id = await require_manage_server(interaction)
        locale = interaction_locale(interaction)
        sid = int(match["sid"])
        services = services_of(interaction)
        await services.suggestions.edit(
            guild_id, sid, interaction.user.id, read_form(values), locale
        )
        item = await services.suggestions.review_item(guild_id, sid)
        done = t("review.edited", locale, number=sid)
        if interaction.message is None:
            await send_ephemeral(interaction, done)
            return
        await interaction.response.edit_message(
            content=done, embed=review_embed(item, locale), view=review_view(sid, locale)
        )


class RejectModal(PersistentModal):
    template = re.compile(r"m:sg:r:(?P<sid>[0-9]{1,18})")

    @classmethod
    async def submitted(
        cls, interaction: discord.Interaction, match: re.Match[str], values: dict[str, Any]
    ) -> None:
        guild_id = await require_manage_server(interaction)
        locale = interaction_locale(interaction)
        sid = int(match["sid"])
        raw = values.get("reason")
        reason = check_note(raw if isinstance(raw, str) else None, REASON_MAX)
        server = interaction.guild.name if interaction.guild else str(guild_id)
        decision = await services_of(interaction).suggestions.reject(
            guild_id, sid, interaction.user.id, reason, server
        )
        done = t("review.rejected", locale, number=sid)
        tail = ""
        if interaction.message is None:
            await send_ephemeral(interaction, done)
        else:
            tail = await _show_next(interaction, done)
        await _tell_author(interaction, decision.notice_id, done, tail)
