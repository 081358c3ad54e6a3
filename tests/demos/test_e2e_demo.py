"""/demo and "Show me" through the Discord stand-in, with the real torch worker process.

Starting the worker (spawn + import torch + warm-up) takes seconds on this machine, so
one bot with one warm worker plays the whole scenario of several members.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import pytest

from bot.quiz import sessions_store
from bot.quizbank import parse_quiz
from testkit.standin.models import FakeMessage
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot

# Real subprocesses (bot processes, the CLI, torch workers): left out by -m 'not slow'.
pytestmark = pytest.mark.slow


def has_plot(message: FakeMessage) -> bool:
    return bool(message.attachments) and message.attachments[0].data.startswith(b"\x89PNG")


async def test_demos_with_a_warm_worker(discord_fake: FakeDiscord, start_bot: StartBot) -> None:
    fake = discord_fake
    alice, bob = [u for u in fake.users_list if u.locale != "id"][:2]
    indonesian = next(u for u in fake.users_list if u.locale == "id")
    async with start_bot(demo_worker=True, demo_cooldown_s=600) as bot:
        # Two demos at once: the first runs, the second is told its place in the queue.
        demo, queued = await asyncio.gather(
            fake.slash(alice, "demo", name="accumulation", micro_batches=4),
            fake.slash(bob, "demo", name="master-weights"),
        )
        assert demo.type == queued.type == 5  # deferred at once: the work is in the worker
        assert demo.first_response_s < 3 and queued.first_response_s < 3

        # Another member's quiz is answered within the deadline while demos run.
        quiz = await fake.slash(
            indonesian, "quiz start", topic="gradient-accumulation", questions=1
        )
        assert quiz.first_response_s < 1.0
        assert quiz.embeds[0]["title"] == "Soal 1/1"

        # The same member again: the per-member cooldown answers at once.
        again = await fake.slash(alice, "demo", name="formats")
        assert again.ephemeral and again.content.startswith("⚠️ Slow down a little: try again in ")

        final = await demo.wait_original(has_plot, timeout=90)
        assert final.attachments[0].filename == "accumulation.png"
        assert "```python" in final.content and "loss.backward()" in final.content
        embed = final.embeds[0]
        assert embed["image"]["url"] == "attachment://accumulation.png"
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        assert re.fullmatch(r"cpu in \d+\.\d\d s", fields["Ran on"])
        # micro_batch_size defaults to 4 (ga-02's numbers: 4 per micro-batch, 8 of them).
        assert fields["Parameters"] == "`micro_batches=4, micro_batch_size=4`"
        assert not demo.ephemeral

        second = await queued.wait_original(has_plot, timeout=90)
        assert second.attachments[0].filename == "master-weights.png"
        queue_edits = [
            c.json
            for c in fake.calls_to("PATCH", r"/webhooks/\d+/[^/]+/messages/@original")
            if isinstance(c.json, dict) and "queue" in str(c.json.get("content"))
        ]
        assert any("number 1 in the queue" in str(e["content"]) for e in queue_edits)

        # "Show me" after answering runs the question's demo, privately.
        assert quiz.message is not None
        await fake.click(quiz.message, quiz.message.custom_ids()[0], indonesian)
        session = await sessions_store.active_for(bot.services.db, indonesian.id)
        assert session is not None
        question, _ = bot.services.sessions.current_question(session)
        answered = fake.message(quiz.message.id)
        show_me = f"demo:{question.demo}"
        assert show_me in answered.custom_ids()
        shown = await fake.click(answered, show_me, indonesian)
        assert shown.ephemeral
        proof = await shown.wait_original(has_plot, timeout=90)
        assert proof.attachments[0].filename == f"{question.demo}.png"
        assert proof.embeds[0]["fields"][-2]["name"] == "Dijalankan di"

        assert bot.services.demos is not None
        assert bot.services.demos.worker_info["device"] == "cpu"


async def test_demo_bad_parameters_get_localized_messages(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    indonesian = next(u for u in fake.users_list if u.locale == "id")
    async with start_bot() as bot:
        assert bot.services.demos is None  # no worker needed: parameters are checked first
        too_many = await fake.slash(indonesian, "demo", name="accumulation", micro_batches=99)
        assert too_many.ephemeral
        assert too_many.content == "⚠️ micro_batches harus antara 1 dan 16 (Anda memberi 99)."
        unused = await fake.slash(fake.users_list[0], "demo", name="formats", micro_batches=2)
        assert unused.content == "⚠️ The formats demo takes no micro_batches option."
        disabled = await fake.slash(fake.users_list[0], "demo", name="formats")
        assert disabled.content == "⚠️ Demos are turned off on this bot."


def test_every_demo_name_fits_the_show_me_button() -> None:
    """A "Show me" button whose custom id the template does not match has no handler."""
    import re

    from cogs.ui.buttons import ShowDemoButton
    from experiments.catalog import CATALOG

    template = ShowDemoButton.__discord_ui_compiled_template__
    assert "fp8-formats" in CATALOG
    for name in CATALOG:
        match = re.fullmatch(template, ShowDemoButton(name).custom_id)
        assert match is not None and match["name"] == name, name


async def test_show_me_is_answered_without_the_demo_extension(
    discord_fake: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The button is registered by the bot itself, not by the /demo extension."""
    import bot.discord.client as app_module

    fake = discord_fake
    member = fake.users_list[0]
    without_demo = [e for e in app_module.EXTENSIONS if e != "cogs.demo"]
    monkeypatch.setattr(app_module, "EXTENSIONS", without_demo)
    async with start_bot() as bot:
        assert "cogs.demo" not in bot.extensions
        bot.services.bank.add(parse_quiz(WITH_DEMO))  # its one question has a demo
        quiz = await fake.slash(member, "quiz start", topic="with-demo", questions=1)
        assert quiz.message is not None
        await fake.click(quiz.message, quiz.message.custom_ids()[0], member)
    # After a restart only the registered dynamic items can answer the old message.
    async with start_bot():
        answered = fake.message(quiz.message.id)
        show_me = next(i for i in answered.custom_ids() if i.startswith("demo:"))
        shown = await fake.click(answered, show_me, member)
        # No worker in this bot: a clear answer instead of "This interaction failed".
        assert shown.ephemeral and shown.content == "⚠️ Demos are turned off on this bot."


