"""Review reminders (issue 26.3) through the stand-in's DM channels, on a clock moved by
hand: sent once at the member's local time across a DST change, not sent with too little
due, turned off on 403 (and the member told at their next command), a button in the DM that
starts a review of the reminder's server; and owed once with two processes, spread out."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

from sqlalchemy import select

from bot.db.database import Database
from bot.db.tables.outbox import Outbox
from bot.discord.client import QuizTutorBot
from bot.learning.cards_store import record_grades
from bot.learning.reminder_rules import (
    MIN_DUE_DEFAULT,
    SPREAD,
    next_reminder_at,
    parse_min_due,
    spread,
)
from bot.learning.reminders import Reminders
from bot.learning.reminders_store import get
from bot.learning.review import Reviews
from bot.learning.review_rules import QUIZ, Grade, Source
from bot.quiz import sessions_store
from testkit.standin.models import FakeUser
from testkit.standin.server import FakeDiscord
from testkit.times import Clock
from tests.support.bot import StartBot

BERLIN = ZoneInfo("Europe/Berlin")
# Central Europe moves its clocks forward on 2026-03-29: 08:00 is 07:00 UTC the day
# before, 06:00 UTC that day.
SATURDAY = datetime(2026, 3, 28, 7, 0, tzinfo=UTC)
SUNDAY = datetime(2026, 3, 29, 6, 0, tzinfo=UTC)


async def owe_mistakes(
    db: Database, bot: QuizTutorBot, user: FakeUser, n: int, when: datetime
) -> None:
    """`n` wrong answers of this server's questions: open mistakes, due at once."""
    questions = [q.id for q in bot.services.bank.visible_questions(None)][:n]
    async with db.session() as session:
        await record_grades(
            session,
            [Grade(user.id, q, False, when, Source(QUIZ, f"seed-{user.id}")) for q in questions],
        )
        await session.commit()


def by_hand(bot: QuizTutorBot, clock: Clock) -> Reminders:
    """The bot's reminders on the test's clock, checked and sent only when the test says."""
    for job in ("reminders:check", "reminders:send"):
        bot.services.scheduler.remove_job(job)
    reminders = bot.services.reminders
    reminders.clock = clock
    return reminders


def test_the_reminder_time_is_local_across_a_dst_change() -> None:
    at = time(8, 0)
    assert next_reminder_at(SATURDAY - timedelta(hours=2), at, BERLIN) == SATURDAY
    assert next_reminder_at(SATURDAY, at, BERLIN) == SUNDAY  # strictly after
    assert next_reminder_at(SUNDAY, at, BERLIN) == datetime(2026, 3, 30, 6, 0, tzinfo=UTC)
    # 02:30 does not exist that night in Berlin: it moves forward by the gap.
    gap = next_reminder_at(SATURDAY, time(2, 30), BERLIN)
    assert gap.astimezone(BERLIN).hour == 3 and gap.date().day == 29
    assert parse_min_due(None) == MIN_DUE_DEFAULT == 5


def test_reminders_owed_together_are_spread_over_a_minute() -> None:
    assert spread(1) == [timedelta(0)]
    offsets = spread(300)
    assert offsets[-1] >= SPREAD - timedelta(seconds=1) and offsets == sorted(offsets)
    assert min(b - a for a, b in pairwise(offsets)) >= timedelta(seconds=0.2)


