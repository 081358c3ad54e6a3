"""Placeholder: filled in by the admin cog work."""

from discord.ext import commands


async def setup(bot: commands.Bot) -> None:
    return None
