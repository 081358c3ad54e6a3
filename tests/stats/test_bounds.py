"""Bounded work per member and per server: `/me`'s cooldown, the chart queue's bound (a
polite "busy" when full), a reaction that is no answer costs no task, a reminder's
"Review now" only for a member still in its server, quiz titles with `$` drawn as text,
and the generated-question refill paced so that it never starves the demos."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence

import discord
import pytest

from bot.demos.generated import InstancePool
from bot.learning.reminders_store import get
from bot.quiz import sessions_store
from bot.stats.charts import PNG_MAGIC, Bar, ChartRenderer, ChartsBusy, accuracy_png, class_png
from experiments.generators import Instance
from testkit.standin.models import FakeMessage
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.daily import post_todays_question
from tests.support.generated import Maker
from tests.support.quiz import button, letters

SLOW_DOWN = "⚠️ Slow down a little: try again in "


# --------------------------------------------------------------------------- /me and charts


async def test_me_has_a_per_member_cooldown(discord_fake: FakeDiscord, start_bot: StartBot) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot(me_cooldown_s=60):
        first = await fake.slash(bob, "me")
        assert first.ephemeral and first.embeds  # his progress
        again = await fake.slash(bob, "me")
        assert again.ephemeral and again.content.startswith(SLOW_DOWN)
        assert not again.embeds
        # Another member is not held back; her refusal later is in her language.
        assert (await fake.slash(citra, "me")).embeds
        told = await fake.slash(citra, "me")
        assert told.content.startswith("⚠️ Pelan-pelan: coba lagi dalam ")


def wait_for(started: threading.Event, gate: threading.Event) -> bool:
    """A chart that takes until `gate` opens (it says when it started drawing)."""
    started.set()
    return gate.wait(30)


async def test_a_full_chart_queue_answers_busy_at_once_and_draws_again_after(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot() as bot:
        for member in (bob, citra):  # an answer each: /me has charts to draw
            res = await fake.slash(member, "quiz start", topic="mixed-precision", questions=1)
            assert res.message is not None
            right, _ = await letters(bot, member)
            await fake.click(res.message, button(res.message, right), member)
        charts = bot.services.charts = ChartRenderer(in_thread=True, max_queue=1)
        started, gate = threading.Event(), threading.Event()
        holder = asyncio.create_task(charts.draw(wait_for, started, gate))
        await asyncio.to_thread(started.wait, 10)  # the one place is taken

        busy = await fake.slash(bob, "me")
        told = await busy.wait_final(lambda m: "busy" in m.text())
        assert told.ephemeral and told.text() == "⚠️ The charts are busy, try again in a moment."
        assert not told.attachments
        sibuk = await fake.slash(citra, "me")
        await sibuk.wait_final(
            lambda m: m.text() == "⚠️ Grafik sedang sibuk, coba lagi sebentar lagi."
        )

        gate.set()
        assert await holder
        drawn = await (await fake.slash(bob, "me")).wait_followup()
        assert [a.filename for a in drawn.attachments] == ["progress.png", "habit.png"]
        assert charts.pending == 0


async def test_the_chart_queue_is_bounded() -> None:
    charts = ChartRenderer(in_thread=True, max_queue=2)
    gate = threading.Event()
    started = [threading.Event(), threading.Event()]
    held = [asyncio.create_task(charts.draw(wait_for, s, gate)) for s in started]
    for s in started:
        await asyncio.to_thread(s.wait, 10)
    with pytest.raises(ChartsBusy) as busy:
        await charts.draw(accuracy_png, [Bar("a", 0.5)], "t")
    assert busy.value.key == "charts.busy"
    gate.set()
    assert await asyncio.gather(*held) == [True, True]
    png = await charts.draw(accuracy_png, [Bar("a", 0.5)], "t")
    assert png.startswith(PNG_MAGIC) and charts.pending == 0


@pytest.mark.parametrize("title", ["Costs $1^$ x", "Price $x_$ and", "$\\frac$"])
def test_titles_with_dollar_signs_are_drawn_as_text(title: str) -> None:
    # matplotlib reads the text between two `$` as math; these are not math and failed.
    png = accuracy_png([Bar(title, 0.5, "1$/2$")], f"{title} per topic")
    assert png.startswith(PNG_MAGIC)
    weeks = [("05-04", 2)]
    assert class_png([Bar(title, 0.2)], title, weeks, title).startswith(PNG_MAGIC)


# --------------------------------------------------------------------------- reactions


async def test_a_reaction_that_is_no_answer_costs_no_task(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    async with start_bot() as bot:
        _, message, _, _ = await post_todays_question(fake, bot)
        cog = bot.get_cog("DailyCog")
        assert cog is not None

        def reaction(emoji: str) -> discord.RawReactionActionEvent:
            data = {
                "message_id": str(message.id),
                "channel_id": str(message.channel_id),
                "user_id": str(bob.id),
                "guild_id": str(fake.guild.id),
                "type": 0,
            }
            return discord.RawReactionActionEvent(
                data,  # type: ignore[arg-type]
                discord.PartialEmoji(name=emoji),
                "REACTION_ADD",
            )

        before = asyncio.all_tasks()
        for emoji in ("👍", "🔥", "❤️", "a"):
            for _ in range(250):  # a flood of them: not one task
                cog.on_reaction_event(reaction(emoji))  # type: ignore[attr-defined]
        assert asyncio.all_tasks() - before == set()


# --------------------------------------------------------------------------- reminders


def review_now_dm(fake: FakeDiscord, member_id: int) -> FakeMessage:
    """A reminder's DM with its "Review now" button, as the bot sent it."""
    member = fake.users[member_id]
    components = [
        {
            "type": 1,
            "components": [
                {"type": 2, "style": 1, "label": "Review now", "custom_id": "remind:review"}
            ],
        }
    ]
    return fake.store_message(
        fake.dm_channel(member), fake.bot_user, {"content": "📚", "components": components}
    )