async def test_a_reminder_comes_once_at_local_time_across_dst_and_its_button_starts_a_review(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    member = next(u for u in fake.users_list if u.locale != "id")
    idle = fake.users_list[1] if fake.users_list[0] is member else fake.users_list[0]
    clock = Clock(SATURDAY - timedelta(hours=1))
    async with start_bot() as bot:
        reminders = by_hand(bot, clock)
        db = bot.services.db
        await owe_mistakes(db, bot, member, 4, clock.now - timedelta(days=1))
        await owe_mistakes(db, bot, idle, 2, clock.now - timedelta(days=1))

        res = await fake.slash(
            member, "quiz remind on", time="08:00", timezone="Europe/Berlin", min_due=3
        )
        assert res.ephemeral and "every day at 08:00 (Europe/Berlin)" in res.text
        assert f"<t:{int(SATURDAY.timestamp())}:F>" in res.text
        # The idle member wants 5 due (the default) and has 2: never a DM.
        await fake.slash(idle, "quiz remind on", time="08:00", timezone="Europe/Berlin")

        clock.now = SATURDAY - timedelta(minutes=1)
        assert await reminders.owe_due() == 0
        clock.now = SATURDAY
        assert await reminders.owe_due() == 1
        # Another process on the same database at the same moment owes nothing more.
        other = Reminders(db, Reviews(db, bot.services.bank), clock=clock)
        assert await other.owe_due() == 0 and await reminders.owe_due() == 0
        assert await reminders.pump() == 1
        dm = await fake.wait_for_dm(member)
        assert "4 of your reviews are due" in dm.content
        assert fake.dms(idle) == []

        clock.now = SUNDAY - timedelta(minutes=1)
        assert await reminders.owe_due() == 0
        clock.now = SUNDAY  # 08:00 in Berlin, now on summer time
        assert await reminders.owe_due() == 1 and await reminders.pump() == 1
        assert len(fake.dms(member)) == 2 and fake.dms(idle) == []
        stored = await get(db, idle.id)
        assert stored is not None and stored.next_at == SUNDAY + timedelta(days=1)

        # The DM's button reviews the server the reminder was set in (a DM has none).
        latest = fake.dms(member)[-1]
        review = await fake.click(latest, "remind:review", member)
        assert review.ephemeral and review.embeds[0]["title"].startswith("Question 1/")
        session = await sessions_store.active_for(bot.services.db, member.id)
        assert session is not None and session.guild_id == fake.guild.id

        assert (await fake.slash(member, "quiz remind off")).text == "Reminders off."
        clock.now = SUNDAY + timedelta(days=1)
        assert await reminders.owe_due() == 0 and len(fake.dms(member)) == 2


async def test_closed_dms_turn_reminders_off_and_the_member_is_told_at_the_next_command(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    member = next(u for u in fake.users_list if u.locale != "id")
    clock = Clock(SATURDAY - timedelta(hours=1))
    async with start_bot() as bot:
        reminders = by_hand(bot, clock)
        await owe_mistakes(bot.services.db, bot, member, 5, clock.now - timedelta(days=1))
        await fake.slash(member, "quiz remind on", time="08:00", timezone="Europe/Berlin")
        fake.refuse_dms(member)
        clock.now = SATURDAY
        assert await reminders.owe_due() == 1
        assert await reminders.pump() == 0  # Discord said 403, 50007
        stored = await get(bot.services.db, member.id)
        assert stored is not None and not stored.enabled and stored.off_reason == "dm_closed"
        async with bot.services.db.session() as session:
            (item,) = (await session.exec(select(Outbox))).all()  # type: ignore[call-overload]
        assert item[0].gave_up == "forbidden" and item[0].delivered_at is None

        res = await fake.slash(member, "quiz remind off")
        assert res.text == "You have no reminders on. Turn them on with /quiz remind on."
        told = await res.wait_followup()
        assert told.ephemeral and "Your review reminders are off" in told.content
        clock.now = SUNDAY
        assert await reminders.owe_due() == 0  # off: nothing owed, and nothing retried
        assert await reminders.pump() == 0


async def test_a_bad_reminder_setting_gets_a_short_message(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    member = fake.users_list[0]
    async with start_bot():
        bad_time = await fake.slash(member, "quiz remind on", time="25:00")
        assert bad_time.ephemeral and "25:00" in bad_time.text
        bad_zone = await fake.slash(member, "quiz remind on", timezone="Mars/Olympus")
        assert bad_zone.ephemeral and "Mars/Olympus" in bad_zone.text


async def test_many_reminders_at_one_moment_are_owed_once_each_spread_over_a_minute(
    start_bot: StartBot, discord_fake: FakeDiscord
) -> None:
    clock = Clock(SATURDAY - timedelta(hours=1))
    async with start_bot() as bot:
        db = bot.services.db
        reminders = by_hand(bot, clock)
        members = [10_000 + i for i in range(40)]
        for user_id in members:
            await owe_mistakes(db, bot, FakeUser(user_id, f"m{user_id}"), 5, clock.now)
            await reminders.turn_on(
                user_id, discord_fake.guild.id, "en", "08:00", 5, "Europe/Berlin"
            )
        clock.now = SATURDAY
        twin = Reminders(db, Reviews(db, bot.services.bank), clock=clock)
        assert await reminders.owe_due() + await twin.owe_due() == len(members)
        async with db.session() as session:
            rows = (await session.exec(select(Outbox.ref, Outbox.due_at))).all()  # type: ignore[call-overload]
        assert sorted(int(ref.split(":")[0]) for ref, _ in rows) == members
        assert {ref.split(":")[1] for ref, _ in rows} == {"2026-03-28"}
        dues = sorted(due for _, due in rows)
        assert dues[0] == SATURDAY and dues[-1] - dues[0] >= SPREAD * 39 / 40
