"""/streak and /leaderboard through the Discord stand-in, on stats seeded in the real database."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from bot.db.tables.daily import MemberStats
from bot.discord.client import QuizTutorBot
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.db import seed_member_stats


def custom_ids(components: list[dict[str, Any]]) -> list[str]:
    return [c["custom_id"] for row in components for c in row["components"] if "custom_id" in c]


def button(components: list[dict[str, Any]], label: str) -> dict[str, Any]:
    return next(c for row in components for c in row["components"] if c.get("label") == label)


async def delete_stats(bot: QuizTutorBot, guild_id: int, user_ids: list[int] | None) -> None:
    """Forget members' stats (all of them with None)."""
    async with bot.services.db.session() as session:
        query = select(MemberStats).where(col(MemberStats.guild_id) == guild_id)
        if user_ids is not None:
            query = query.where(col(MemberStats.user_id).in_(user_ids))
        for row in (await session.exec(query)).all():
            await session.delete(row)
        await session.commit()


async def test_streak_of_self_and_of_another_member_in_en_and_id(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, dora = fake.users_list
    async with start_bot() as bot:
        await seed_member_stats(
            bot.services.db, fake.guild.id, [(bob.id, 3, 5, 8, 6), (citra.id, 0, 2, 4, 1)]
        )

        res = await fake.slash(bob, "streak")
        assert not res.ephemeral  # public on purpose: streaks are for showing off
        embed = res.embeds[0]
        assert embed["title"] == "🔥 bob's daily streak"
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        assert fields["Current streak"] == "3 day(s)"
        assert fields["Longest streak"] == "5 day(s)"
        assert fields["Answered"] == "8"
        assert fields["Correct"] == "6"
        assert fields["Accuracy"] == "75%"

        # Citra's client is Indonesian: she asks about bob and gets Indonesian.
        res = await fake.slash(citra, "streak", member=bob)
        embed = res.embeds[0]
        assert embed["title"] == "🔥 Streak harian bob"
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        assert fields["Streak saat ini"] == "3 hari"
        assert fields["Akurasi"] == "75%"

        res = await fake.slash(citra, "streak")
        fields = {f["name"]: f["value"] for f in res.embeds[0]["fields"]}
        assert fields["Streak terpanjang"] == "2 hari"
        assert fields["Akurasi"] == "25%"

        # Someone who never answered: zeros, no accuracy, and how to get started.
        res = await fake.slash(bob, "streak", member=dora)
        embed = res.embeds[0]
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        assert fields["Answered"] == "0"
        assert fields["Accuracy"] == "—"
        assert "daily question" in embed["description"]


async def test_leaderboard_orders_pages_and_edges(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    guild_id = fake.guild.id
    # 13 members: user k has current streak k, longest 20 - k, k + 2 answers, k correct.
    base = 900_000_000_000_000_000
    rows = [(base + k, k, 20 - k, k + 2, k) for k in range(1, 14)]
    async with start_bot() as bot:
        await seed_member_stats(bot.services.db, guild_id, rows)

        res = await fake.slash(bob, "leaderboard")  # default: current streak
        assert not res.ephemeral
        embed = res.embeds[0]
        assert embed["title"] == "🏆 Leaderboard: current streak"
        lines = embed["description"].splitlines()
        assert len(lines) == 10
        assert lines[0] == f"🥇 <@{base + 13}> — 13 day(s)"
        assert lines[3] == f"**4.** <@{base + 10}> — 10 day(s)"
        assert embed["footer"]["text"].startswith("Page 1/2")
        assert "at least 3 answers" in embed["footer"]["text"]
        assert custom_ids(res.components) == ["lb:streak:0:en", "lb:streak:2:en"]
        assert button(res.components, "◀").get("disabled") is True

        # Anyone can page a public board: citra (Indonesian client) clicks ▶; the
        # message stays in the language it was posted in.
        message = res.message
        assert message is not None
        page2 = await fake.click(message, "lb:streak:2:en", citra)
        assert page2.type == 7  # the board itself is edited, no new message
        embed = page2.embeds[0]
        lines = embed["description"].splitlines()
        assert len(lines) == 3
        assert lines[0] == f"**11.** <@{base + 3}> — 3 day(s)"
        assert embed["footer"]["text"].startswith("Page 2/2")
        assert button(page2.components, "▶").get("disabled") is True
        back = await fake.click(message, "lb:streak:1:en", bob)
        assert back.embeds[0]["footer"]["text"].startswith("Page 1/2")

        res = await fake.slash(citra, "leaderboard", by="longest")
        embed = res.embeds[0]
        assert embed["title"] == "🏆 Papan skor: streak terpanjang"
        assert embed["description"].splitlines()[0] == f"🥇 <@{base + 1}> — 19 hari"
        assert embed["footer"]["text"].startswith("Halaman 1/2")
        assert custom_ids(res.components) == ["lb:longest:0:id", "lb:longest:2:id"]

        res = await fake.slash(bob, "leaderboard", by="correct")
        assert res.embeds[0]["description"].splitlines()[0] == f"🥇 <@{base + 13}> — 13 correct"

        # Accuracy is k / (k + 2): all 13 have at least 3 answers. Bob (1/1) and citra
        # (2/2) would top it but have too few answers to rank.
        await seed_member_stats(
            bot.services.db, guild_id, [(bob.id, 1, 1, 1, 1), (citra.id, 2, 2, 2, 2)]
        )
        res = await fake.slash(bob, "leaderboard", by="accuracy")
        embed = res.embeds[0]
        assert embed["description"].splitlines()[0] == f"🥇 <@{base + 13}> — 87% (13/15)"
        assert f"<@{bob.id}>" not in embed["description"]
        page2 = await fake.click(res.message, "lb:accuracy:2:en", bob)  # type: ignore[arg-type]
        assert f"<@{base + 1}> — 33% (1/3)" in page2.embeds[0]["description"]
        assert f"<@{citra.id}>" not in page2.embeds[0]["description"]

        # A stale board: it had 2 pages when posted, now fewer members rank. ▶ (page 2)
        # shows the last page that exists; when nobody ranks any more, the friendly text.
        res = await fake.slash(bob, "leaderboard", by="correct")
        board = res.message
        other = (await fake.slash(bob, "leaderboard", by="correct")).message
        assert board is not None and other is not None
        await fake.click(other, "lb:correct:2:en", bob)  # its ◀ now leads to page 1
        await delete_stats(bot, guild_id, [base + k for k in range(1, 10)])
        stale = await fake.click(board, "lb:correct:2:en", bob)
        assert stale.type == 7
        assert stale.embeds[0]["footer"]["text"].startswith("Page 1/1")
        assert len(stale.embeds[0]["description"].splitlines()) == 6  # 4 left + bob, citra
        await delete_stats(bot, guild_id, None)
        gone = await fake.click(other, "lb:correct:1:en", bob)
        assert gone.type == 7
        assert gone.embeds == [] and gone.components == []
        assert "Nobody is on this leaderboard yet" in gone.content


async def test_leaderboard_ties_share_a_rank(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, dora = fake.users_list
    async with start_bot() as bot:
        await seed_member_stats(
            bot.services.db,
            fake.guild.id,
            [(bob.id, 4, 4, 4, 4), (citra.id, 4, 4, 4, 4), (dora.id, 1, 1, 1, 1)],
        )
        res = await fake.slash(bob, "leaderboard")
        lines = res.embeds[0]["description"].splitlines()
        assert [line.split()[0] for line in lines] == ["🥇", "🥇", "🥉"]
        # One page: both buttons disabled.
        assert all(c.get("disabled") for row in res.components for c in row["components"])


async def test_empty_leaderboard_is_a_friendly_private_message(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot() as bot:
        res = await fake.slash(bob, "leaderboard")
        assert res.ephemeral
        assert res.embeds == []
        assert "Nobody is on this leaderboard yet" in res.content
        res = await fake.slash(citra, "leaderboard", by="accuracy")
        assert res.content.startswith("Belum ada yang menjawab 3 soal harian")

        # A member with answers but no current streak: still empty by current streak.
        await seed_member_stats(bot.services.db, fake.guild.id, [(bob.id, 0, 2, 2, 2)])
        res = await fake.slash(bob, "leaderboard", by="streak")
        assert res.ephemeral and "Nobody" in res.content
        res = await fake.slash(bob, "leaderboard", by="longest")
        assert not res.ephemeral
        assert res.embeds[0]["description"] == f"🥇 <@{bob.id}> — 2 day(s)"
