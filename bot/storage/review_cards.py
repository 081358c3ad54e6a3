"""Review cards and their log in the database: a graded answer applied to its card once.

A graded answer is applied to its card exactly once: its source (the quiz session or
daily post, the member and the question) is UNIQUE in `review_log`, written in the
caller's transaction with the answer itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from fsrs import Card
from fsrs.card import CardDict
from sqlalchemy import bindparam, update
from sqlalchemy import select as sa_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import SQLModel, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.core.daily.recall import days
from bot.core.review import CardState, Grade, rating_for, review
from bot.core.times import as_utc
from bot.storage.class_recall import CardChange, apply_card_changes
from bot.storage.database import Database
from bot.storage.models import ReviewCard, ReviewLog

# Graded answers per statement (SQLite binds at most 32766 parameters in one).
CHUNK = 500


async def record_grades(session: AsyncSession, grades: Sequence[Grade]) -> int:
    """Apply graded answers to their cards, in the caller's transaction (no commit).

    The log rows go in first, with ON CONFLICT DO NOTHING ... RETURNING: only the answers
    whose source was not in the log yet come back, and only those change a card. Two
    transactions grading the same answer at once cannot both win: PostgreSQL makes the
    second insert wait for the first and then do nothing; on SQLite the insert takes the
    database's write lock first. Returns how many answers were applied.
    """
    unique: dict[tuple[str, str, int, str], Grade] = {}
    for grade in grades:
        key = (grade.source.kind, grade.source.ref, grade.user_id, grade.question_id)
        unique.setdefault(key, grade)
    items = list(unique.items())
    applied = 0
    for start in range(0, len(items), CHUNK):  # within SQLite's limit of bound parameters
        applied += await _record_chunk(session, dict(items[start : start + CHUNK]))
    return applied


async def _record_chunk(
    session: AsyncSession, unique: dict[tuple[str, str, int, str], Grade]
) -> int:
    # SQLAlchemy Core executemany statements (compiled once, cached; "insertmanyvalues"
    # batches the inserts): a settle may grade thousands of answers in its transaction.
    conn = await session.connection()
    insert: Any = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    logs, cards = _LOG.c, _CARD.c
    inserted = await conn.execute(
        insert(_LOG)
        .on_conflict_do_nothing()
        .returning(logs.source, logs.ref, logs.user_id, logs.question_id),
        [
            {
                "source": kind,
                "ref": ref,
                "user_id": user_id,
                "question_id": question_id,
                "rating": int(rating_for(grade.correct, grade.seconds)),
                "correct": grade.correct,
                "reviewed_at": as_utc(grade.when),
            }
            for (kind, ref, user_id, question_id), grade in unique.items()
        ],
    )
    won = [unique[(r[0], r[1], r[2], r[3])] for r in inserted.all()]
    if not won:
        return 0
    todo = sorted(won, key=lambda g: as_utc(g.when))
    # Create missing cards (a concurrent grader of another answer may be creating the same
    # card: the insert waits for it and does nothing), then lock them to update.
    await conn.execute(
        insert(_CARD).on_conflict_do_nothing(),
        [
            {
                "user_id": g.user_id,
                "question_id": g.question_id,
                "card": {},
                "due": as_utc(g.when),
                "last_review": as_utc(g.when),
                "reviews": 0,
                "lapses": 0,
                "open_mistake": False,
            }
            for g in {(g.user_id, g.question_id): g for g in todo}.values()
        ],
    )
    rows = await conn.execute(
        sa_select(_CARD)
        .where(
            cards.user_id.in_({g.user_id for g in todo}),
            cards.question_id.in_({g.question_id for g in todo}),
        )
        .order_by(cards.user_id, cards.question_id)  # one lock order for every writer
        .with_for_update()
    )
    state = {(r.user_id, r.question_id): r._asdict() for r in rows}
    changed = {(g.user_id, g.question_id) for g in todo}
    before = {key: _curve_point(state[key]) for key in changed}
    for grade in todo:
        row = state[(grade.user_id, grade.question_id)]
        rating = rating_for(grade.correct, grade.seconds)
        stored = Card.from_dict(cast(CardDict, row["card"])) if row["reviews"] else None
        card = review(stored, rating, grade.when)
        row["card"] = dict(card.to_dict())
        row["due"] = card.due
        row["last_review"] = card.last_review
        row["reviews"] += 1
        if not grade.correct:
            row["lapses"] += 1
            row["last_wrong_at"] = as_utc(grade.when)
        row["open_mistake"] = not grade.correct
    await conn.execute(
        _UPDATE_CARD, [{f"b_{k}": v for k, v in state[key].items()} for key in changed]
    )
    # The class recall of every server counting these members follows their cards.
    await apply_card_changes(
        conn,
        [CardChange(u, q, before[(u, q)], _curve_point(state[(u, q)])) for u, q in changed],
    )
    return len(todo)


def _curve_point(row: dict[str, Any]) -> Any:
    """(stability, last review in days) of a card row; None for a card not reviewed yet."""
    if not row["reviews"]:
        return None
    return (float(row["card"]["stability"]), days(row["last_review"]))


_LOG = SQLModel.metadata.tables[ReviewLog.__tablename__]
_CARD = SQLModel.metadata.tables[ReviewCard.__tablename__]
_UPDATE_CARD = (
    update(_CARD)
    .where(
        _CARD.c.user_id == bindparam("b_user_id"),
        _CARD.c.question_id == bindparam("b_question_id"),
    )
    .values(
        {
            name: bindparam(f"b_{name}", type_=_CARD.c[name].type)
            for name in (
                "card",
                "due",
                "last_review",
                "reviews",
                "lapses",
                "open_mistake",
                "last_wrong_at",
            )
        }
    )
)


async def cards_of(db: Database, user_id: int) -> list[CardState]:
    """Every review card of a member (bounded by the bank's size), for the review queue."""
    async with db.session() as session:
        rows = (await session.exec(select(ReviewCard).where(ReviewCard.user_id == user_id))).all()
    return [
        CardState(c.question_id, c.due, c.last_review, c.open_mistake, c.last_wrong_at)
        for c in rows
    ]


async def record_grade(db: Database, grade: Grade) -> bool:
    """One graded answer in its own transaction; False when its source was applied before."""
    async with db.session() as session:
        applied = await record_grades(session, [grade])
        await session.commit()
    return applied == 1
