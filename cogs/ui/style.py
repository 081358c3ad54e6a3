"""Colours, limits and small formatting shared by every message the bot sends."""

from __future__ import annotations

from datetime import datetime, timedelta

import discord

from bot.quizbank.schema import CHOICE_LETTERS

BRAND_COLOUR = discord.Colour(0x2F80ED)
RIGHT_COLOUR = discord.Colour(0x27AE60)
WRONG_COLOUR = discord.Colour(0xEB5757)
LETTERS = CHOICE_LETTERS
EMBED_FIELD_MAX = 1024
EMBED_DESCRIPTION_MAX = 4096


def format_duration(elapsed: timedelta) -> str:
    seconds = int(elapsed.total_seconds())
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes}:{seconds:02d}"


def message_link(guild_id: int, channel_id: int, message_id: int | None) -> str:
    if message_id is None:
        return f"<#{channel_id}>"
    return f"https://discord.com/channels/{guild_id}/{channel_id}/{message_id}"


def discord_time(when: datetime) -> str:
    """A time every member sees in their own zone and language, and how far off it is."""
    return f"{discord.utils.format_dt(when, 'F')} ({discord.utils.format_dt(when, 'R')})"
