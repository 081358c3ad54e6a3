"""Servers in end-to-end tests: a second server with its own admin, and a small server quiz."""

from __future__ import annotations

import discord

from bot.discord.client import QuizTutorBot
from testkit.standin.models import FakeGuild
from testkit.standin.server import FakeDiscord

QUIZ = """\
id: team-basics
title:
  id: Dasar Tim
  en: Team Basics
description:
  id: Kuis kecil server ini.
  en: This server's small quiz.
questions:
  - id: tb-01
    prompt:
      id: Berapa 2 + 2?
      en: What is 2 + 2?
    choices:
      id: ["3", "4", "5"]
      en: ["3", "4", "5"]
    answer: 1
    explanation:
      id: Dua tambah dua sama dengan empat.
      en: Two plus two is four.
"""


def quiz_yaml(quiz_id: str = "team-basics", question_id: str = "tb-01") -> str:
    return QUIZ.replace("team-basics", quiz_id).replace("tb-01", question_id)


async def other_guild(fake: FakeDiscord, bot: QuizTutorBot) -> FakeGuild:
    """A second server with its own admin and member, commands registered there too."""
    guild = fake.add_guild(
        "Other Server",
        admins=[fake.add_user("olga_admin")],
        members=[fake.add_user("eve")],
    )
    await fake.announce_guild(guild)
    target = discord.Object(id=guild.id)
    bot.tree.copy_global_to(guild=target)
    await bot.tree.sync(guild=target)
    return guild
