"""/quiz live, bad input and abuse through the Discord stand-in: forged and stale
buttons, buttons of another round, missing permissions, a deleted thread or question
message, a member who left. Each gets a clear answer and changes nothing it should not."""

from __future__ import annotations

from testkit.standin.models import (
    CREATE_PUBLIC_THREADS,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    FakeChannel,
    FakeMessage,
)
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.live import (
    answer_id,
    answer_right,
    button_id,
    expire_question,
    lobby,
    open_round,
    positions,
    question,
    quick,
    quick_bot,
    reveal,
    rows,
    scoreboard,
    start,
    thread_of,
)


def forged(fake: FakeDiscord, where: FakeChannel, *custom_ids: str) -> FakeMessage:
    """A message carrying buttons with these custom ids (as a modified client sends)."""
    buttons = [{"type": 2, "style": 1, "label": "?", "custom_id": c} for c in custom_ids]
    return fake.store_message(
        where, fake.bot_user, {"components": [{"type": 1, "components": buttons}]}
    )


async def test_forged_stale_and_foreign_buttons_get_a_clear_answer(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host, _, member = fake.users_list
    async with quick_bot(start_bot) as bot:
        live = await open_round(fake, host, questions=1, seconds=60)
        thread, hall, round_id = live.thread, live.hall, live.id
        first = await start(fake, live, host, member)

        fakes = forged(fake, thread, "lv:garbage", "lv:99999:1:0", f"lv:{round_id}:9:0")
        for custom_id in fakes.custom_ids():
            reply = await fake.click(fakes, custom_id, member)
            assert reply.ephemeral and "no live round I know" in reply.content, custom_id
        # This round's button pressed in another channel (another round's thread).
        elsewhere = forged(fake, fake.channel2, answer_id(first, 0))
        reply = await fake.click(elsewhere, answer_id(first, 0), member)
        assert "another live round" in reply.content
        assert await rows(bot.services.db, "SELECT count(*) FROM live_answer") == [(0,)]

        right = await answer_right(fake, bot, live, first, 1, member)
        board = await scoreboard(fake, thread)
        # The round is over: its buttons still answer, and change nothing.
        stale = await fake.click(fake.message(first.id), answer_id(first, right), host, force=True)
        assert "This question is closed." in stale.content
        late_join = await fake.click(hall, button_id(hall, "j"), host)
        assert "This live round is over." in late_join.content
        mine = await fake.click(board, button_id(board, "r"), member)
        assert mine.content.startswith("Rank 1 of 1: ")
        nothing = await fake.click(board, button_id(board, "r"), host)
        assert "You did not answer" in nothing.content
        assert await rows(bot.services.db, "SELECT count(*) FROM live_answer") == [(1,)]


async def test_without_thread_permission_the_round_plays_in_the_channel(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host = fake.users_list[0]
    bot_role = fake.bot_role(fake.guild)
    fake.channel.overwrites[bot_role.id] = (0, CREATE_PUBLIC_THREADS, 0)
    async with quick_bot(start_bot):
        res = await fake.slash(host, "quiz live start", questions=1, seconds=10)
        opened = await res.wait_original()
        assert "may not create threads in this channel" in opened.content
        hall = await lobby(fake, fake.channel)
        assert fake.threads_of(fake.channel) == []
        await fake.click(hall, button_id(hall, "j"), host)
        await fake.click(hall, button_id(hall, "s"), host)
        first = await question(fake, fake.channel, 1)
        reply = await fake.click(first, answer_id(first, 0), host)
        assert reply.content.startswith("Your answer: A")
        await scoreboard(fake, fake.channel)


async def test_a_channel_where_the_bot_may_not_post_gets_one_line(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host = fake.users_list[0]
    bot_role = fake.bot_role(fake.guild)
    fake.channel.overwrites[bot_role.id] = (0, SEND_MESSAGES, 0)
    async with start_bot() as bot:
        res = await fake.slash(host, "quiz live start")
        assert res.ephemeral and res.content.startswith("⚠️ I may not post in <#")
        assert "\n" not in res.content and fake.threads_of(fake.channel) == []
        # Discord says yes in the interaction, then refuses the lobby (a race with an
        # admin): the host is told privately, and the channel is free again.
        del fake.channel.overwrites[bot_role.id]
        fake.fail("POST", r"^/channels/\d+/messages$", 403, times=1)
        res = await fake.slash(host, "quiz live start")
        told = await res.wait_followup()
        assert told.ephemeral and told.content.startswith("⚠️ I may not post in")
        assert res.message is None or res.message.deleted
        status = await rows(bot.services.db, "SELECT status, end_reason FROM live_round")
        assert [tuple(r) for r in status] == [("ended", "abandoned")]
        quick(bot)
        await fake.slash(host, "quiz live start", questions=1, seconds=10)
        # (The first attempt's thread stays, empty: deleting it needs Manage Threads.)
        await lobby(fake, await thread_of(fake, fake.channel, 1))


async def test_a_deleted_thread_ends_the_round_and_keeps_the_scores(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host, _, member = fake.users_list
    async with quick_bot(start_bot) as bot:
        live = await open_round(fake, host, questions=3, seconds=60)
        thread = live.thread
        first = await start(fake, live, host)
        await answer_right(fake, bot, live, first, 1, member)
        await expire_question(bot.services.db, live.id, 1)
        await reveal(fake, thread, 1)
        await question(fake, thread, 2)

        await fake.delete_thread(thread)
        board = await scoreboard(fake, fake.channel)  # the thread is gone: the channel
        assert "deleted" in board.text() and f"<@{member.id}>" in board.text()
        status = await rows(bot.services.db, "SELECT status, end_reason FROM live_round")
        assert [tuple(r) for r in status] == [("ended", "gone")]
        cards = await rows(bot.services.db, "SELECT user_id FROM review_log WHERE source='live'")
        assert cards == [(member.id,)]


async def test_a_deleted_question_message_ends_the_round(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host, _, member = fake.users_list
    async with quick_bot(start_bot):
        live = await open_round(fake, host, questions=3, seconds=60)
        first = await start(fake, live, host)
        await fake.remove_message(first)
        # The next edit of its live count finds it gone.
        await fake.click(first, answer_id(first, 0), member, force=True)
        board = await scoreboard(fake, live.thread)
        assert "the thread or a question was deleted" in board.text()


async def test_a_member_who_left_keeps_their_score_and_the_round_goes_on(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host, _, member = fake.users_list
    async with quick_bot(start_bot) as bot:
        live = await open_round(fake, host, questions=2, seconds=60)
        thread = live.thread
        first = await start(fake, live, host, host, member)
        await answer_right(fake, bot, live, first, 1, member, host)
        await reveal(fake, thread, 1)
        del fake.guild.members[member.id]  # left: presses no more
        second = await question(fake, thread, 2)
        await fake.click(second, answer_id(second, 0), host)
        # Not everyone who joined answered: the question waits for its deadline.
        await expire_question(bot.services.db, live.id, 2)
        board = await scoreboard(fake, thread)
        assert f"<@{member.id}>" in board.text()


async def test_a_permission_removed_mid_round_ends_it_and_says_why_in_the_channel(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host, _, member = fake.users_list
    async with quick_bot(start_bot) as bot:
        live = await open_round(fake, host, questions=3, seconds=60)
        first = await start(fake, live, host, member)
        right, _ = await positions(bot, live.id, 1)
        # An admin takes Send Messages in Threads away before the reveal.
        bot_role = fake.bot_role(fake.guild)
        fake.channel.overwrites[bot_role.id] = (0, SEND_MESSAGES_IN_THREADS, 0)
        await fake.click(first, answer_id(first, right), member)
        board = await scoreboard(fake, fake.channel)
        assert "I may no longer post in the thread" in board.text()
        assert f"<@{member.id}>" in board.text()  # the answer before it counted
        status = await rows(bot.services.db, "SELECT status, end_reason FROM live_round")
        assert status == [("ended", "forbidden")]
