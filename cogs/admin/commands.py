"""`/quizadmin add|remove|list`: a server's own quizzes, uploaded by its admins as a quiz file
(YAML) or imported from GIFT, Aiken or CSV; `/quizadmin suggestions` (the review queue,
`cogs.admin.suggestions`) and `/quizadmin reports` (`cogs.admin.reports`).

Discord hides the group from members without Manage Server (default_permissions only
works on the top-level group), but a client can still send the command, so every
subcommand checks the permission again on our side. Replies are private: they are
admin chores, and validation problems are noise for everyone else.
"""

from __future__ import annotations

import logging

import discord
from discord import app_commands
from discord.ext import commands

from bot.common.errors import UserError
from bot.common.i18n import t
from bot.common.text import clip
from bot.community import custom_quizzes_store
from bot.community.custom_quizzes import (
    MAX_QUIZZES_PER_GUILD,
    AddedQuiz,
    problems_text,
    remove_custom_quiz,
    upload_quiz,
)
from bot.community.rules import community_quiz_id
from bot.quizbank import Quiz, pick_locale
from bot.quizbank.parse import MAX_FILE_BYTES
from cogs.admin.reports import show_reports
from cogs.admin.suggestions import show_queue
from cogs.common import guild_of, interaction_locale, manage_server, services_of
from cogs.ui.replies import error_text, log_context, send_ephemeral
from cogs.ui.style import BRAND_COLOUR

log = logging.getLogger("quiztutor.admin")

MAX_TITLE_CHARS = 60


def _line(quiz: Quiz, locale: str) -> str:
    title = pick_locale(quiz.title, locale)
    title = clip(title, MAX_TITLE_CHARS)
    return t("admin.list_line", locale, quiz_id=quiz.id, title=title, count=len(quiz.questions))


