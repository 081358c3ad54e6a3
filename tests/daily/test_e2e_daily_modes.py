"""The daily question's modes through the Discord stand-in (issues 24, 25): answers by
reactions or by private buttons graded, streaked, reviewed, counted and revealed alike;
the shuffled order of a post (by reaction, by button, read back after downtime); the
discussion thread at the reveal, opened once across a restart, and its refusal."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from bot.common.text import clip
from bot.common.times import utcnow
from bot.daily import configs_store, streaks_store
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.daily.types import BUTTONS, REACTIONS
from bot.db.tables.daily import DailyPost
from bot.db.tables.outbox import Outbox
from bot.db.tables.review import ReviewCard
from bot.discord.client import QuizTutorBot
from bot.outbox import store
from bot.outbox.rules import Owed
from testkit.standin import FakeMessage
from testkit.standin.models import CREATE_PUBLIC_THREADS
from testkit.standin.server import FakeDiscord
from testkit.times import passed_today
from tests.support.bot import StartBot
from tests.support.daily import (
    WAIT,
    answer_as,
    answer_button,
    answers,
    bot_reactions_done,
    choices_of,
    is_daily_post,
    post_todays_question,
    setup_daily,
    started,
    the_post,
    written_answers,
)

LETTERS = "ABCDEF"
# A seed whose shuffle of 4 choices is not the file order (checked in `shuffled_post`).
SEED = 7


async def shuffled_post(
    fake: FakeDiscord, bot: QuizTutorBot, **setup: str
) -> tuple[FakeMessage, DailyPost]:
    """Today's post (the mixed-precision quiz: 4 choices) in a known, shuffled order."""
    jobs = await started(bot)
    bot.services.daily.posts.rng.seed(SEED)
    zone, time = passed_today()
    await setup_daily(fake, zone, time, topic="mixed-precision", **setup)
    await jobs.run_post_job(fake.guild.id)
    message = await fake.wait_for_message(is_daily_post, WAIT, channel=fake.channel2)
    post = await the_post(bot, message.id)
    assert post.choice_order is not None and post.choice_order != sorted(post.choice_order)
    return message, post


def shown_lines(message: FakeMessage) -> list[str]:
    """The choice lines of a post or a reveal, without their marks."""
    body = str(message.embeds[0]["description"]).split("\n\n", 1)[1]
    return [line.split(" ", 1)[1] for line in body.splitlines()]


@pytest.mark.parametrize("mode", [REACTIONS, BUTTONS])
async def test_both_answer_modes_grade_streak_review_count_and_reveal_alike(
    discord_fake: FakeDiscord, start_bot: StartBot, mode: str
) -> None:
    fake = discord_fake
    bob, citra, dora = fake.users_list
    async with start_bot() as bot:
        message, post = await shuffled_post(fake, bot, answers=mode)
        assert post.answer_mode == mode
        question = bot.services.bank.question(post.question_id)
        order = post.choice_order
        assert order is not None
        texts = question.choice_texts("en")
        # The post shows the choices in the post's order.
        assert shown_lines(message) == [texts[i] for i in order]
        n, right, wrong = choices_of(bot, post)
        if mode == REACTIONS:
            await bot_reactions_done(fake, message, n)
            assert message.custom_ids() == []
        else:
            assert message.custom_ids() == [answer_button(post, p) for p in range(n)]
            assert all(message.reactors(e) == [] for e in ANSWER_EMOJI)  # nothing to count
            assert "nobody sees the answers" in message.embeds[0]["footer"]["text"]

        said = [
            await answer_as(fake, message, post, bob, right),
            await answer_as(fake, message, post, citra, wrong),
            await answer_as(fake, message, post, citra, right),  # a change: does not count
        ]
        if mode == BUTTONS:
            assert said == [
                f"Your answer: **{LETTERS[right]}**. The right answer and how everyone "
                "answered come with the reveal.",
                f"Jawaban Anda: **{LETTERS[wrong]}**. Jawaban yang benar dan pilihan semua "
                "orang diumumkan saat pengungkapan.",  # citra's client is in Indonesian
                f"Anda sudah menjawab **{LETTERS[wrong]}**; jawaban pertama Anda yang dihitung.",
            ]
            # A reaction on a buttons post is no answer.
            await fake.react(message, dora, ANSWER_EMOJI[right])
        jobs = await started(bot)
        seen = n + 3 if mode == REACTIONS else 1
        await asyncio.wait_for(jobs.reactions.wait_seen(seen), WAIT)
        assert await answers(bot, post.id) == {bob.id: right, citra.id: wrong}  # type: ignore[arg-type]
        # Stored as written in the quiz file (the stats and analytics read that).
        assert await written_answers(bot, post.id) == {  # type: ignore[arg-type]
            bob.id: question.answer,
            citra.id: order[wrong],
        }
        assert len(fake.messages(fake.channel2)) == 1  # answers leave no trace in the channel

        res = await fake.slash(fake.admin, "daily reveal")
        assert "1 of 2" in (await res.wait_followup()).text()
        reveal = await fake.wait_for_message(
            lambda m: m.message_reference is not None, WAIT, channel=fake.channel2
        )
        embed = reveal.embeds[0]
        assert embed["title"] == f"Answer: {LETTERS[right]}"
        counts = {right: 1, wrong: 1}
        assert [line.split(" — ")[0] for line in shown_lines(reveal)] == [
            clip(texts[i], 60) for i in order
        ]
        assert [line.split(" — ")[1].split("**")[1] for line in shown_lines(reveal)] == [
            str(counts.get(p, 0)) for p in range(n)
        ]
        assert "1 of 2 answered correctly" in reveal.text()
        if mode == BUTTONS:
            closed = fake.message(message.id)
            assert all(c.get("disabled") for c in closed.components[0]["components"])
            late = await fake.click(closed, answer_button(post, right), dora, force=True)
            assert late.ephemeral and "closed" in late.content
        assert dora.id not in await answers(bot, post.id)  # type: ignore[arg-type]

        assert (
            await streaks_store.member_streak(bot.services.db, fake.guild.id, bob.id)
        ).current == 1
        assert (
            await streaks_store.member_streak(bot.services.db, fake.guild.id, citra.id)
        ).current == 0
        # The review cards are graded after the reveal, off its path: wait for that.
        await asyncio.wait_for(bot.services.daily.settling.graded(fake.guild.id), WAIT)
        async with bot.services.db.session() as session:
            cards = (
                await session.exec(
                    select(ReviewCard).where(ReviewCard.question_id == post.question_id)
                )
            ).all()
        assert sorted(c.user_id for c in cards) == sorted([bob.id, citra.id])
        stats = await fake.slash(fake.admin, "daily stats")
        assert "2 answered, 1 right (50%)" in (await stats.wait_followup()).text()
        status = await fake.slash(fake.admin, "daily status")
        assert ("buttons (private" in status.text) == (mode == BUTTONS)


