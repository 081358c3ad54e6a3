"""Security: admin commands refused server-side, a catalogue of bad input (each with a
clear localized message and no state change), abuse limits, no user text executed.

Inputs already covered elsewhere (25:99, Mars/Olympus, unknown topic, question count,
demo bounds, someone else's button, bad uploads and YAML tags) are not repeated here.
"""

from __future__ import annotations

import asyncio
import copy
import secrets
from datetime import timedelta
from typing import Any

from sqlalchemy import text, update
from sqlmodel import col, select

from bot.common.times import utcnow
from bot.daily.questions import post_question
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.db.tables.quiz import QuizResult, QuizSession
from bot.demos.runner import DemoFailed, DemoRunner
from bot.discord.client import QuizTutorBot
from bot.quiz import sessions_store
from testkit.standin.driver import (
    ATTACHMENT,
    BOOLEAN,
    CHANNEL,
    INTEGER,
    NUMBER,
    STRING,
    SUB_COMMAND,
    USER,
    InteractionResult,
)
from testkit.standin.models import FakeMessage
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.daily import (
    WAIT,
    post_todays_question,
    setup_daily,
)
from tests.support.db import table_names
from tests.support.guilds import QUIZ
from tests.support.quiz import button

INJECTION = "'; DROP TABLE daily_post; --"
PERM_EN = "⚠️ Only members with the Manage Server permission can do this."
PERM_ID = "⚠️ Hanya anggota dengan izin Kelola Server yang bisa melakukan ini."


async def snapshot(bot: QuizTutorBot) -> dict[str, list[Any]]:
    """Every row of every table: "no state change" means this is equal before and after."""
    names = await table_names(bot.services.db)
    async with bot.services.db.engine.connect() as conn:
        return {
            name: sorted(map(tuple, (await conn.execute(text(f'SELECT * FROM "{name}"'))).all()))
            for name in sorted(names)
        }


async def final_text(res: InteractionResult) -> str:
    if res.type == 5:  # deferred: the answer replaces "thinking..."
        return (await res.wait_original(lambda m: bool(m.content))).content
    return res.content


# -- permissions ---------------------------------------------------------------------------


def option_value(option: dict[str, Any], fake: FakeDiscord) -> Any:
    if option.get("choices"):
        return option["choices"][0]["value"]
    kind = option["type"]
    if kind == STRING:
        return {"time": "07:30", "timezone": "UTC"}.get(option["name"], "gradient-accumulation")
    if kind in (INTEGER, NUMBER):
        return option.get("min_value", 1)
    if kind == BOOLEAN:
        return True
    if kind == CHANNEL:
        return fake.channel2
    if kind == USER:
        return fake.admin
    if kind == ATTACHMENT:
        return ("team.yaml", QUIZ.encode())
    raise AssertionError(f"no test value for option type {kind} ({option['name']})")


