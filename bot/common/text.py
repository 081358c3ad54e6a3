"""Cutting text to a limit (Discord's: 2,000 characters a message, 1,024 an embed field), and
neutralising the mentions in text members typed."""

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
