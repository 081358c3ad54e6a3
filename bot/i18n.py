"""Interface texts in Indonesian and English.

Quiz content carries its own translations (quiz files); this module holds the
bot's own words. `t(key, locale, **params)` falls back to English, and a test
checks that every key has every locale with the same placeholders.
"""

from __future__ import annotations

from typing import Any

SUPPORTED_LOCALES = ("id", "en")
DEFAULT_LOCALE = "en"


def locale_for(discord_locale: str | None) -> str:
    """Discord sends e.g. 'id', 'en-US', 'en-GB': Indonesian for 'id', English otherwise."""
    if discord_locale and discord_locale.split("-")[0] == "id":
        return "id"
    return "en"


MESSAGES: dict[str, dict[str, str]] = {
    # --- the terminal tutor -------------------------------------------------------
    "tutor.header": {
        "en": "{title} — {count} question(s). Answer with the letter of a choice.",
        "id": "{title} — {count} soal. Jawab dengan huruf pilihan.",
    },
    "tutor.question": {
        "en": "Question {number}/{count}",
        "id": "Soal {number}/{count}",
    },
    "tutor.prompt": {"en": "Your answer ({letters}): ", "id": "Jawaban Anda ({letters}): "},
    "tutor.bad_letter": {
        "en": "'{value}' is not a choice. Type one of: {letters}.",
        "id": "'{value}' bukan pilihan. Ketik salah satu: {letters}.",
    },
    "tutor.correct": {"en": "Correct!", "id": "Benar!"},
    "tutor.wrong": {
        "en": "Not quite. The answer is {letter}) {choice}",
        "id": "Kurang tepat. Jawabannya {letter}) {choice}",
    },
    "tutor.demo_hint": {
        "en": "See it run: quiztutor demo {demo}",
        "id": "Lihat buktinya: quiztutor demo {demo}",
    },
    "tutor.score": {
        "en": "Score: {score}/{count} ({percent}%)",
        "id": "Skor: {score}/{count} ({percent}%)",
    },
    "tutor.ended_early": {
        "en": "Input ended before the quiz did.",
        "id": "Masukan berakhir sebelum kuis selesai.",
    },
    "quiz.unknown_topic": {
        "en": "There is no quiz '{topic}'. Available: {available}.",
        "id": "Tidak ada kuis '{topic}'. Yang tersedia: {available}.",
    },
    "quiz.bad_count": {
        "en": "The number of questions must be between 1 and {maximum}.",
        "id": "Jumlah soal harus antara 1 dan {maximum}.",
    },
}


def t(key: str, locale: str, /, **params: Any) -> str:
    texts = MESSAGES.get(key)
    if texts is None:
        # A missing text must never crash a handler; the key itself is still informative.
        return key
    text = texts.get(locale) or texts[DEFAULT_LOCALE]
    return text.format(**params)
