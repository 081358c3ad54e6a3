"""Members act only where they may speak, and start live rounds at a bounded rate, through
the Discord stand-in: a member's own channel permissions (overwrites included) decide
whether the bot answers them in public there, and `/quiz live start` is limited per member
and per server."""

from __future__ import annotations

from bot.db.database import Database
from testkit.standin.models import CREATE_PUBLIC_THREADS, SEND_MESSAGES, FakeChannel, FakeUser
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.live import lobby, quick_bot, rows, rows_become

MEMBER_OVERWRITE = 1  # Discord's overwrite type of a member (0 is a role)
NOT_ENDED = "SELECT count(*) FROM live_round WHERE status != 'ended'"


def deny(channel: FakeChannel, user: FakeUser, permission: int) -> None:
    channel.overwrites[user.id] = (0, permission, MEMBER_OVERWRITE)


async def test_a_member_who_may_not_post_here_gets_a_private_refusal_and_nothing_public(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, dora = fake.users_list
    deny(fake.channel, bob, SEND_MESSAGES)
    deny(fake.channel, citra, SEND_MESSAGES)
    async with start_bot() as bot:
        for command, options in (
            ("quiz live start", {}),
            ("demo", {"name": "accumulation"}),
            ("streak", {}),
            ("leaderboard", {}),
        ):
            res = await fake.slash(bob, command, options=options)
            assert res.ephemeral, command
            assert res.content == (
                "⚠️ You may not send messages in this channel, so I do not answer you here "
                "in public either."
            ), command
            said = await fake.slash(citra, command, options=options)  # her client is Indonesian
            assert said.ephemeral and said.content.startswith(
                "⚠️ Anda tidak boleh mengirim pesan di kanal ini"
            ), command
        assert fake.messages(fake.channel) == [] and fake.threads_of(fake.channel) == []
        assert await rows(bot.services.db, "SELECT count(*) FROM live_round") == [(0,)]

        # Where she may speak (the other channel), the same member is answered in public.
        elsewhere = await fake.slash(bob, "streak", channel=fake.channel2)
        assert not elsewhere.ephemeral and elsewhere.embeds[0]["title"] == "🔥 bob's daily streak"
        # A member who may speak here, but not open threads: a live round opens one.
        deny(fake.channel, dora, CREATE_PUBLIC_THREADS)
        res = await fake.slash(dora, "quiz live start", locale="en-US")
        assert res.ephemeral and res.content.startswith(
            "⚠️ You may not create threads in this channel"
        )
        assert fake.threads_of(fake.channel) == []
        assert await rows(bot.services.db, "SELECT count(*) FROM live_round") == [(0,)]
        shown = await fake.slash(dora, "streak", locale="en-US")  # she may post here
        assert not shown.ephemeral


async def start_and_stop(fake: FakeDiscord, db: Database, member: FakeUser) -> str | None:
    """`member` starts a live round here and stops it in its lobby: None, or the refusal."""
    res = await fake.slash(member, "quiz live start", questions=1, seconds=10, locale="en-US")
    if res.ephemeral:
        return res.content
    await res.wait_original()  # "Live round opened in <#thread>"
    await lobby(fake, fake.threads_of(fake.channel)[-1])
    await fake.slash(member, "quiz live stop", locale="en-US")
    await rows_become(db, NOT_ENDED, [(0,)])
    return None


async def test_live_starts_are_limited_per_member_and_per_server(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, dora = fake.users_list
    async with quick_bot(start_bot, live_start_limit_s=60) as bot:
        db = bot.services.db
        # One member starts and stops five times within the minute.
        told = [await start_and_stop(fake, db, bob) for _ in range(5)]
        refused = [text for text in told if text is not None]
        assert refused and all(t.startswith("⚠️ Slow down a little: try again in ") for t in refused)
        assert len(fake.threads_of(fake.channel)) <= 3
        threads = len(fake.threads_of(fake.channel))
        # Others may still start (the limit is the member's), up to the server's limit.
        assert await start_and_stop(fake, db, citra) is None
        assert await start_and_stop(fake, db, citra) is None
        assert await start_and_stop(fake, db, dora) is None
        server_full = await start_and_stop(fake, db, dora)  # her first refusal: the server's
        assert server_full is not None and server_full.startswith("⚠️ Slow down a little")
        assert len(fake.threads_of(fake.channel)) == threads + 3
