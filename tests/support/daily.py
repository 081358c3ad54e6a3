"""The daily question in end-to-end tests: time zones where a post is due, the post itself.

Shared by the daily, reliability, security and operations tests (and the benchmarks).
"""

from __future__ import annotations

import asyncio
from typing import Any

from sqlmodel import select

from bot.daily.jobs import DailyJobs
from bot.daily.questions import post_question
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.daily.service import DailyService
from bot.daily.types import BUTTONS, shown_position
from bot.db.database import Database
from bot.db.tables.daily import DailyAnswer, DailyPost
from bot.discord.client import QuizTutorBot
from bot.quizbank.files import SHIPPED_DIR, load_bank
from testkit.standin import FakeMessage
from testkit.standin.models import FakeUser
from testkit.standin.server import FakeDiscord
from testkit.times import passed_today

WAIT = 10.0


def jobs_of(bot: QuizTutorBot) -> DailyJobs:
    # load_extension imports cogs.daily afresh, so isinstance against this module's class fails.
    jobs = getattr(bot.get_cog("DailyCog"), "jobs", None)
    assert isinstance(jobs, DailyJobs)
    return jobs


async def started(bot: QuizTutorBot) -> DailyJobs:
    """The bot's daily driver once its start-up work (catch-up, recovery) is done."""
    jobs = jobs_of(bot)
    await asyncio.wait_for(jobs.started.wait(), WAIT)
    return jobs


async def setup_daily(fake: FakeDiscord, zone: str, time: str, **extra: Any) -> None:
    res = await fake.slash(
        fake.admin,
        "daily setup",
        options={"channel": fake.channel2},
        time=time,
        timezone=zone,
        **extra,
    )
    assert "✅" in res.text, res.text


def is_daily_post(message: FakeMessage) -> bool:
    return any("Question of the day" in e.get("title", "") for e in message.embeds)


async def bot_reactions_done(fake: FakeDiscord, message: FakeMessage, n: int) -> None:
    await fake.wait_until(
        lambda: all(fake.bot_user.id in message.reactors(e) for e in ANSWER_EMOJI[:n]),
        WAIT,
        "the bot's answer reactions",
    )


async def written_answers(bot: QuizTutorBot, post_id: int) -> dict[int, int]:
    """Each member's counted answer to a post, the choice as written in the quiz file."""
    async with bot.services.db.session() as session:
        rows = (await session.exec(select(DailyAnswer).where(DailyAnswer.post_id == post_id))).all()
    return {a.user_id: a.choice for a in rows}


async def answers(bot: QuizTutorBot, post_id: int) -> dict[int, int]:
    """Each member's counted answer as the letter they saw (shown position, A = 0)."""
    async with bot.services.db.session() as session:
        post = await session.get(DailyPost, post_id)
    assert post is not None
    written = await written_answers(bot, post_id)
    return {user: shown_position(post.choice_order, c) for user, c in written.items()}


async def the_post(bot: QuizTutorBot, message_id: int) -> DailyPost:
    async with bot.services.db.session() as session:
        query = select(DailyPost).where(DailyPost.message_id == message_id)
        post = (await session.exec(query)).first()
    assert post is not None
    return post


def choices_of(bot: QuizTutorBot, post: DailyPost) -> tuple[int, int, int]:
    """(number of choices, the right choice, a wrong choice) of the post's question, as
    shown on the post (positions: the letters members react or press with)."""
    question = post_question(bot.services.daily.bank, post.question_id, post.instance)
    assert question is not None
    n = question.n_choices
    right = shown_position(post.choice_order, question.answer)
    return n, right, (right + 1) % n


async def post_todays_question(
    fake: FakeDiscord, bot: QuizTutorBot, **setup: Any
) -> tuple[DailyJobs, FakeMessage, DailyPost, tuple[int, int, int]]:
    """Set up a daily question due two minutes ago in `fake.channel2` and post it.

    Returns the driver, the posted message (with the bot's answer reactions on it), the
    post row and (number of choices, the right choice, a wrong choice) as shown.
    """
    jobs = await started(bot)
    zone, time = passed_today()
    await setup_daily(fake, zone, time, **setup)
    await jobs.run_post_job(fake.guild.id)
    message = await fake.wait_for_message(is_daily_post, WAIT, channel=fake.channel2)
    post = await the_post(bot, message.id)
    choices = choices_of(bot, post)
    await bot_reactions_done(fake, message, choices[0])
    return jobs, message, post, choices


def answer_button(post: DailyPost, position: int) -> str:
    """The custom id of letter `position` on a daily post in buttons mode."""
    return f"dq:{post.id}:{position}"


async def answer_as(
    fake: FakeDiscord, message: FakeMessage, post: DailyPost, user: FakeUser, position: int
) -> str | None:
    """`user` answers the letter shown at `position` the post's way (a reaction, or a
    button press); the bot's private reply to a press (None for a reaction)."""
    if post.answer_mode == BUTTONS:
        reply = await fake.click(message, answer_button(post, position), user)
        assert reply.ephemeral
        return reply.content
    await fake.react(message, user, ANSWER_EMOJI[position])
    return None


async def preconfigure_daily(db_url: str, fake: FakeDiscord) -> None:
    """What `/daily setup` stores, written before the bot starts: a post time 2 min ago
    in a zone where it is about noon, so the bot's start-up catch-up posts today's."""
    zone, time = passed_today()
    db = await Database.open(db_url)
    try:
        daily_service = DailyService(db, load_bank([SHIPPED_DIR]))
        await daily_service.configs.configure(
            fake.guild.id, fake.channel2.id, time, zone, locale="en"
        )
    finally:
        await db.close()
