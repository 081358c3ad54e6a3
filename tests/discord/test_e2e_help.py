"""/help through the Discord stand-in: a private summary read from the registered commands,
admin commands only for members with Manage Server, in the member's language."""

from __future__ import annotations

from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot


async def test_help_shows_members_their_commands_and_admins_theirs_too(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot():
        res = await fake.slash(bob, "help")
        assert res.ephemeral
        (embed,) = res.embeds
        assert embed["title"] == "What quiztutor can do"
        text = embed["description"]
        assert "`/quiz start [topic] [questions]` — Start a quiz (only you see it)" in text
        assert "`/demo name [micro_batches] [micro_batch_size]`" in text
        assert "`/streak [member]`" in text and "`/leaderboard [by]`" in text
        assert "🇦 🇧 🇨 🇩" in text
        assert "/daily" not in text and "/quizadmin" not in text  # not bob's to use

        res = await fake.slash(fake.admin, "help")
        assert res.ephemeral
        text = res.embeds[0]["description"]
        assert "`/quiz start [topic] [questions]`" in text
        assert "For admins (Manage Server)" in text
        assert (
            "`/daily setup channel time timezone [topic] [reveal_after] [language] [repeat_after]"
            " [retention] [discussion] [answers]`" in text
        )
        assert "`/quizadmin add file [language]`" in text and "`/daily status`" in text
        # The admin part comes after the members' part.
        assert text.index("/quiz start") < text.index("For admins") < text.index("/daily setup")

        # Citra's Discord is in Indonesian: the commands as she sees them in her client.
        res = await fake.slash(citra, "help")
        embed = res.embeds[0]
        assert embed["title"] == "Apa yang bisa dilakukan quiztutor"
        assert (
            "`/kuis mulai [topik] [jumlah]` — Mulai kuis (hanya Anda yang melihatnya)"
            in (embed["description"])
        )
        assert "/harian" not in embed["description"]


async def test_daily_status_tells_an_admin_the_command_that_sets_it_up(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    async with start_bot():
        res = await fake.slash(fake.admin, "daily status")
        assert res.ephemeral
        assert "`/daily setup channel:#general time:08:00 timezone:Asia/Jakarta`" in res.content
        res = await fake.slash(fake.admin, "daily status", locale="id")
        assert "`/harian atur kanal:#general waktu:08:00 zona_waktu:Asia/Jakarta`" in res.content
