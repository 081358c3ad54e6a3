"""Migration 0005 on a database with history: the tallies of `/daily stats` and the class
of the daily choice are filled from what is there (issue 27)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy import text

from bot.daily.analytics_rules import week_starts
from bot.daily.analytics_store import class_analytics, guild_overview
from bot.daily.choice_store import signals_of
from bot.db.database import Database
from bot.learning.recall_rules import CARDS, SUMS, days
from bot.learning.recall_store import fold
from bot.learning.review_rules import rating_for, review

GUILD = 5
U1, U2, U3, U4, U5, U6 = range(701, 707)
RIGHT, W1, W2 = 0, 1, 2  # q-a and q-b: the right choice is 0


def stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M:%S.%f")


async def seed_at_0004(db: Database, now: datetime) -> None:
    """q-a 14 days ago (settled), q-b 7 days ago (settled), q-a yesterday (open), q-b 70
    days ago (settled), each answered as in PLAN; one review card of U1."""
    plan = [
        (14, "q-a", True, [(U1, RIGHT), (U2, W1), (U3, W1)]),
        (7, "q-b", True, [(U1, RIGHT), (U4, W2)]),
        (1, "q-a", False, [(U5, RIGHT)]),
        (70, "q-b", True, [(U6, RIGHT)]),
    ]
    sqlite, today = db.is_sqlite, now.date()
    async with db.engine.begin() as conn:
        for post_id, (days_ago, question, settled, answers) in enumerate(plan, start=1):
            day = today - timedelta(days=days_ago)
            at = datetime.combine(day, time(9), UTC)
            when = stamp(at) if sqlite else at.replace(tzinfo=None)
            await conn.execute(
                text(
                    "INSERT INTO daily_post (id, guild_id, day, question_id, channel_id,"
                    " claimed_at, reveal_at, settled) VALUES (:id, :g, :day, :q, 1, :at, :at, :s)"
                ),
                {"id": post_id, "g": GUILD, "day": day, "q": question, "at": when, "s": settled},
            )
            for user, choice in answers:
                await conn.execute(
                    text(
                        "INSERT INTO daily_answer (post_id, user_id, choice, correct, answered_at)"
                        " VALUES (:p, :u, :c, :ok, :at)"
                    ),
                    {"p": post_id, "u": user, "c": choice, "ok": choice == RIGHT, "at": when},
                )
        for user in (U1, U2, U3, U4, U6):  # what the old settle left for the answerers
            await conn.execute(
                text(
                    "INSERT INTO member_stats (guild_id, user_id, current_streak, longest_streak,"
                    " answered, correct, updated_at) VALUES (:g, :u, 0, 1, 1, 0, :at)"
                ),
                {"g": GUILD, "u": user, "at": stamp(now) if sqlite else now.replace(tzinfo=None)},
            )
        reviewed = datetime.combine(today - timedelta(days=7), time(9), UTC)
        card = review(None, rating_for(True), reviewed)
        await conn.execute(
            text(
                "INSERT INTO review_card (user_id, question_id, card, due, last_review, reviews,"
                " lapses, open_mistake) VALUES (:u, 'q-b', :card, :due, :last, 1, 0, false)"
            ),
            {
                "u": U1,
                "card": json.dumps(card.to_dict()),
                "due": stamp(card.due) if sqlite else card.due.replace(tzinfo=None),
                "last": stamp(reviewed) if sqlite else reviewed.replace(tzinfo=None),
            },
        )


async def test_upgrade_to_0005_fills_the_tallies_and_the_class(db: Database) -> None:
    now = datetime.now(UTC)
    today = now.date()
    await db.migrate_to("0004")
    await seed_at_0004(db, now)
    await db.migrate_to("head")
    async with db.engine.connect() as conn:  # no table copy took the answers with it
        kept = (await conn.execute(text("SELECT count(*) FROM daily_answer"))).scalar_one()
    assert kept == 7

    found = await class_analytics(db, GUILD, today, weeks=12)
    assert [(q.question_id, q.posts, q.answered, q.correct) for q in found.questions] == [
        ("q-a", 1, 3, 1),  # the open q-a of yesterday is not in it
        ("q-b", 2, 3, 2),
    ]
    assert (found.questions[0].top_wrong, found.questions[0].top_wrong_count) == (W1, 2)
    assert (found.questions[1].top_wrong, found.questions[1].top_wrong_count) == (W2, 1)
    # Members, answers and posts per week as the old query counted them: every post of
    # the window, open ones included, each member once per week.
    expected: dict[date, tuple[set[int], int, int]] = {}
    for days_ago, users in ((70, {U6}), (14, {U1, U2, U3}), (7, {U1, U4}), (1, {U5})):
        day = today - timedelta(days=days_ago)
        members, answers, posts = expected.get(day - timedelta(days=day.weekday()), (set(), 0, 0))
        expected[day - timedelta(days=day.weekday())] = (
            members | users,
            answers + len(users),
            posts + 1,
        )
    assert [(w.members, w.answers, w.posts) for w in found.weeks] == [
        (len(expected[w][0]), expected[w][1], expected[w][2]) if w in expected else (0, 0, 0)
        for w in week_starts(today, 12)
    ]
    overview = await guild_overview(db, GUILD, 14)
    assert (overview.members, overview.answered, overview.correct) == (6, 7, 4)

    # The class: who answered a settled post in the last 30 days, folded in on first use.
    async with db.engine.connect() as conn:
        rows = (
            await conn.execute(text("SELECT user_id, counted FROM class_member ORDER BY user_id"))
        ).all()
    assert [(r[0], bool(r[1])) for r in rows] == [(u, False) for u in (U1, U2, U3, U4)]
    await fold(db, GUILD, now)
    async with db.session() as session:
        members, got = await signals_of(session, GUILD, ["q-a", "q-b"], now)
    assert members == 5  # U1-U4, and U5 through the open post
    # Migration 0008 replayed the old daily answers into cards: both questions have cards
    # now, and the class's sums give what the cards themselves give.
    async with db.engine.connect() as conn:
        cards = (
            await conn.execute(
                text(
                    "SELECT question_id, card FROM review_card WHERE user_id IN"
                    f" ({', '.join(str(u) for u in (U1, U2, U3, U4, U5))})"
                )
            )
        ).all()
    per_question: dict[str, list[float]] = {}
    for question, card in cards:
        data = card if isinstance(card, dict) else json.loads(card)
        point = (data["stability"], days(datetime.fromisoformat(data["last_review"])))
        per_question.setdefault(question, []).append(SUMS.exact(*point, days(now)))
    assert set(got) == set(per_question) == {"q-a", "q-b"}
    for question, recalls in per_question.items():
        assert (got[question].basis, got[question].n) == (CARDS, len(recalls))
        assert abs(got[question].recall - sum(recalls) / len(recalls)) < 1e-3, question
