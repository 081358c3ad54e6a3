"""/quiz live through the Discord stand-in: a channel plays one quiz together in a
thread, against the clock, with reveals and a scoreboard."""

from __future__ import annotations

from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.live import (
    answer_id,
    answer_right,
    button_id,
    open_round,
    positions,
    question,
    quick_bot,
    reveal,
    rows,
    scoreboard,
)


async def test_a_channel_plays_a_live_round_in_a_thread(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with quick_bot(start_bot) as bot:
        live = await open_round(fake, bob, topic="gradient-accumulation", questions=2, seconds=30)
        opened = await live.reply.wait_original()
        thread, hall, round_id = live.thread, live.hall, live.id
        assert thread.type == 11 and thread.parent_id == fake.channel.id
        assert f"<#{thread.id}>" in opened.content and not opened.ephemeral
        assert thread.name.startswith("Live quiz: ")

        joined = await fake.click(hall, button_id(hall, "j"), citra)
        assert joined.ephemeral and joined.content.startswith("Anda ikut ronde ini")
        refused = await fake.click(hall, button_id(hall, "s"), citra)
        assert refused.ephemeral and "Hanya pemandu" in refused.content
        started = await fake.click(hall, button_id(hall, "s"), bob)
        assert "starts now" in started.content

        first = await question(fake, thread, 1)
        assert first.embeds[0]["title"] == "Question 1/2"
        assert [c["label"] for c in first.components[0]["components"]][:2] == ["A", "B"]
        right, wrong = await positions(bot, round_id, 1)
        mine = await fake.click(first, answer_id(first, right), bob)
        assert mine.ephemeral and mine.content.startswith(f"Your answer: {'ABCDEF'[right]}"), (
            mine.content
        )
        again = await fake.click(first, answer_id(first, wrong), bob)
        assert again.content.startswith(f"You answered {'ABCDEF'[right]} already")
        # Citra's client is in Indonesian: her reply is too. She is the last who joined.
        theirs = await fake.click(first, answer_id(first, wrong), citra)
        assert theirs.content.startswith(f"Jawaban Anda: {'ABCDEF'[wrong]}")

        # Both joined members answered: the question closes without waiting 30 s.
        shown = await reveal(fake, thread, 1)
        title = shown.embeds[0]["title"]
        assert title == f"Question 1/2: the answer is {'ABCDEF'[right]}"
        assert f"<@{bob.id}>" in shown.text() and f"<@{citra.id}>" not in shown.text()
        # A member may report the revealed question, as under any other (issue 24.3).
        assert any(c.startswith("rp:") for c in shown.custom_ids())
        await fake.wait_until(
            lambda: all(
                c.get("disabled")
                for r in fake.message(first.id).components
                for c in r["components"]
            ),
            10,
            "the first question's buttons disabled",
        )

        second = await question(fake, thread, 2)
        await answer_right(fake, bot, live, second, 2, citra, bob)
        await reveal(fake, thread, 2)
        board = await scoreboard(fake, thread)
        text = board.text()
        assert "Live quiz over" in text
        lines = [line for line in text.splitlines() if line.startswith("**")]
        assert lines[0].startswith(f"**1.** <@{bob.id}>")
        assert lines[1].startswith(f"**2.** <@{citra.id}>")

        result = await fake.click(board, button_id(board, "r"), citra)
        assert result.ephemeral and "Peringkat 2 dari 2" in result.content
        assert "/kuis ulang" in result.content

        # Every answer reached the member's review card once; the streaks are untouched.
        logs = await rows(
            bot.services.db, "SELECT user_id, correct FROM review_log WHERE source = 'live'"
        )
        assert sorted(logs) == sorted(
            [(bob.id, True), (citra.id, False), (bob.id, True), (citra.id, True)]
        )
        assert await rows(bot.services.db, "SELECT * FROM member_stats") == []
        # Citra's two answers count in /me (50 % of the topic), and her mistake is due.
        res = await fake.slash(citra, "me")
        me = await res.wait_followup()
        text = me.text()
        assert "— 50% (1/2)" in text
        assert "**1**" in text