WITH_DEMO = """\
id: with-demo
title: {en: Formats, id: Format}
description: {en: One question, id: Satu soal}
questions:
  - id: wd-01
    prompt: {en: 'Which format has 8 exponent bits?', id: 'Format mana yang punya 8 bit eksponen?'}
    choices: {en: [bf16, fp16, fp8], id: [bf16, fp16, fp8]}
    answer: 0
    explanation: {en: bf16 keeps fp32's exponent., id: bf16 memakai eksponen fp32.}
    demo: formats
"""


def said(text: str) -> Callable[[FakeMessage], bool]:
    return lambda message: text in (message.content or "")


async def test_gpu_failures_are_told_as_they_are(
    discord_fake: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Out of GPU memory: "the GPU is busy", the worker untouched. The failures are
    injected at the worker (experiments.cuda.inject), as torch raises them on a GPU."""
    from experiments.gpu import FAULT_ENV

    fake = discord_fake
    alice, indonesian = fake.users_list[0], next(u for u in fake.users_list if u.locale == "id")
    monkeypatch.setenv(FAULT_ENV, "run:oom")
    async with start_bot(demo_worker=True, demo_cooldown_s=0) as bot:
        busy = await fake.slash(alice, "demo", name="formats")
        told = await busy.wait_original(said("GPU"), timeout=90)
        assert told.content == (
            "⚠️ The GPU is busy; try again, or run demos on the CPU with `DEMO_DEVICE=cpu`."
        )
        assert "restarted" not in told.content and not told.attachments
        sibuk = await fake.slash(indonesian, "demo", name="formats")
        assert (await sibuk.wait_original(said("GPU"), timeout=90)).content.startswith(
            "⚠️ GPU sedang sibuk; coba lagi"
        )
        assert bot.services.demos is not None and bot.services.demos.restarts == 0


async def test_a_sticky_gpu_error_restarts_the_worker_and_says_so(
    discord_fake: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    from experiments.gpu import FAULT_ENV, FAULT_MESSAGES

    fake = discord_fake
    monkeypatch.setenv(FAULT_ENV, "run:illegal")
    async with start_bot(demo_worker=True, demo_cooldown_s=0) as bot:
        failed = await fake.slash(fake.users_list[0], "demo", name="formats")
        told = await failed.wait_original(said("GPU"), timeout=90)
        assert told.content == (
            f"⚠️ The GPU failed while running this demo ({FAULT_MESSAGES['illegal']}); "
            "the demo worker was stopped and is being restarted. Please try again in a minute."
        )
        assert bot.services.demos is not None and bot.services.demos.restarts == 1
