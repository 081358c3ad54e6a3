"""Placeholder: filled in by the daily cog work."""

from discord.ext import commands


async def setup(bot: commands.Bot) -> None:
    return None