async def test_review_now_is_refused_to_a_member_who_left_the_server(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot() as bot:
        db = bot.services.db
        for member in (bob, citra):
            on = await fake.slash(member, "quiz remind on", time="08:00", timezone="UTC")
            assert on.ephemeral
            # Something to review: a wrong answer.
            res = await fake.slash(member, "quiz start", topic="mixed-precision", questions=1)
            assert res.message is not None
            _, wrong = await letters(bot, member)
            await fake.click(res.message, button(res.message, wrong), member)
            del fake.guild.members[member.id]  # then left the server

        quiz = await sessions_store.active_for(db, bob.id)
        told = await fake.click(review_now_dm(fake, bob.id), "remind:review", bob)
        assert told.ephemeral and told.content == (
            "⚠️ You are no longer in the server of this reminder, so its review is closed to "
            "you, and I turned its reminders off."
        )
        still = await sessions_store.active_for(db, bob.id)  # his quiz, no review
        assert quiz is not None and still is not None and still.id == quiz.id
        reminder = await get(db, bob.id)
        assert reminder is not None and not reminder.enabled
        dikatakan = await fake.click(review_now_dm(fake, citra.id), "remind:review", citra)
        assert dikatakan.content.startswith("⚠️ Anda tidak lagi berada di server pengingat ini")

        # Back in the server: the button reviews it again (once reminders are on again).
        fake.add_member(fake.guild, bob)
        await fake.slash(bob, "quiz remind on", time="08:00", timezone="UTC")
        review = await fake.click(review_now_dm(fake, bob.id), "remind:review", bob)
        assert review.ephemeral and review.embeds[0]["title"].startswith("Question 1/")


# --------------------------------------------------------------------------- the refill


class Paced:
    """The worker's `generate_batch` (a `Maker`: real instances), recording when each
    batch began and ended (event-loop time)."""

    def __init__(self) -> None:
        self.maker = Maker()
        self.spans: list[tuple[float, float]] = []

    async def __call__(self, name: str, seeds: Sequence[int]) -> list[Instance]:
        loop = asyncio.get_running_loop()
        began = loop.time()
        made = await self.maker(name, seeds)
        self.spans.append((began, loop.time()))
        return made


async def test_the_refill_rests_between_batches() -> None:
    source = Paced()
    names = ["fp16-round", "bf16-round", "ulp-spacing"]
    pool = InstancePool(source, lambda: names, size=1, gap_s=0.2)
    pool.start()
    try:
        await asyncio.wait_for(pool.full(), 60)
    finally:
        await pool.close()
    assert len(source.spans) == 3
    for (began, ended), (next_began, _) in zip(source.spans, source.spans[1:], strict=False):
        # At least the gap, and at least as long as the batch took: half the worker at most.
        assert next_began - ended >= max(0.2, ended - began) - 1e-3
