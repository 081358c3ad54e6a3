"""Generated questions in the daily question and in live rounds, through the Discord
stand-in (issue 23): the instance is fixed per post (per round question), stored with
it, and grades, reveals and survives a restart with the bot's worker gone.

Instances are real (torch in this process, `tests.support.generated.feed_pool`); the
worker's own path is tests/demos/test_generated_worker.py.
"""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.common.schedule import local_day
from bot.common.times import utcnow
from bot.daily import posts_store
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.quizbank.generated import GeneratedQuestion, template_key
from testkit.standin.server import FakeDiscord
from testkit.times import passed_today
from tests.support.bot import StartBot
from tests.support.daily import (
    WAIT,
    answers,
    bot_reactions_done,
    choices_of,
    is_daily_post,
    setup_daily,
    started,
    the_post,
)
from tests.support.generated import feed_pool, footer, gen_e2e_dir
from tests.support.live import (
    answer_id,
    button_id,
    join,
    open_round,
    positions,
    question,
    quick_bot,
    reveal,
    rows,
    scoreboard,
)

FP16 = template_key("fp16-round")
ORIGIN = re.compile(r"generated: fp16-round #(\d+)")


async def test_a_generated_daily_post_is_graded_and_revealed_with_its_stored_instance(
    discord_fake: FakeDiscord, start_bot: StartBot, tmp_path: Path
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    extra = gen_e2e_dir(tmp_path)
    zone, time = passed_today()
    async with start_bot(quiz_dirs=[extra]) as bot:
        jobs = await started(bot)
        daily = bot.services.daily
        # Yesterday asked the written question: with a window of one day, today's is the
        # template (its instance ready in the pool).
        today = local_day(utcnow(), ZoneInfo(zone))
        old = await posts_store.claim(
            daily.db,
            fake.guild.id,
            today - timedelta(days=1),
            "ge-01",
            fake.channel2.id,
            utcnow(),
            daily.clock(),
        )
        assert old is not None and old.id is not None
        await daily.settling.settle(old.id)
        await setup_daily(fake, zone, time, topic="gen-e2e", repeat_after=1)
        await feed_pool(bot.services.generated, ["fp16-round"])
        await jobs.run_post_job(fake.guild.id)
        message = await fake.wait_for_message(is_daily_post, WAIT, channel=fake.channel2)
        post = await the_post(bot, message.id)
        assert post.question_id == FP16 and post.instance is not None
        instance = GeneratedQuestion.model_validate(post.instance)
        seed = ORIGIN.search(footer(message))
        assert seed is not None and int(seed.group(1)) == instance.seed
        assert instance.text("prompt", "en") in str(message.embeds[0]["description"])
        n, right, wrong = choices_of(bot, post)
        await bot_reactions_done(fake, message, n)
        await fake.react(message, bob, ANSWER_EMOJI[right])
        await fake.react(message, citra, ANSWER_EMOJI[wrong])
        await asyncio.wait_for(jobs.reactions.wait_seen(n + 2), WAIT)

    # Restarted without a worker (and an empty pool): the post still has its instance.
    async with start_bot(quiz_dirs=[extra]) as bot:
        await started(bot)
        assert bot.services.generated.count("fp16-round") == 0
        assert await answers(bot, post.id) == {bob.id: right, citra.id: wrong}  # type: ignore[arg-type]
        res = await fake.slash(fake.admin, "daily reveal")
        assert "1 of 2" in (await res.wait_followup()).text()
        shown = await fake.wait_for_message(
            lambda m: m.message_reference is not None, WAIT, channel=fake.channel2
        )
        assert shown.embeds[0]["title"] == f"Answer: {'ABCDEF'[right]}"
        assert instance.text("prompt", "en") in shown.text()
        assert "1 of 2 answered correctly" in shown.text()
        assert not any(c.startswith("rp:") for c in shown.custom_ids())  # no text to report
        # The class analytics count it per template; its choices differ per post, so no
        # "most chosen wrong answer" is named.
        stats = (await (await fake.slash(fake.admin, "daily stats")).wait_followup()).text()
        assert f"{FP16}" in stats and "a generated question: new numbers in each post" in stats
        cards = await rows(
            bot.services.db,
            "SELECT user_id FROM review_card WHERE question_id = :q ORDER BY user_id",
            q=FP16,
        )
        assert cards == sorted([(bob.id,), (citra.id,)])  # per template


async def test_a_live_round_asks_a_generated_question_with_its_stored_instance(
    discord_fake: FakeDiscord, start_bot: StartBot, tmp_path: Path
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    async with quick_bot(start_bot, quiz_dirs=[gen_e2e_dir(tmp_path)]) as bot:
        await feed_pool(bot.services.generated, ["fp16-round"])
        live = await open_round(fake, bob, topic="gen-e2e", questions=2, seconds=30)
        thread, round_id = live.thread, live.id
        info = await bot.services.live.info(round_id)
        assert sorted(info.question_ids) == sorted(["ge-01", FP16])
        number = info.question_ids.index(FP16) + 1
        [(stored,)] = [(v,) for v in info.instances.values()]
        instance = GeneratedQuestion.model_validate(stored)
        await join(fake, live, bob)  # the questions wait for him
        await fake.click(live.hall, button_id(live.hall, "s"), bob)
        for current in (1, 2):
            asked = await question(fake, thread, current)
            right, _ = await positions(bot, round_id, current)
            if current == number:
                assert instance.text("prompt", "en") in str(asked.embeds[0]["description"])
                assert ORIGIN.search(footer(asked)) is not None
            reply = await fake.click(asked, answer_id(asked, right), bob)
            assert reply.content.startswith(f"Your answer: {'ABCDEF'[right]}")
            shown = await reveal(fake, thread, current)
            if current == number:
                assert instance.text("prompt", "en") in shown.text()
                assert not any(c.startswith("rp:") for c in shown.custom_ids())
        await scoreboard(fake, thread)
        graded = await rows(
            bot.services.db,
            "SELECT question_id, correct FROM live_answer a JOIN live_question q"
            " ON q.round_id = a.round_id AND q.number = a.number WHERE a.round_id = :r",
            r=round_id,
        )
        assert sorted(graded) == sorted([("ge-01", True), (FP16, True)])
        cards = await rows(
            bot.services.db, "SELECT user_id FROM review_card WHERE question_id = :q", q=FP16
        )
        assert cards == [(bob.id,)]
