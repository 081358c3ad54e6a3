"""/quiz review through the Discord stand-in: a member practises what they got wrong."""

from __future__ import annotations

import re

from bot.common.times import utcnow
from bot.learning.cards_store import record_grades
from bot.learning.review_rules import QUIZ, Grade, Source
from bot.quiz import sessions_store
from bot.stats.charts import PNG_MAGIC
from testkit.standin.models import FakeMessage, FakeUser
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.quiz import button, letters


def prompt_of(message: FakeMessage) -> str:
    """The question's prompt: the bold first line of the question embed."""
    return str(message.embeds[0]["description"]).split("\n")[0].strip("*")


async def click(fake: FakeDiscord, message_id: int, label: str, member: FakeUser) -> FakeMessage:
    message = fake.message(message_id)
    await fake.click(message, button(message, label), member)
    return fake.message(message_id)


async def test_review_asks_the_mistake_first_and_survives_a_restart(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    member = fake.users_list[0]
    async with start_bot() as bot:
        res = await fake.slash(member, "quiz start", topic="gradient-accumulation", questions=2)
        assert res.message is not None
        quiz_id = res.message.id
        first = await sessions_store.active_for(bot.services.db, member.id)
        assert first is not None
        missed, passed = first.question_ids
        _, wrong = await letters(bot, member)
        await click(fake, quiz_id, wrong, member)
        await click(fake, quiz_id, "Next", member)
        right, _ = await letters(bot, member)
        await click(fake, quiz_id, right, member)
        # The score says the mistake can be practised now.
        done = await click(fake, quiz_id, "See my score", member)
        assert done.embeds[0]["fields"] == [
            {
                "name": "Reviews",
                "value": "📌 1 question(s) to review now: /quiz review.",
                "inline": True,
            }
        ]

        review = await fake.slash(member, "quiz review", questions=3)
        assert review.ephemeral and review.embeds[0]["title"] == "Question 1/3"
        assert review.message is not None
        session = await sessions_store.active_for(bot.services.db, member.id)
        assert session is not None and session.id != first.id
        # The mistake first; the question answered right is not due again for days.
        assert session.question_ids[0] == missed and passed not in session.question_ids
        assert len(set(session.question_ids)) == 3
        assert prompt_of(review.message) == bot.services.bank.question(missed).text("prompt", "en")
        right, _ = await letters(bot, member)
        answered = await click(fake, review.message.id, right, member)
        assert answered.embeds[0]["fields"][0]["name"] == "✅ Correct!"
        assert "Show me" in [c.get("label") for c in answered.components[-1]["components"]]
        review_id = review.message.id
    async with start_bot(sync=False) as bot:
        step = await click(fake, review_id, "Next", member)
        assert step.embeds[0]["title"] == "Question 2/3"
        # Practised right, the mistake is closed: a new review does not start with it.
        await fake.slash(member, "quiz stop")
        again = await fake.slash(member, "quiz review", questions=3)
        session = await sessions_store.active_for(bot.services.db, member.id)
        assert session is not None and missed not in session.question_ids
        assert again.embeds[0]["title"] == "Question 1/3"


async def test_review_with_nothing_due_says_when_the_next_review_is(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    member = next(u for u in fake.users_list if u.locale != "id")
    member_id = next(u for u in fake.users_list if u.locale == "id")
    async with start_bot() as bot:
        # Both members have answered every question right: nothing is due, nothing unseen.
        now = utcnow()
        questions = bot.services.bank.visible_questions(fake.guild.id)
        async with bot.services.db.session() as session:
            await record_grades(
                session,
                [
                    Grade(user.id, q.id, True, now, Source(QUIZ, "seed"))
                    for user in (member, member_id)
                    for q in questions
                ],
            )
            await session.commit()
        next_due = await bot.services.sessions.reviews.next_due(member.id, fake.guild.id)
        assert next_due is not None and next_due > now
        res = await fake.slash(member, "quiz review")
        assert res.ephemeral and res.message is not None and not res.message.components
        assert res.text.startswith("🎉 Nothing to review right now")
        stamps = {int(s) for s in re.findall(r"<t:(\d+):[FR]>", res.text)}
        assert stamps == {int(next_due.timestamp())}
        assert await sessions_store.active_for(bot.services.db, member.id) is None
        res_id = await fake.slash(member_id, "quiz review")
        assert res_id.text.startswith("🎉 Belum ada yang perlu diulang")


async def test_me_shows_streak_accuracy_per_topic_and_reviews_privately(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    member = next(u for u in fake.users_list if u.locale != "id")
    async with start_bot() as bot:
        empty = await fake.slash(member, "me")
        assert empty.ephemeral
        fields = {f["name"]: f["value"] for f in empty.embeds[0]["fields"]}
        assert fields["Accuracy per topic (weakest first)"].startswith("Nothing answered yet")
        assert fields["Reviews"].startswith("**0** due now · **0** due this week")

        res = await fake.slash(member, "quiz start", topic="mixed-precision", questions=2)
        assert res.message is not None
        _, wrong = await letters(bot, member)
        await click(fake, res.message.id, wrong, member)
        await click(fake, res.message.id, "Next", member)
        right, _ = await letters(bot, member)
        await click(fake, res.message.id, right, member)

        res = await fake.slash(member, "me")
        assert res.ephemeral and res.type == 5  # deferred: the chart is drawn off the loop
        me = await res.wait_followup()
        assert me.ephemeral and "progress" in me.embeds[0]["title"]
        chart, calendar = me.attachments
        assert chart.filename == "progress.png" and chart.data.startswith(PNG_MAGIC)
        assert len(chart.data) > 1000
        assert me.embeds[0]["image"]["url"] == "attachment://progress.png"
        # Learning II: the calendar of 26 weeks below, and the habit beside the rest.
        assert calendar.filename == "habit.png" and calendar.data.startswith(PNG_MAGIC)
        assert me.embeds[1]["image"]["url"] == "attachment://habit.png"
        fields = {f["name"]: f["value"] for f in me.embeds[0]["fields"]}
        habit = "2 answer(s) · current run 1 day(s) · longest run 1 day(s)"
        assert fields["Habit (26 weeks)"] == habit
        assert fields["True retention (30 days)"] == (
            "no review of a due question in 30 days · target 90%"
        )
        assert fields["Next review"].startswith("<t:")
        assert fields["Current streak"] == "0 day(s)" and fields["Longest streak"] == "0 day(s)"
        title = bot.services.bank.quiz("mixed-precision").title["en"]
        assert fields["Accuracy per topic (weakest first)"] == f"{title} — 50% (1/2)"
        assert fields["Reviews"].startswith("**1** due now")
        assert "/quiz review" in fields["Reviews"]


async def test_a_quiz_without_mistakes_ends_with_the_next_review_time(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    member = next(u for u in fake.users_list if u.locale != "id")
    async with start_bot() as bot:
        res = await fake.slash(member, "quiz start", topic="mixed-precision", questions=1)
        assert res.message is not None
        right, _ = await letters(bot, member)
        await click(fake, res.message.id, right, member)
        done = await click(fake, res.message.id, "See my score", member)
        next_due = await bot.services.sessions.reviews.next_due(member.id, fake.guild.id)
        assert next_due is not None and next_due.date() > utcnow().date()  # days away
        [field] = done.embeds[0]["fields"]
        assert field["value"] == f"Next review: <t:{int(next_due.timestamp())}:R>"
