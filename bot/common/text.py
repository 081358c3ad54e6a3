"""Cutting text to a limit (Discord's: 2,000 characters a message, 1,024 an embed field),
making text members typed inert (`member_text`, when it is stored), and spreadsheet cells
that never run as a formula (`csv_cell`)."""

from __future__ import annotations

import re

ELLIPSIS = "…"


def clip(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters, else cut to `limit` with a closing "…"."""
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


# <@123>, <@!123>, <@&123> (a role), <#123> (a channel), and @everyone / @here.
_MENTION = re.compile(r"<(@[!&]?|#)(\d+)>")
_MASS_MENTION = re.compile(r"@(everyone|here)\b")
# Full-width signs: they read the same, never mention anyone, and keep the text's length.
_SIGNS = str.maketrans({"@": "\uff20", "#": "\uff03"})


def neutralise_mentions(text: str) -> str:
    """Text a member typed, shown later by the bot: mentions stay readable but neither
    ping (allowed_mentions is none bot-wide anyway) nor render as a member, role or
    channel, wherever the text ends up (an embed, a DM, a file). Lengths do not change."""
    text = _MENTION.sub(lambda m: f"<{m[1].translate(_SIGNS)}{m[2]}>", text)
    return _MASS_MENTION.sub(lambda m: f"\uff20{m[1]}", text)


# What a member's text never keeps: C0 controls (a line break is kept, a tab becomes a
# space, a carriage return a line break), DEL and the C1 controls (ESC and CSI start a
# terminal's escape sequences); the bidi marks, embeddings, overrides and isolates (text
# that reads other than it is stored); zero-width spaces and joiners, word joiner,
# invisible operators, byte order mark, soft hyphen, interlinear annotation marks.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]"
)
_SPACING = str.maketrans({"\t": " ", "\u2028": "\n", "\u2029": "\n"})


def strip_invisible(text: str) -> str:
    """`text` without control, bidi and zero-width characters (one pass, linear)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_SPACING)
    return _INVISIBLE.sub("", text)


def member_text(text: str) -> str:
    """Text a member wrote, as it is stored: nothing invisible, no mention that renders."""
    return neutralise_mentions(strip_invisible(text))


# A spreadsheet reads a cell starting with one of these as a formula (tab and carriage
# return: some strip them first and then see the sign behind).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: str) -> str:
    """A CSV cell a spreadsheet shows as text: a leading ' before a formula's first sign."""
    return "'" + value if value.startswith(_FORMULA_START) else value
