"""The suggestion form (a modal of five fields): a member's `/quiz suggest`, prefilled for
an admin's Edit; and how a suggestion looks in the review queue."""

from __future__ import annotations

from typing import Any

import discord

from bot.common.i18n import t
from bot.common.text import clip
from bot.community.rules import CHOICES_TEXT_MAX, LANGUAGE_MAX, Suggestion, SuggestionForm
from bot.quizbank.links import unmask
from bot.quizbank.schema import EXPLANATION_MAX, PROMPT_MAX
from cogs.ui.modals import build_modal, text_field
from cogs.ui.style import BRAND_COLOUR, EMBED_DESCRIPTION_MAX, EMBED_FIELD_MAX, LETTERS

LANGUAGE_NAMES = {"id": "Bahasa Indonesia", "en": "English"}


def suggestion_modal(
    custom_id: str, title: str, locale: str, form: SuggestionForm | None = None
) -> discord.ui.Modal:
    return build_modal(
        custom_id,
        title,
        [
            text_field(
                "prompt",
                t("suggest.f_prompt", locale),
                paragraph=True,
                max_length=PROMPT_MAX,
                default=form.prompt if form else None,
            ),
            text_field(
                "choices",
                t("suggest.f_choices", locale),
                description=t("suggest.f_choices_hint", locale),
                paragraph=True,
                max_length=CHOICES_TEXT_MAX,
                default=form.choices if form else None,
            ),
            text_field(
                "answer",
                t("suggest.f_answer", locale),
                description=t("suggest.f_answer_hint", locale),
                max_length=3,
                default=form.answer if form else None,
            ),
            text_field(
                "explanation",
                t("suggest.f_explanation", locale),
                description=t("suggest.f_explanation_hint", locale),
                paragraph=True,
                max_length=EXPLANATION_MAX,
                default=form.explanation if form else None,
            ),
            text_field(
                "language",
                t("suggest.f_language", locale),
                description=t("suggest.f_language_hint", locale),
                max_length=LANGUAGE_MAX,
                default=form.language if form else locale,
            ),
        ],
    )


def read_form(values: dict[str, Any]) -> SuggestionForm:
    def text(name: str) -> str:
        value = values.get(name)
        return value if isinstance(value, str) else ""

    return SuggestionForm(
        prompt=text("prompt"),
        choices=text("choices"),
        answer=text("answer"),
        explanation=text("explanation"),
        language=text("language"),
    )


def suggestion_embed(
    suggestion: Suggestion,
    locale: str,
    *,
    title: str,
    byline: str,
    footer: str | None = None,
) -> discord.Embed:
    # A member's text: a masked link shows where it leads (`unmask`, as for uploads).
    marks = [
        f"{'✅' if index == suggestion.answer else '▫️'} **{LETTERS[index]})** {unmask(choice)}"
        for index, choice in enumerate(suggestion.choices)
    ]
    prompt = unmask(suggestion.prompt)
    embed = discord.Embed(
        title=title,
        description=clip(f"**{prompt}**\n\n" + "\n".join(marks), EMBED_DESCRIPTION_MAX),
        colour=BRAND_COLOUR,
    )
    embed.add_field(
        name=t("suggest.f_explanation", locale),
        value=clip(unmask(suggestion.explanation), EMBED_FIELD_MAX),
        inline=False,
    )
    embed.add_field(name="\u200b", value=clip(byline, EMBED_FIELD_MAX), inline=False)
    if footer:
        embed.set_footer(text=clip(footer, 2048))
    return embed