class AdminCog(commands.Cog):
    quizadmin = app_commands.Group(
        name="quizadmin",
        description="Manage this server's own quizzes",
        default_permissions=discord.Permissions(manage_guild=True),
        guild_only=True,
    )

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @manage_server
    @quizadmin.command(
        name="add", description="Add or replace a quiz from a YAML, GIFT, Aiken or CSV file"
    )
    @app_commands.describe(
        file="A quiz file (.yaml, see quiztutor validate), or .gift, .aiken, .csv",
        language="The language of a GIFT, Aiken or CSV file (default: yours)",
    )
    @app_commands.choices(
        language=[
            app_commands.Choice(name="Bahasa Indonesia", value="id"),
            app_commands.Choice(name="English", value="en"),
        ]
    )
    async def add(
        self,
        interaction: discord.Interaction,
        file: discord.Attachment,
        language: app_commands.Choice[str] | None = None,
    ) -> None:
        guild_id = guild_of(interaction)
        locale = interaction_locale(interaction)
        # Refuse before downloading: Discord says the size, the bytes are not needed.
        if file.size > MAX_FILE_BYTES:
            raise UserError("admin.file_too_large", limit_kib=MAX_FILE_BYTES // 1024)
        services = services_of(interaction)
        with services.uploads.enter(guild_id):  # one at a time per server, then a pause
            # Downloading and validating may take longer than Discord's 3 s to answer.
            await interaction.response.defer(ephemeral=True, thinking=True)
            added = await self._read_upload(interaction, file, language, locale)
        if added is None:
            return
        quiz, replaced = added.quiz, added.replaced
        key = "admin.replaced" if replaced else "admin.added"
        title = pick_locale(quiz.title, locale)
        text = t(key, locale, title=title, quiz_id=quiz.id, count=len(quiz.questions))
        if added.format != "yaml":
            imported = t(
                "admin.imported",
                locale,
                title=title,
                quiz_id=quiz.id,
                count=len(quiz.questions),
                format=added.format.upper(),
            )
            text = imported + ("" if not replaced else "\n" + text)
        if added.skipped:
            skipped = problems_text(added.skipped)
            text += "\n" + t("admin.skipped", locale, count=len(added.skipped), problems=skipped)
        if added.notes:
            count = len(added.notes)
            notes = t(
                "admin.import_notes", locale, count=count, problems=problems_text(added.notes)
            )
            fits = len(text) + len(notes) < 2000
            text += "\n" + (notes if fits else t("admin.import_notes_more", locale, count=count))
        await interaction.edit_original_response(content=text[:2000])
        log.info(
            "custom quiz stored",
            extra={**log_context(interaction), "quiz_id": quiz.id, "replaced": replaced},
        )

    async def _read_upload(
        self,
        interaction: discord.Interaction,
        file: discord.Attachment,
        language: app_commands.Choice[str] | None,
        locale: str,
    ) -> AddedQuiz | None:
        """Download and read the file (in a child process); None when it was refused (the
        "thinking..." message then says why, rather than spin under a follow-up)."""
        services = services_of(interaction)
        try:
            try:
                data = await file.read()
            except discord.HTTPException:
                raise UserError("admin.download_failed") from None
            return await upload_quiz(
                services.db,
                services.bank,
                guild_of(interaction),
                interaction.user.id,
                file.filename,
                data,
                locale=language.value if language else locale,
            )
        except UserError as exc:
            await interaction.edit_original_response(
                content=error_text(exc.key, locale, **exc.params)
            )
            return None

    @manage_server
    @quizadmin.command(name="remove", description="Remove one of this server's quizzes")
    @app_commands.describe(quiz_id="The quiz id")
    async def remove(self, interaction: discord.Interaction, quiz_id: str) -> None:
        guild_id = guild_of(interaction)
        services = services_of(interaction)
        quiz_id = quiz_id.strip()
        await remove_custom_quiz(services.db, services.bank, guild_id, quiz_id)
        await send_ephemeral(
            interaction, t("admin.removed", interaction_locale(interaction), quiz_id=quiz_id)
        )
        log.info("custom quiz removed", extra={**log_context(interaction), "quiz_id": quiz_id})

    @remove.autocomplete("quiz_id")
    async def quiz_id_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None or not interaction.permissions.manage_guild:
            return []
        ids = await custom_quizzes_store.ids_of(services_of(interaction).db, interaction.guild_id)
        wanted = current.lower().strip()
        return [app_commands.Choice(name=i, value=i) for i in ids if wanted in i][:25]

    @manage_server
    @quizadmin.command(name="list", description="List the quizzes")
    async def list_quizzes(self, interaction: discord.Interaction) -> None:
        guild_id = guild_of(interaction)
        locale = interaction_locale(interaction)
        services = services_of(interaction)
        bank = services.bank
        shipped = [q for q in bank.quizzes.values() if bank.is_shipped(q.id)]
        stored = await custom_quizzes_store.ids_of(services.db, guild_id)
        own = []
        for quiz_id in stored:
            # A stored upload that no longer validates is not in the bank: say so.
            if bank.owner_of(quiz_id) == guild_id:
                own.append(_line(bank.quiz(quiz_id), locale))
            else:
                own.append(t("admin.list_broken", locale, quiz_id=quiz_id))
        community = community_quiz_id(guild_id)
        if bank.owner_of(community) == guild_id:
            own.append(_line(bank.quiz(community), locale))
        shipped_text = "\n".join(_line(q, locale) for q in shipped)
        own_text = "\n".join(own) or t("admin.list_none", locale)
        server_heading = t(
            "admin.list_server", locale, count=len(stored), limit=MAX_QUIZZES_PER_GUILD
        )
        # The description holds up to 4096 characters: 25 quizzes fit, fields (1024) may not.
        embed = discord.Embed(
            title=t("admin.list_title", locale),
            description=(
                f"**{t('admin.list_shipped', locale)}**\n{shipped_text}\n\n"
                f"**{server_heading}**\n{own_text}"
            )[:4096],
            colour=BRAND_COLOUR,
        )
        await send_ephemeral(interaction, embed=embed)

    @manage_server
    @quizadmin.command(name="suggestions", description="Review the questions members suggested")
    async def suggestions(self, interaction: discord.Interaction) -> None:
        await show_queue(interaction)

    @manage_server
    @quizadmin.command(name="reports", description="The questions members reported here")
    async def reports(self, interaction: discord.Interaction) -> None:
        await show_reports(interaction)
