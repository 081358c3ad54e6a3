"""Every interface text exists in Indonesian and English with the same placeholders."""

from __future__ import annotations

import string

from bot.common.i18n import MESSAGES, SUPPORTED_LOCALES, locale_for, t


def placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}


def test_every_message_has_every_locale_with_the_same_placeholders() -> None:
    for key, texts in MESSAGES.items():
        assert set(texts) == set(SUPPORTED_LOCALES), key
        assert placeholders(texts["id"]) == placeholders(texts["en"]), key
        assert texts["id"] != texts["en"] or not any(c.isalpha() for c in texts["en"]), key


def test_locale_follows_discord_locale() -> None:
    assert locale_for("id") == "id"
    assert locale_for("en-US") == "en"
    assert locale_for("de") == "en"
    assert locale_for(None) == "en"
    assert (
        t("quiz.unknown_topic", "id", topic="x", available="a, b")
        == "Tidak ada kuis 'x'. Yang tersedia: a, b."
    )
    assert t("no.such.key", "en") == "no.such.key"