async def test_a_shuffled_post_reads_back_the_reactions_made_while_the_bot_was_down(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot() as bot:
        message, post = await shuffled_post(fake, bot)
        n, right, wrong = choices_of(bot, post)
        await bot_reactions_done(fake, message, n)
        question = bot.services.bank.question(post.question_id)

    fake.react_silently(message, bob, ANSWER_EMOJI[right])
    fake.react_silently(message, citra, ANSWER_EMOJI[wrong])
    async with start_bot() as bot:
        await started(bot)
        assert post.choice_order is not None
        assert await written_answers(bot, post.id) == {  # type: ignore[arg-type]
            bob.id: question.answer,
            citra.id: post.choice_order[wrong],
        }
        res = await fake.slash(fake.admin, "daily reveal")
        assert "1 of 2" in (await res.wait_followup()).text()


def discussions(fake: FakeDiscord) -> list[str]:
    return [thread.name for thread in fake.threads_of(fake.channel2)]


async def test_the_discussion_thread_opens_once_at_the_reveal_across_restarts(
    discord_fake: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    monkeypatch.setattr("bot.outbox.rules.FIRST_RETRY_S", 3600)  # no retry inside the first run
    async with start_bot() as bot:
        jobs, message, post, (n, right, _) = await post_todays_question(
            fake, bot, topic="mixed-precision", discussion="on"
        )
        await fake.react(message, bob, ANSWER_EMOJI[right])
        await asyncio.wait_for(jobs.reactions.wait_seen(n + 1), WAIT)
        prompt = bot.services.bank.question(post.question_id).text("prompt", "en")
        # Discord fails the thread once (503): the reveal goes out, the thread is owed.
        threads = rf"/channels/{fake.channel2.id}/messages/{message.id}/threads$"
        fake.fail("POST", threads, status=503, code=0, times=1)
        res = await fake.slash(fake.admin, "daily reveal")
        await res.wait_followup()
        await fake.wait_for_message(
            lambda m: m.message_reference is not None, WAIT, channel=fake.channel2
        )
        assert discussions(fake) == []
        status = await fake.slash(fake.admin, "daily status")
        assert "discussion thread" in status.text and "503" in status.text
        await owe_again(bot, post.id)  # type: ignore[arg-type]

    async with start_bot() as bot:
        await started(bot)
        await fake.wait_until(lambda: len(discussions(fake)) == 1, WAIT, "the thread")
        [name] = discussions(fake)
        assert name.startswith("Discuss: ") and len(name) <= 100
        assert name[len("Discuss: ") :].rstrip("…") in " ".join(prompt.split())
        assert fake.threads_of(fake.channel2)[0].id == message.id  # on the daily post
        # The bot dies after Discord opened it and before the record: sent again, once.
        await owe_again(bot, post.id, delivered=False)  # type: ignore[arg-type]

    async with start_bot() as bot:
        await started(bot)
        item = await jobs_item(bot, post.id)  # type: ignore[arg-type]
        assert item is not None and item.delivered_at is not None
        assert len(discussions(fake)) == 1


async def owe_again(bot: QuizTutorBot, post_id: int, *, delivered: bool = True) -> None:
    """The thread is due now (the backoff passed); `delivered=False`: its record is lost."""
    values: dict[str, object] = {"due_at": utcnow(), "claimed_until": None}
    if not delivered:
        values["delivered_at"] = None
    async with bot.services.db.session() as session:
        await session.exec(
            update(Outbox)
            .where(col(Outbox.post_id) == post_id, col(Outbox.kind) == Owed.DISCUSSION)
            .values(**values)
        )
        await session.commit()


async def jobs_item(bot: QuizTutorBot, post_id: int) -> Outbox | None:
    return await store.item((await started(bot)).db, Owed.DISCUSSION, post_id)


async def test_a_refused_thread_tells_the_admin_and_the_daily_question_goes_on(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    fake.channel2.overwrites[fake.bot_role(fake.guild).id] = (0, CREATE_PUBLIC_THREADS, 0)
    async with start_bot() as bot:
        _, _, post, _ = await post_todays_question(fake, bot, discussion="on")
        res = await fake.slash(fake.admin, "daily reveal")
        said = (await res.wait_followup()).text()
        assert "could not open the discussion thread" in said and "Create Public Threads" in said
        assert discussions(fake) == []
        config = await configs_store.get(bot.services.daily.db, fake.guild.id)
        assert config is not None and config.enabled and not config.discussion
        status = await fake.slash(fake.admin, "daily status")
        assert "could not open" not in status.text  # told once
        assert "Discussion thread" in status.text and "off" in status.text
        item = await jobs_item(bot, post.id)  # type: ignore[arg-type]
        assert item is not None and item.gave_up == "forbidden"


async def test_a_press_is_acknowledged_within_3_s_even_when_the_database_is_slow(
    discord_fake: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    assert fake.enforce_ack_deadline  # a reply after 3 s fails the click
    async with start_bot() as bot:
        message, post = await shuffled_post(fake, bot, answers=BUTTONS)
        _, right, _ = choices_of(bot, post)
        writer = bot.services.daily.writer
        commit = writer._transaction

        async def slow_commit(batch: Any) -> Any:
            await asyncio.sleep(4)  # the database stalls past Discord's 3 s
            return await commit(batch)

        monkeypatch.setattr(writer, "_transaction", slow_commit)
        reply = await fake.click(message, answer_button(post, right), bob, timeout=WAIT)
        assert reply.interaction.callback_type == 5  # deferred in time, privately
        said = await reply.wait_followup(timeout=WAIT)
        assert said.content.startswith(f"Your answer: **{LETTERS[right]}**")
        assert await answers(bot, post.id) == {bob.id: right}  # type: ignore[arg-type]


async def test_a_hundred_members_pressing_at_once_are_each_answered_and_counted_once(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    players = [fake.add_user(f"p{i:03d}") for i in range(100)]
    for player in players:
        fake.add_member(fake.guild, player)
    async with start_bot() as bot:
        message, post = await shuffled_post(fake, bot, answers=BUTTONS)
        n, _, _ = choices_of(bot, post)
        presses = [(message, answer_button(post, i % n), p) for i, p in enumerate(players)]
        done = await fake.press_all(presses, 1.0, seed=3)
        assert not any(i.expired for i in done)
        for index, inter in enumerate(done):
            assert inter.original is not None and inter.original.ephemeral
            assert inter.original.content.startswith(f"Your answer: **{LETTERS[index % n]}**")
        assert await answers(bot, post.id) == {  # type: ignore[arg-type]
            p.id: i % n for i, p in enumerate(players)
        }


async def test_buttons_answer_after_a_restart_and_after_the_channel_moved(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    async with start_bot() as bot:
        message, post = await shuffled_post(fake, bot, answers=BUTTONS)
        _, right, wrong = choices_of(bot, post)

    # A new process knows the post only from the database (its buttons are persistent);
    # the admin moves the next posts to another channel: today's post still counts.
    async with start_bot() as bot:
        await started(bot)
        zone, time = passed_today()
        res = await fake.slash(
            fake.admin,
            "daily setup",
            options={"channel": fake.channel},
            time=time,
            timezone=zone,
            answers=BUTTONS,
        )
        assert "✅" in res.text, res.text
        said = await answer_as(fake, message, post, bob, right)
        assert said is not None and said.startswith(f"Your answer: **{LETTERS[right]}**")
        # Forged buttons (as a modified client sends: this post's button on another
        # message, another post's id, garbage) count nothing.
        custom_ids = [answer_button(post, wrong), f"dq:{(post.id or 0) + 1}:0", "dq:x", "dq:"]
        buttons = [{"type": 2, "style": 1, "label": "?", "custom_id": c} for c in custom_ids]
        forged = fake.store_message(
            fake.channel2, fake.bot_user, {"components": [{"type": 1, "components": buttons}]}
        )
        for custom_id in custom_ids:
            reply = await fake.click(forged, custom_id, bob)
            assert reply.ephemeral and "closed" in reply.content, (custom_id, reply.content)
        assert await answers(bot, post.id) == {bob.id: right}  # type: ignore[arg-type]
        res = await fake.slash(fake.admin, "daily reveal")
        assert "1 of 1" in (await res.wait_followup()).text()
