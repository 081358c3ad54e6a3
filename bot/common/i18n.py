"""Interface texts in Indonesian and English.

Quiz content carries its own translations (quiz files); this module holds the
bot's own words. `t(key, locale, **params)` falls back to English, and a test
checks that every key has every locale with the same placeholders.
"""

from __future__ import annotations

from typing import Any

import bot.cli.player_texts
import bot.common.help_texts
import bot.common.texts
import bot.community.admin_texts
import bot.community.texts
import bot.daily.mode_texts
import bot.daily.texts
import bot.demos.texts
import bot.learning.texts
import bot.live.texts
import bot.stats.texts

SUPPORTED_LOCALES = ("id", "en")
DEFAULT_LOCALE = "en"


def locale_for(discord_locale: str | None) -> str:
    """Discord sends e.g. 'id', 'en-US', 'en-GB': Indonesian for 'id', English otherwise."""
    if discord_locale and discord_locale.split("-")[0] == "id":
        return "id"
    return "en"


# Each area keeps its texts in its own module; keys are prefixed by the area.
MESSAGES: dict[str, dict[str, str]] = {
    **bot.common.texts.MESSAGES,
    **bot.daily.texts.MESSAGES,
    **bot.daily.mode_texts.MESSAGES,
    **bot.stats.texts.MESSAGES,
    **bot.community.admin_texts.MESSAGES,
    **bot.cli.player_texts.MESSAGES,
    **bot.common.help_texts.MESSAGES,
    **bot.community.texts.MESSAGES,
    **bot.live.texts.MESSAGES,
    **bot.learning.texts.MESSAGES,
    **bot.demos.texts.MESSAGES,
}


def t(key: str, locale: str, /, **params: Any) -> str:
    texts = MESSAGES.get(key)
    if texts is None:
        # A missing text must never crash a handler; the key itself is still informative.
        return key
    text = texts.get(locale) or texts[DEFAULT_LOCALE]
    return text.format(**params)
