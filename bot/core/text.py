"""Cutting text to a limit (Discord's: 2,000 characters a message, 1,024 an embed field)."""

from __future__ import annotations

ELLIPSIS = "…"


def clip(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters, else cut to `limit` with a closing "…"."""
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS
