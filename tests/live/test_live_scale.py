"""A live round under load, through the Discord stand-in: 200 members press within a
second (some twice). Correctness only (every press answered, each answer counted once,
at most one edit of the question per 2 s, Discord's rate limits respected); the
timings are `python -m bench --only live`'s."""

from __future__ import annotations

import itertools
import re

from testkit.standin.models import FakeMessage, FakeUser
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.live import (
    answer_id,
    open_round,
    quick_bot,
    reveal,
    rows,
    start,
)

MEMBERS = 200
TWICE = 50  # of them press a second, different button


def members(fake: FakeDiscord, count: int) -> list[FakeUser]:
    users = [fake.add_user(f"player{i}") for i in range(count)]
    for user in users:
        fake.add_member(fake.guild, user)
    return users


def edit_gaps(message: FakeMessage) -> list[float]:
    return [b - a for a, b in itertools.pairwise(message.edit_times)]


async def test_200_members_pressing_at_once_are_each_counted_once(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    fake.enforce_ack_deadline = False  # timing is the benchmark's; here: every answer
    fake.limit_message_edits(5, 5.0)  # as Discord: edits per channel
    host = fake.users_list[0]
    players = members(fake, MEMBERS)
    async with quick_bot(start_bot) as bot:
        live = await open_round(fake, host, questions=2, seconds=120)
        thread, round_id = live.thread, live.id
        first = await start(fake, live, host, host)  # the question waits for them
        n_choices = sum(1 for c in first.custom_ids() if re.fullmatch(r"lv:\d+:1:\d", c))
        chosen = {p.id: i % n_choices for i, p in enumerate(players)}
        presses = [(first, answer_id(first, chosen[p.id]), p) for p in players]
        done = await fake.press_all(presses, 1.0, seed=5)
        again = [
            (first, answer_id(first, (chosen[p.id] + 1) % n_choices), p) for p in players[:TWICE]
        ]
        done_again = await fake.press_all(again, 0.5, seed=6)

        assert all(i.callback_type == 4 and i.original and i.original.ephemeral for i in done)
        for (_, _, player), inter in zip(presses, done, strict=True):
            assert inter.original is not None
            assert inter.original.content.startswith(f"Your answer: {'ABCDEF'[chosen[player.id]]}.")
        for (_, _, player), inter in zip(again, done_again, strict=True):
            assert inter.original is not None  # the first answer counts, and says so
            assert inter.original.content.startswith(
                f"You answered {'ABCDEF'[chosen[player.id]]} already"
            )
        stored = await rows(
            bot.services.db,
            "SELECT user_id, position FROM live_answer WHERE round_id = :r",
            r=round_id,
        )
        assert sorted(stored) == sorted(chosen.items())
        await fake.click(first, answer_id(first, 0), host)

        # Everyone who joined answered: the question closes, its count complete.
        shown = await reveal(fake, thread, 1)
        assert f"({MEMBERS + 1})" in shown.text()
        await fake.wait_until(
            lambda: (
                f"{MEMBERS + 1} answered" in fake.message(first.id).text()
                and "Closed" in fake.message(first.id).text()
            ),
            10,
            "the final count on the closed question",
        )
        assert all(gap >= 1.95 for gap in edit_gaps(fake.message(first.id)))
        assert fake.rate_limited == []  # inside Discord's limits: never a 429


async def test_a_429_on_the_live_count_is_waited_out_and_the_count_is_kept(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    host = fake.users_list[0]
    players = members(fake, 30)
    async with quick_bot(start_bot):
        live = await open_round(fake, host, questions=1, seconds=120)
        thread = live.thread
        # All joined: the question waits for the last of them.
        first = await start(fake, live, host, *players)
        limited = fake.rate_limit(
            "PATCH", rf"^/channels/{thread.id}/messages/{first.id}$", times=2, retry_after=1.0
        )
        await fake.press_all([(first, answer_id(first, 0), p) for p in players[:10]], 0.2)
        await fake.wait_until(lambda: limited.hits == 2, 15, "two 429s on the count")
        await fake.press_all([(first, answer_id(first, 1), p) for p in players[10:20]], 0.2)
        await fake.wait_until(
            lambda: "20 answered" in fake.message(first.id).text(), 15, "the count after 429s"
        )
        assert all(gap >= 1.95 for gap in edit_gaps(fake.message(first.id)))
