"""Old answers count (issue 26.5): answers recorded before review cards existed are
replayed into the cards by migration 0008, in time order, exactly once."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import select, text

from bot.common.times import naive_utc
from bot.db.database import Database
from bot.db.tables.daily import DailyAnswer, DailyPost
from bot.db.tables.quiz import QuizResult, QuizSession
from bot.learning import replay_sql as tables_
from bot.learning.cards_store import record_grades
from bot.learning.memory_rules import replay
from bot.learning.replay_store import replay_history
from bot.learning.review_rules import QUIZ, SCHEDULER, Grade, Source, rating_for

G, U, V = 5150, 11, 12
T0 = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
Q1, Q2 = "mp-fp16-range", "mp-bf16-range"


async def old_answers(db: Database) -> None:
    """A quiz and two daily posts answered before review cards existed (no log rows), an
    open post (applied when it settles, not by the replay), and a newer answer applied live."""
    async with db.session() as session:
        session.add(
            QuizSession(
                id="old1",
                user_id=U,
                guild_id=G,
                locale="en",
                question_ids=[Q1, Q2],
                choice_orders=[[0, 1], [0, 1]],
            )
        )
        await session.flush()
        session.add(
            QuizResult(
                session_id="old1",
                question_id=Q1,
                user_id=U,
                chosen=1,
                correct=False,
                answered_at=T0,
            )
        )
        session.add(
            QuizResult(
                session_id="old1",
                question_id=Q2,
                user_id=U,
                chosen=0,
                correct=True,
                answered_at=T0 + timedelta(minutes=1),
            )
        )
        for day, settled in ((date(2026, 5, 6), True), (date(2026, 5, 20), False)):
            post = DailyPost(
                guild_id=G, day=day, question_id=Q1, channel_id=1, reveal_at=T0, settled=settled
            )
            session.add(post)
            await session.flush()
            assert post.id is not None
            when = datetime.combine(day, T0.time(), tzinfo=UTC)
            session.add(
                DailyAnswer(post_id=post.id, user_id=U, choice=0, correct=True, answered_at=when)
            )
            session.add(
                DailyAnswer(post_id=post.id, user_id=V, choice=1, correct=False, answered_at=when)
            )
        await session.commit()
    async with db.session() as session:  # after review cards existed: applied live
        await record_grades(
            session, [Grade(U, Q1, True, T0 + timedelta(days=9), Source(QUIZ, "new1"), guild_id=G)]
        )
        await session.commit()


async def snapshot(db: Database) -> dict[str, list[Any]]:
    """Every row the replay may touch, typed (the replay's own table definitions)."""
    tables = (tables_.review_log, tables_.review_card, tables_.member_activity)
    async with db.engine.connect() as conn:
        out = {
            t.name: [tuple(r) for r in await conn.execute(select(t).order_by(*list(t.c)[:2]))]
            for t in tables
        }
        models = select(tables_.memory_model.c.guild_id).order_by(tables_.memory_model.c.guild_id)
        out["memory_model"] = [tuple(r) for r in await conn.execute(models)]
        return out


async def run_replay(db: Database) -> Any:
    async with db.engine.begin() as conn:
        return await conn.run_sync(replay_history, T0 + timedelta(days=30))


async def test_old_answers_go_into_the_cards_in_time_order_exactly_once(db: Database) -> None:
    await old_answers(db)
    first = await run_replay(db)
    assert first.inserted == 4  # two quiz answers, two daily answers of the settled post
    after_first = await snapshot(db)
    again = await run_replay(db)
    assert again.inserted == 0 and again.cards == 0
    assert await snapshot(db) == after_first  # idempotent: nothing changes

    rows = after_first["review_log"]
    assert len(rows) == 5 and all(r[-1] == G for r in rows)  # every row knows its server
    cards = {(r[0], r[1]): r for r in after_first["review_card"]}
    assert set(cards) == {(U, Q1), (U, Q2), (V, Q1)}
    # U's Q1: wrong (quiz), right (daily), right (the live answer), replayed in time order.
    history = [
        (int(rating_for(False)), False, T0),
        (int(rating_for(True)), True, datetime(2026, 5, 6, 9, 0, tzinfo=UTC)),
        (int(rating_for(True)), True, T0 + timedelta(days=9)),
    ]
    expected = replay(history, SCHEDULER)
    _, _, card, due, last_review, reviews, lapses, open_mistake, _ = cards[(U, Q1)]
    assert (reviews, lapses, bool(open_mistake)) == (3, 1, False)
    assert card == expected.card
    assert last_review == T0 + timedelta(days=9) and due == expected.due
    # V's wrong daily answer is an open mistake; the open post's answers wait for its settle.
    assert cards[(V, Q1)][5:8] == (1, 1, True)
    days = {(r[0], r[1]): r[2:] for r in after_first["member_activity"]}
    assert days[(U, date(2026, 5, 4))] == (2, 1, 0, 0)
    # The daily answer reviewed Q1 before it was due: not a due review.
    assert days[(U, date(2026, 5, 6))] == (1, 1, 0, 0)
    assert sum(r[0] for r in days.values()) == 5
    assert [r[0] for r in after_first["memory_model"]] == [G]


async def test_the_migration_replays_what_was_answered_before_it(db: Database) -> None:
    await db.migrate_to("0007")
    # Rows as they were at 0007, written with that revision's columns (the models are newer).
    async with db.engine.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO quiz_session (id, user_id, guild_id, locale, question_ids,"
                " choice_orders, position, answered_current, score, started_at,"
                " last_activity_at, status) VALUES ('old2', :u, :g, 'en', :q, '[[0, 1]]',"
                " 0, false, 0, :t, :t, 'active')"
            ),
            {"u": U, "g": G, "q": f'["{Q1}"]', "t": naive_utc(T0)},
        )
        await conn.execute(
            text(
                "INSERT INTO quiz_result (session_id, question_id, user_id, chosen, correct,"
                " answered_at) VALUES ('old2', :q, :u, 0, true, :t)"
            ),
            {"q": Q1, "u": U, "t": naive_utc(T0)},
        )
    await db.migrate_to("head")
    state = await snapshot(db)
    assert [(r[1], r[2], r[3], r[4], r[-1]) for r in state["review_log"]] == [
        (QUIZ, "old2", U, Q1, G)
    ]
    (card,) = state["review_card"]
    assert card[5] == 1 and not card[7]
    assert state["member_activity"] == [(U, date(2026, 5, 4), 1, 1, 0, 0)]
