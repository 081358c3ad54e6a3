"""/quiz live, the host's controls and the round's limits, through the Discord stand-in:
the deadline by the database's clock, Skip, /quiz live stop, a round that idles out,
one round per channel and a cap per server, the server's language for rounds."""

from __future__ import annotations

from bot.live import store
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.live import (
    answer_id,
    answer_right,
    button_id,
    execute,
    expire_question,
    lobby,
    open_round,
    question,
    quick_bot,
    reveal,
    rows,
    rows_become,
    scoreboard,
    start,
    thread_of,
)


async def test_late_answers_skip_and_a_round_that_idles_out(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host, _, member = fake.users_list  # member: a German client, answered in English
    async with quick_bot(start_bot) as bot:
        db = bot.services.db
        live = await open_round(fake, host, questions=5, seconds=60)
        thread, round_id = live.thread, live.id
        first = await start(fake, live, host)
        # Time is up by the database's clock: a press now is late, whatever the member's.
        await expire_question(db, round_id, 1)
        late = await fake.click(first, answer_id(first, 0), member)
        assert late.ephemeral and "Too late" in late.content
        shown = await reveal(fake, thread, 1)
        assert "Nobody answered." in shown.text()

        second = await question(fake, thread, 2)
        refused = await fake.click(second, button_id(second, "2:k"), member)
        assert "Only the host" in refused.content
        skipped = await fake.click(second, button_id(second, "2:k"), host)
        assert "revealed now" in skipped.content
        await reveal(fake, thread, 2)

        third = await question(fake, thread, 3)
        await fake.click(third, button_id(third, "3:k"), host)
        # Three questions in a row without an answer: the round ends by itself.
        board = await scoreboard(fake, thread)
        assert "no answers for 3 questions in a row" in board.text()
        assert "Nobody answered, so there is no scoreboard." in board.text()
        assert await rows(db, "SELECT count(*) FROM live_answer") == [(0,)]
        (status,) = await rows(db, "SELECT status, end_reason FROM live_round")
        assert tuple(status) == ("ended", "idle")


async def test_stop_ends_with_the_scoreboard_so_far(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host, _, member = fake.users_list  # member: a German client, answered in English
    async with quick_bot(start_bot) as bot:
        live = await open_round(fake, host, questions=3, seconds=60)
        thread = live.thread
        first = await start(fake, live, host, member)
        right = await answer_right(fake, bot, live, first, 1, host, member)
        await reveal(fake, thread, 1)
        second = await question(fake, thread, 2)
        await fake.click(second, answer_id(second, right), host)

        refused = await fake.slash(member, "quiz live stop", channel=thread)
        assert refused.ephemeral and "Only the host" in refused.content
        # A member with Manage Server may stop anyone's round, from the channel too.
        stopped = await fake.slash(fake.admin, "quiz live stop", channel=fake.channel)
        assert stopped.ephemeral and f"<#{thread.id}>" in stopped.content
        await reveal(fake, thread, 2)  # the open question is revealed first
        board = await scoreboard(fake, thread)
        assert "Stopped by the host." in board.text()
        assert f"<@{host.id}>" in board.text() and f"<@{member.id}>" in board.text()
        again = await fake.slash(host, "quiz live stop", channel=thread)
        assert "No live round is running" in again.content
        # The channel is free again.
        await fake.slash(host, "quiz live start", questions=1, seconds=10)
        await lobby(fake, await thread_of(fake, fake.channel, 1))


async def test_one_round_per_channel_and_a_cap_per_server(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host = fake.users_list[0]
    third = fake.add_channel(fake.guild, "third")
    async with quick_bot(start_bot, live_max_rounds_per_server=2):
        await fake.slash(host, "quiz live start", channel=fake.channel)
        thread = await thread_of(fake, fake.channel)
        await lobby(fake, thread)
        busy = await fake.slash(host, "quiz live start", channel=fake.channel)
        assert busy.ephemeral and "already running here" in busy.content
        assert f"<#{thread.id}>" in busy.content
        inside = await fake.slash(host, "quiz live start", channel=thread)
        assert f"<#{thread.id}>" in inside.content
        await fake.slash(host, "quiz live start", channel=fake.channel2)
        await lobby(fake, await thread_of(fake, fake.channel2))
        full = await fake.slash(host, "quiz live start", channel=third)
        assert full.ephemeral and "already runs 2 live round(s)" in full.content
        assert fake.threads_of(third) == []
        bad = await fake.slash(host, "quiz live start", channel=third, topic="no-such-quiz")
        assert bad.ephemeral and "no-such-quiz" in bad.content


async def test_the_servers_language_for_rounds(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host = fake.users_list[0]  # an English client
    async with quick_bot(start_bot) as bot:
        shown = (await fake.slash(host, "help")).text
        assert "`/quiz live start [topic] [questions] [seconds]`" in shown
        assert "`/quiz live stop`" in shown and "/quiz live language" not in shown
        assert "`/quiz live language language`" in (await fake.slash(fake.admin, "help")).text
        refused = await fake.slash(host, "quiz live language", language="id")
        assert refused.ephemeral and "Manage Server" in refused.content
        done = await fake.slash(fake.admin, "quiz live language", language="id")
        assert "Indonesian" in done.content
        live = await open_round(fake, host, questions=1, seconds=10)
        assert live.thread.name.startswith("Kuis langsung: ")
        assert live.hall.embeds[0]["title"].startswith("🎯 Kuis langsung")
        first = await start(fake, live, host)
        assert first.embeds[0]["title"] == "Soal 1/1"
        # Each member's own reply stays in their own language.
        reply = await fake.click(first, answer_id(first, 0), host)
        assert reply.content.startswith("Your answer: A")
        await fake.slash(fake.admin, "quiz live language", language="host")
        assert await store.config_locale(bot.services.db, fake.guild.id) is None


async def test_the_lobby_starts_by_itself_after_its_minute(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host = fake.users_list[0]
    async with quick_bot(start_bot) as bot:
        live = await open_round(fake, host, questions=1, seconds=10)
        thread, hall = live.thread, live.hall
        assert "<t:" in hall.text()  # when it starts by itself, in each member's time zone
        await rows_become(bot.services.db, "SELECT status FROM live_round", [("lobby",)])
        row = await store.get(bot.services.db, live.id)
        assert row is not None and row.next_at is not None
        assert 59 <= (row.next_at - row.created_at).total_seconds() <= 61
        # The minute passes (by the database's clock): nobody pressed Start.
        await execute(bot.services.db, "UPDATE live_round SET next_at = created_at")
        await question(fake, thread, 1)
        started = fake.message(hall.id)
        assert "has started" in started.text()
        assert next(
            c for r in started.components for c in r["components"] if c["custom_id"].endswith(":s")
        )["disabled"]
