"""The suggestion form (a modal of five fields): a member's `/quiz suggest`, prefilled for
an admin's Edit; and how a suggestion looks in the review queue."""

from __future__ import annotations

from dataclasses import asdict
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


# The form's fields: (name, longest text, several lines, a hint under the label).
FIELDS = (
    ("prompt", PROMPT_MAX, True, False),
    ("choices", CHOICES_TEXT_MAX, True, True),
    ("answer", 3, False, True),
    ("explanation", EXPLANATION_MAX, True, True),
    ("language", LANGUAGE_MAX, False, True),
)


def suggestion_modal(
    custom_id: str, title: str, locale: str, form: SuggestionForm | None = None
) -> discord.ui.Modal:
    """Empty for a member's suggestion (in their language); prefilled for an admin's Edit."""
    defaults = asdict(form) if form else {"language": locale}
    fields = [
        text_field(
            name,
            t(f"suggest.f_{name}", locale),
            description=t(f"suggest.f_{name}_hint", locale) if hint else None,
            paragraph=paragraph,
            max_length=max_length,
            default=defaults.get(name),
        )
        for name, max_length, paragraph, hint in FIELDS
    ]
    return build_modal(custom_id, title, fields)


def read_form(values: dict[str, Any]) -> SuggestionForm:
    texts = {name: values.get(name) for name, *_ in FIELDS}
    return SuggestionForm(**{k: v if isinstance(v, str) else "" for k, v in texts.items()})


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