async def test_every_admin_subcommand_is_refused_without_manage_server(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    async with start_bot() as bot:
        # Admin commands are the ones registered with default permissions: a new
        # subcommand is enumerated here without editing this test.
        admin_commands = [
            (group["name"], sub)
            for group in fake.registered_commands(fake.guild.id)
            if group.get("default_member_permissions") not in (None, "0")
            for sub in group.get("options", [])
            if sub["type"] == SUB_COMMAND
        ]
        names = {f"{g} {s['name']}" for g, s in admin_commands}
        assert names >= {
            "daily setup",
            "daily status",
            "daily now",
            "daily reveal",
            "daily off",
            "daily stats",
            "quizadmin add",
            "quizadmin remove",
            "quizadmin list",
        }
        before = await snapshot(bot)
        for group, sub in admin_commands:
            # Every option filled with a valid value: the client sends it all anyway.
            options = {o["name"]: option_value(o, fake) for o in sub.get("options", [])}
            for member, refusal in ((fake.users_list[0], PERM_EN), (fake.users_list[1], PERM_ID)):
                res = await fake.slash(member, f"{group} {sub['name']}", options=options)
                assert res.ephemeral, f"/{group} {sub['name']}"
                assert await final_text(res) == refusal, f"/{group} {sub['name']}"
        assert await snapshot(bot) == before
        assert fake.messages(fake.channel) == [] and fake.messages(fake.channel2) == []
        assert bot.services.bank.is_visible("gradient-accumulation", fake.guild.id)


# -- bad input -----------------------------------------------------------------------------


def forged(message: FakeMessage, old: str, new: str) -> FakeMessage:
    """The clicked message as a modified client would show it: one custom_id replaced."""
    fake_copy = copy.deepcopy(message)
    for row in fake_copy.components:
        for component in row["components"]:
            if component.get("custom_id") == old:
                component["custom_id"] = new
    return fake_copy


async def test_forged_and_expired_buttons_are_refused_without_changes(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra = fake.users_list[0], fake.users_list[1]
    async with start_bot() as bot:
        res = await fake.slash(bob, "quiz start", topic="mixed-precision", questions=2)
        assert res.message is not None
        message = res.message
        real = button(message, "A")
        session_id = real.split(":")[1]
        before = await snapshot(bot)

        cases = [
            # A session id that never existed (random, well-formed).
            (f"qz:{secrets.token_urlsafe(8)}:1:a:0", "⚠️ This quiz is no longer active"),
            (f"qz:{secrets.token_urlsafe(8)}:n", "⚠️ This quiz is no longer active"),
            # The real session, but a choice the question does not have.
            (f"qz:{session_id}:1:a:5", "⚠️ Choice 6 doesn't exist (1–4)."),
            # The real session, a question number it is not at.
            (f"qz:{session_id}:7:a:0", "⚠️ That button belongs to question 7, not the current one."),
        ]
        for custom_id, expected in cases:
            clicked = await fake.click(forged(message, real, custom_id), custom_id, bob)
            assert clicked.ephemeral and clicked.content.startswith(expected), clicked.content
        # Someone else's session, in their language.
        other = await fake.click(message, real, citra)
        assert other.content.startswith("⚠️ Kuis ini milik orang lain")
        assert await snapshot(bot) == before
        assert fake.message(message.id).embeds[0]["title"] == "Question 1/2"

        # Idle past the limit: the button says so, and the session is closed for good.
        async with bot.services.db.session() as session:
            await session.exec(
                update(QuizSession)
                .where(col(QuizSession.id) == session_id)
                .values(last_activity_at=utcnow() - timedelta(hours=3))
            )
            await session.commit()
        late = await fake.click(message, real, bob)
        assert late.content.startswith("⚠️ This quiz is no longer active")
        stored = await sessions_store.get(bot.services.db, session_id)
        assert stored is not None and stored.status == "expired"
        async with bot.services.db.session() as session:
            assert (await session.exec(select(QuizResult))).all() == []


async def test_housekeeping_expires_idle_sessions(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, dora = fake.users_list[0], fake.users_list[2]
    async with start_bot() as bot:
        await fake.slash(bob, "quiz start", topic="mixed-precision", questions=1)
        await fake.slash(dora, "quiz start", topic="mixed-precision", questions=1)
        idle = await sessions_store.active_for(bot.services.db, bob.id)
        assert idle is not None
        async with bot.services.db.session() as session:
            await session.exec(
                update(QuizSession)
                .where(col(QuizSession.id) == idle.id)
                .values(last_activity_at=utcnow() - timedelta(hours=3))
            )
            await session.commit()
        job = bot.services.scheduler.get_job("housekeeping:sessions")
        assert job is not None and job.trigger.interval <= timedelta(minutes=15)
        await job.func()  # the job as the scheduler runs it
        assert await sessions_store.active_for(bot.services.db, bob.id) is None
        assert await sessions_store.active_for(bot.services.db, dora.id) is not None  # still active


async def test_reaction_emoji_beyond_the_choices_is_not_an_answer(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    async with start_bot() as bot:
        jobs, message, post, (n, right, _) = await post_todays_question(fake, bot)
        seen = jobs.reactions.seen.count
        # A regional letter past the last choice, and a custom emoji named like a letter.
        await fake.react(message, bob, ANSWER_EMOJI[n])
        await fake.react(message, bob, f"<:{ANSWER_EMOJI[0]}:123456789012345678>")
        await fake.react(message, bob, ANSWER_EMOJI[right])  # his real (first valid) answer
        await asyncio.wait_for(jobs.reactions.wait_seen(seen + 2), WAIT)
        async with bot.services.db.engine.connect() as conn:
            rows = (await conn.execute(text("SELECT user_id, choice FROM daily_answer"))).all()
        # The custom emoji never reaches the driver (the cog drops it): 2 events seen.
        # Stored as the choice as written (the letter he saw is `right` in the post's order).
        question = post_question(bot.services.daily.bank, post.question_id, post.instance)
        assert question is not None
        assert [tuple(r) for r in rows] == [(bob.id, question.answer)]
        assert len(fake.messages(fake.channel2)) == 1  # no reply to anyone


async def test_user_text_is_never_executed_as_sql(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    admin, bob = fake.admin, fake.users_list[0]
    async with start_bot() as bot:
        await setup_daily(fake, "UTC", "07:30")
        before = await snapshot(bot)
        quiz = await fake.slash(bob, "quiz start", topic=INJECTION)
        assert quiz.content.startswith(f"⚠️ There is no quiz '{INJECTION}'. Available: ")
        setup = await fake.slash(
            admin,
            "daily setup",
            options={"channel": fake.channel2},
            time="07:30",
            timezone="UTC",
            topic=INJECTION,
        )
        assert setup.content.startswith(f"⚠️ There is no topic '{INJECTION}'.")
        bad_time = await fake.slash(
            admin,
            "daily setup",
            options={"channel": fake.channel2},
            time=f"07:30{INJECTION}",
            timezone="UTC",
        )
        assert bad_time.content.startswith("⚠️ '07:30'; DROP TABLE")
        assert "is not a time" in bad_time.content
        bad_zone = await fake.slash(
            admin,
            "daily setup",
            options={"channel": fake.channel2},
            time="07:30",
            timezone="../../../etc/localtime",
        )
        assert "is not a known time zone" in bad_zone.content
        removed = await fake.slash(admin, "quizadmin remove", quiz_id=INJECTION)
        assert removed.content == f"⚠️ This server has no quiz '{INJECTION}'."
        evil_id = QUIZ.replace("id: team-basics", f'id: "{INJECTION}"')
        res = await fake.slash(admin, "quizadmin add", file=("evil.yaml", evil_id.encode()))
        assert (await final_text(res)).startswith("⚠️ The quiz file has problems")
        # Autocomplete with the same text returns nothing and breaks nothing.
        assert await fake.autocomplete(bob, "quiz start", "topic", INJECTION) == []
        assert await snapshot(bot) == before  # every table and row still there


# -- abuse limits --------------------------------------------------------------------------


async def test_quiz_start_cooldown_per_member(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra = fake.users_list[0], fake.users_list[1]
    async with start_bot(quiz_cooldown_s=60) as bot:
        # A refused start costs no cooldown.
        refused = await fake.slash(bob, "quiz start", topic="warp-drive")
        assert "warp-drive" in refused.content
        first = await fake.slash(bob, "quiz start", topic="mixed-precision", questions=1)
        assert first.embeds and first.embeds[0]["title"] == "Question 1/1"
        session = await sessions_store.active_for(bot.services.db, bob.id)
        again = await fake.slash(bob, "quiz start", topic="mixed-precision", questions=1)
        assert again.ephemeral and again.content.startswith("⚠️ Slow down a little: try again in ")
        # The first session is untouched; another member is not slowed down.
        assert await sessions_store.active_for(bot.services.db, bob.id) == session
        other = await fake.slash(citra, "quiz start", topic="mixed-precision", questions=1)
        assert other.embeds and other.embeds[0]["title"] == "Soal 1/1"


async def test_demo_queue_is_bounded_and_demo_cooldown_applies(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, dora = fake.users_list
    admin = fake.admin
    # The real runner's queue with max_queue=1; only the torch worker is left out: the
    # "running" demo is held until the test lets it go.
    runner = DemoRunner(max_queue=1)
    release = asyncio.Event()

    async def held_demo(kind: str, name: str, arg: Any, limit: float, what: str) -> Any:
        await release.wait()
        raise DemoFailed("stopped by the test")

    runner._execute = held_demo  # type: ignore[method-assign]
    async with start_bot(demo_cooldown_s=600) as bot:
        bot.services.demos = runner
        try:
            running = await fake.slash(bob, "demo", name="formats")
            assert running.type == 5
            queued = await fake.slash(citra, "demo", name="formats")
            await queued.wait_original(lambda m: "1" in m.content)
            assert runner.queue_length == 1

            full = await fake.slash(dora, "demo", name="formats")
            said = await full.wait_original(lambda m: bool(m.content))
            assert (
                said.content == "⚠️ The demo queue is full right now. Please try again in a minute."
            )
            # Refused for a full queue: no cooldown, so the member may simply retry.
            retry = await fake.slash(dora, "demo", name="formats")
            said = await retry.wait_original(lambda m: bool(m.content))
            assert "queue is full" in said.content

            # The member whose demo runs is cooled down.
            again = await fake.slash(bob, "demo", name="formats")
            assert again.content.startswith("⚠️ Slow down a little: try again in ")
            assert runner.queue_length == 1
            extra = await fake.slash(admin, "demo", name="formats")
            said = await extra.wait_original(lambda m: bool(m.content))
            assert "queue is full" in said.content
        finally:
            release.set()
            await runner.close()
        done = await running.wait_original(lambda m: m.content.startswith("⚠️"))
        assert "stopped with an error before it finished" in done.content
