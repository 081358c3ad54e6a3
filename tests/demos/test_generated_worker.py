"""Generated questions made by the real demo worker: the instance pool on a DemoRunner,
and /quiz start + /quiz review through the Discord stand-in with a warm worker.

Each test spawns a torch worker (seconds on this machine): slow.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from bot.demos.generated import InstancePool
from bot.demos.runner import DemoRunner
from bot.discord.client import QuizTutorBot
from bot.quiz import sessions_store
from bot.quizbank.generated import template_key
from experiments.catalog import ParamError
from experiments.generators import generate
from testkit.standin.models import FakeUser
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.generated import footer, gen_e2e_dir
from tests.support.quiz import button, letters

pytestmark = pytest.mark.slow

NAMES = ("fp16-round", "effective-batch", "autocast-dtype")


async def test_the_pool_on_a_real_worker_survives_a_kill() -> None:
    runner = DemoRunner(device="cpu", start_method="spawn")  # leaves the forkserver alone
    pool = InstancePool(runner.generate_batch, lambda: NAMES, size=3, retry_s=0.05)
    try:
        await runner.start()
        with pytest.raises(ParamError):  # refused before it queues
            await runner.generate_batch("nope", [1])
        pool.start()
        await asyncio.wait_for(pool.full(), 120)
        # What the worker made is what this process makes for the same seed.
        taken = pool.take("fp16-round")
        assert taken is not None and taken == generate("fp16-round", taken.seed)
        # The worker dies: ready instances are still handed out, without it.
        worker = runner._worker
        assert worker is not None
        worker.process.kill()
        worker.process.join(10)
        for _ in range(2):
            assert pool.take("effective-batch") is not None
        # ... and the refill carries on once the runner has restarted the worker.
        await asyncio.wait_for(pool.full(), 180)
        assert runner.worker_info["pid"] != worker.process.pid
    finally:
        await runner.close()
        await pool.close()


SEED = re.compile(r"generated: fp16-round #(\d+)$")


async def answer_all(
    fake: FakeDiscord, bot: QuizTutorBot, member: FakeUser, message_id: int, total: int
) -> dict[str, str]:
    """Answer every question (the generated one wrong); {question id: footer shown}."""
    shown = {}
    for number in range(1, total + 1):
        session = await sessions_store.active_for(bot.services.db, member.id)
        assert session is not None
        qid = session.question_ids[session.position]
        shown[qid] = footer(fake.message(message_id))
        right, wrong = await letters(bot, member)
        message = fake.message(message_id)
        await fake.click(
            message, button(message, wrong if qid.startswith("gen:") else right), member
        )
        answered = fake.message(message_id)
        labels = [c.get("label") for row in answered.components for c in row["components"]]
        if qid.startswith("gen:"):
            assert "Show me" in labels  # the template's demo, as for a written question
            assert "Report" not in labels  # an instance has no text to hide until fixed
            assert "• " in str(answered.embeds[0]["fields"][0]["value"])  # misconceptions
        else:
            assert "Report" in labels
        label = "See my score" if number == total else "Next"
        await fake.click(answered, button(answered, label), member)
    return shown


async def test_quiz_and_review_ask_generated_questions(
    discord_fake: FakeDiscord, start_bot: StartBot, tmp_path: Path
) -> None:
    fake = discord_fake
    member = fake.users_list[0]
    extra = gen_e2e_dir(tmp_path)
    async with start_bot(demo_worker=True, quiz_dirs=[extra], generated_pool_size=2) as bot:
        await asyncio.wait_for(bot.services.generated.full(["fp16-round"]), 180)
        res = await fake.slash(member, "quiz start", topic="gen-e2e")
        assert res.message is not None and res.embeds[0]["title"] == "Question 1/2"
        shown = await answer_all(fake, bot, member, res.message.id, 2)
        first = SEED.search(shown[template_key("fp16-round")])
        assert first is not None and shown["ge-01"] == "Generated"
        review = await fake.slash(member, "quiz review", questions=2)
        assert review.message is not None
        session = await sessions_store.active_for(bot.services.db, member.id)
        assert session is not None and session.question_ids[0] == template_key("fp16-round")
        again = SEED.search(footer(review.message))
        assert again is not None and again.group(1) != first.group(1)  # a new instance
