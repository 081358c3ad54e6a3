"""Revision 0008's replay as it first shipped (one review at a time through fsrs), kept to
check that the set-based replay (`bot.learning.replay_store`) leaves a database exactly
as this one did: databases upgraded by either must be identical."""

from __future__ import annotations

from datetime import UTC
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from bot.common.times import as_utc
from bot.learning.memory_rules import replay
from bot.learning.replay_sql import (
    CARD_COLUMNS,
    daily_answer,
    daily_post,
    member_activity,
    quiz_result,
    quiz_session,
    review_card,
    review_log,
)
from bot.learning.replay_store import (
    BATCH,
    Replayed,
    _insert,
    _zones,
    add_models,
    fill_log_guilds,
)
from bot.learning.review_rules import DAILY, QUIZ, SCHEDULER, rating_for

USERS = 200


def _log_rows(conn: Connection, rows: Any, source: str) -> set[tuple[int, str]]:
    values = [
        {
            "source": source,
            "ref": str(ref),
            "user_id": int(user_id),
            "question_id": question_id,
            "rating": int(rating_for(bool(correct))),
            "correct": bool(correct),
            "reviewed_at": as_utc(when),
            "guild_id": guild_id,
        }
        for ref, user_id, question_id, correct, when, guild_id in rows
    ]
    if not values:
        return set()
    inserted = conn.execute(
        _insert(conn)(review_log)
        .on_conflict_do_nothing()
        .returning(review_log.c.user_id, review_log.c.question_id),
        values,
    )
    return {(int(u), str(q)) for u, q in inserted}


def insert_old_answers(conn: Connection) -> tuple[int, set[tuple[int, str]]]:
    touched: set[tuple[int, str]] = set()
    inserted = 0
    r, s, a, p = quiz_result.c, quiz_session.c, daily_answer.c, daily_post.c
    quiz = (
        sa.select(r.session_id, r.user_id, r.question_id, r.correct, r.answered_at, s.guild_id)
        .join(quiz_session, s.id == r.session_id)
        .order_by(r.session_id, r.question_id)
        .limit(BATCH)
    )
    daily = (
        sa.select(a.post_id, a.user_id, p.question_id, a.correct, a.answered_at, p.guild_id)
        .join(daily_post, p.id == a.post_id)
        .where(p.settled.is_(True))
        .order_by(a.post_id, a.user_id)
        .limit(BATCH)
    )
    for query, source, keys in (
        (quiz, QUIZ, (r.session_id, r.question_id)),
        (daily, DAILY, (a.post_id, a.user_id)),
    ):
        after: tuple[Any, Any] | None = None
        while True:
            page = query if after is None else query.where(sa.tuple_(*keys) > sa.tuple_(*after))
            rows = conn.execute(page).all()
            if not rows:
                break
            last = rows[-1]
            after = (last[0], last[2] if source == QUIZ else last[1])
            won = _log_rows(conn, rows, source)
            inserted += len(won)
            touched |= won
    return inserted, touched


def replay_cards(conn: Connection, touched: set[tuple[int, str]], result: Replayed) -> None:
    zones = _zones(conn)
    conn.execute(sa.delete(member_activity))
    last_user: int | None = None
    c = review_log.c
    while True:
        users_query = sa.select(c.user_id).distinct().order_by(c.user_id)
        if last_user is not None:
            users_query = users_query.where(c.user_id > last_user)
        users = [int(u) for (u,) in conn.execute(users_query.limit(USERS))]
        if not users:
            break
        last_user = users[-1]
        rows = conn.execute(
            sa.select(c.user_id, c.question_id, c.rating, c.correct, c.reviewed_at, c.guild_id)
            .where(c.user_id.in_(users))
            .order_by(c.user_id, c.question_id, c.reviewed_at, c.id)
        )
        histories: dict[tuple[int, str], list[Any]] = {}
        for row in rows:
            histories.setdefault((int(row[0]), str(row[1])), []).append(row)
        days: dict[tuple[int, Any], list[int]] = {}
        cards = []
        for key, history in histories.items():
            card = replay([(r[2], bool(r[3]), as_utc(r[4])) for r in history], SCHEDULER)
            result.reviews += len(history)
            for r, due in zip(history, card.due_flags, strict=True):
                zone = zones.get(int(r[5]), UTC) if r[5] is not None else UTC
                counts = days.setdefault((key[0], as_utc(r[4]).astimezone(zone).date()), [0] * 4)
                counts[0] += 1
                counts[1] += int(bool(r[3]))
                counts[2] += int(due)
                counts[3] += int(due and bool(r[3]))
            if key in touched:
                cards.append(
                    {
                        "user_id": key[0],
                        "question_id": key[1],
                        **{c: getattr(card, c) for c in CARD_COLUMNS},
                    }
                )
        if cards:
            statement = _insert(conn)(review_card)
            conn.execute(
                statement.on_conflict_do_update(
                    index_elements=["user_id", "question_id"],
                    set_={c: statement.excluded[c] for c in CARD_COLUMNS},
                ),
                cards,
            )
            result.cards += len(cards)
        if days:
            conn.execute(
                sa.insert(member_activity),
                [
                    dict(
                        user_id=u, day=d, answers=n[0], right=n[1], due_reviews=n[2], due_right=n[3]
                    )
                    for (u, d), n in days.items()
                ],
            )


def replay_history(conn: Connection, now: Any) -> Replayed:
    result = Replayed()
    fill_log_guilds(conn)
    result.inserted, touched = insert_old_answers(conn)
    replay_cards(conn, touched, result)
    add_models(conn, now)
    return result
