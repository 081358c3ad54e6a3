"""End to end through the stand-in: the daily question the members are weakest at is
posted, and `/daily status` says why (issue 16.2)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.common.schedule import choose_question
from bot.db.tables.daily import DailyAnswer, DailyPost
from bot.learning.review_rules import DAILY, Source
from testkit.standin.server import FakeDiscord
from testkit.times import passed_today
from tests.support.bot import StartBot
from tests.support.daily import post_todays_question, started

TOPIC = "mixed-precision"


async def test_status_says_why_todays_question_was_chosen(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    guild_id = fake.guild.id
    zone, _ = passed_today()
    today = datetime.now(ZoneInfo(zone)).date()
    async with start_bot() as bot:
        await started(bot)
        services = bot.services
        pool = sorted(q.id for q in services.bank.visible_questions(guild_id, TOPIC))
        # Ten days ago the three members all got `weak` wrong; nothing else is known.
        weak = pool[len(pool) // 2]
        # The old rotation would not pick it today (it avoids what its cycle used).
        assert choose_question(guild_id, today, pool, [weak]) != weak
        answered = datetime.now(UTC) - timedelta(days=10)
        async with services.db.session() as session:
            post = DailyPost(
                guild_id=guild_id,
                day=today - timedelta(days=10),
                question_id=weak,
                channel_id=fake.channel2.id,
                reveal_at=answered + timedelta(hours=20),
            )
            session.add(post)
            await session.flush()
            assert post.id is not None
            post_id = post.id
            wrong = (services.bank.question(weak).answer + 1) % 3
            for user in fake.users_list:
                session.add(
                    DailyAnswer(
                        post_id=post_id,
                        user_id=user.id,
                        choice=wrong,
                        correct=False,
                        answered_at=answered,
                    )
                )
            await session.commit()
        # Settled as the bot settles a day: streaks, review cards, the class.
        await services.daily.settling.settle(post_id, now=answered + timedelta(hours=20))
        await services.daily.settling.graded()
        for user in fake.users_list:  # each answer was applied to its card, once
            source = Source(DAILY, str(post_id))
            assert not await services.sessions.reviews.record_grade(
                user.id, weak, False, answered, source
            )

        _, message, posted, _ = await post_todays_question(fake, bot, topic=TOPIC, repeat_after=3)
        assert posted.question_id == weak
        assert posted.choice is not None and posted.choice["rule"] == "weak"

        status = await fake.slash(fake.admin, "daily status", locale="en-US")
        text = status.text
        assert f"Why {weak} ({today.isoformat()})" in text
        assert "The 3 recently active member(s) recall it least" in text
        assert "over 3 review card(s)" in text
        assert f"Not posted in the last 3 day(s); {len(pool)} question(s) were eligible" in text
        assert "No repeat within" in text and "3 days" in text

        status_id = await fake.slash(fake.admin, "daily status", locale="id")
        assert f"Mengapa {weak}" in status_id.text
        assert "3 anggota yang aktif belakangan paling lemah mengingatnya" in status_id.text
        assert "Tidak dikirim dalam 3 hari terakhir" in status_id.text
        assert message.id == posted.message_id
