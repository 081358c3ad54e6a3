"""Colours, limits and small formatting shared by every message the bot sends."""

from __future__ import annotations

import string
from datetime import datetime, timedelta

import discord

BRAND_COLOUR = discord.Colour(0x2F80ED)
RIGHT_COLOUR = discord.Colour(0x27AE60)
WRONG_COLOUR = discord.Colour(0xEB5757)
LETTERS = string.ascii_uppercase
EMBED_FIELD_MAX = 1024
EMBED_DESCRIPTION_MAX = 4096


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_duration(elapsed: timedelta) -> str:
    seconds = int(elapsed.total_seconds())
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes}:{seconds:02d}"


def message_link(guild_id: int, channel_id: int, message_id: int | None) -> str:
    if message_id is None:
        return f"<#{channel_id}>"
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


def discord_time(when: datetime) -> str:
    stamp = int(when.timestamp())
    return f"<t:{stamp}:F> (<t:{stamp}:R>)"
