"""Review cards and their log in the database: a graded answer applied to its card once.

A graded answer is applied to its card exactly once: its source (the quiz session or
daily post, the member and the question) is UNIQUE in `review_log`, written in the
caller's transaction with the answer itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import orjson
from fsrs import Card
from fsrs.card import CardDict
from sqlalchemy import bindparam, column, table, update
from sqlalchemy import select as sa_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.common.times import as_utc
from bot.db.base import driver_time
from bot.db.database import Database
from bot.db.tables.review import ReviewCard, ReviewLog
from bot.learning.activity_store import count_answers
from bot.learning.memory_rules import DEFAULT_RULES, Rules, was_due
from bot.learning.recall_rules import curve_point
from bot.learning.recall_store import CardChange, apply_card_changes
from bot.learning.review_rules import CardState, Grade, rating_for, review

# Graded answers per statement (SQLite binds at most 32766 parameters in one).
CHUNK = 500


async def record_grades(
    session: AsyncSession, grades: Sequence[Grade], rules: Rules = DEFAULT_RULES
) -> int:
    """Apply graded answers to their cards, in the caller's transaction (no commit), with
    the rules of the server they were given in (`bot.learning.memory_store.rules_on`).

    The log rows go in first, with ON CONFLICT DO NOTHING ... RETURNING: only the answers
    whose source was not in the log yet come back, and only those change a card. Two
    transactions grading the same answer at once cannot both win: PostgreSQL makes the
    second insert wait for the first and then do nothing; on SQLite the insert takes the
    database's write lock first. Returns how many answers were applied.
    """
    conn = await session.connection()
    applied = 0
    for chunk in chunks(grades):
        # In the caller's transaction: the cards are read under lock and worked out there.
        prepared = Prepared(chunk, {}, {}, {}, {}, rules, ready=False)
        applied += await apply_grades(conn, prepared)
    return applied


@dataclass
class Prepared:
    """Graded answers worked out against the cards as read (`prepare_grades`), to be
    applied in a short transaction (`apply_grades`)."""

    unique: dict[tuple[str, str, int, str], Grade]
    rows: dict[tuple[int, str], dict[str, Any]]  # each card after the grades, driver values
    versions: dict[tuple[int, str], int]  # its `reviews` when read (0: no card yet)
    before: dict[tuple[int, str], tuple[float, float] | None]
    # Per answer (its source key): whether it reviewed its card when due (`was_due`).
    due: dict[tuple[str, str, int, str], bool]
    rules: Rules  # the server's memory model the cards are worked out with
    ready: bool = True  # False: nothing worked out yet (read and work out under lock)


def chunks(
    grades: Sequence[Grade], size: int = CHUNK
) -> list[dict[tuple[str, str, int, str], Grade]]:
    """Graded answers, one per source, in chunks of at most `size` (CHUNK at most: within
    SQLite's limit of bound parameters)."""
    size = min(size, CHUNK)
    unique: dict[tuple[str, str, int, str], Grade] = {}
    for grade in grades:
        key = (grade.source.kind, grade.source.ref, grade.user_id, grade.question_id)
        unique.setdefault(key, grade)
    items = list(unique.items())
    return [dict(items[start : start + size]) for start in range(0, len(items), size)]


async def prepare_grades(
    conn: Any, unique: dict[tuple[str, str, int, str], Grade], rules: Rules = DEFAULT_RULES
) -> Prepared:
    """Read the cards (no lock) and work out each after its grades (fsrs, by `rules`)."""
    stamp = driver_time(conn.dialect.name)
    keys = {(g.user_id, g.question_id) for g in unique.values()}
    rows = await _read_cards(conn, keys, lock=False) if keys else {}
    versions = {key: rows[key]["reviews"] if key in rows else 0 for key in keys}
    before = {key: _curve_point(row) for key, row in rows.items()}
    for key in keys - rows.keys():
        rows[key] = _new_row()

    def work_out() -> dict[tuple[str, str, int, str], bool]:
        due: dict[tuple[str, str, int, str], bool] = {}
        for source, grade in sorted(unique.items(), key=lambda item: as_utc(item[1].when)):
            due[source] = _advance(rows[(grade.user_id, grade.question_id)], grade, stamp, rules)
        return due

    # fsrs for a chunk of cards is ~5-10 ms of Python: in a thread, the event loop gets
    # its turn every few ms (the interpreter's switch interval) instead of after all of it.
    due = await asyncio.to_thread(work_out)
    return Prepared(unique, rows, versions, before, due, rules)


async def apply_grades(conn: Any, prepared: Prepared) -> int:
    """Write prepared grades (in the caller's transaction): the log first (only the
    answers not applied before win), then each card as prepared if nobody changed it
    since it was read; a card that changed (or lost an answer to the log), or every card
    when nothing was prepared (`ready` False), is read under lock and worked out here."""
    if not prepared.unique:
        return 0
    insert: Any = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    stamp = driver_time(conn.dialect.name)
    logs = _LOG.c
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
                "reviewed_at": stamp(grade.when),
                "guild_id": grade.guild_id,
            }
            for (kind, ref, user_id, question_id), grade in prepared.unique.items()
        ],
    )
    won_keys = sorted(
        ((r[0], r[1], r[2], r[3]) for r in inserted.all()),
        key=lambda key: as_utc(prepared.unique[key].when),
    )
    won = [prepared.unique[key] for key in won_keys]
    if not won:
        return 0
    due = dict(prepared.due)
    changed = {(g.user_id, g.question_id) for g in won}
    stale = set(changed)
    if prepared.ready:
        lost = {(g.user_id, g.question_id) for g in prepared.unique.values()} - changed
        versions = await _lock_versions(conn, changed)
        # As prepared: every answer of the card won and its card is as it was read.
        stale = {k for k in changed if k in lost or versions.get(k, 0) != prepared.versions[k]}
    rows = {k: prepared.rows[k] for k in changed - stale}
    before = {k: prepared.before.get(k) for k in changed - stale}

    async def work_out(keys: set[tuple[int, str]]) -> set[tuple[int, str]]:
        """Read `keys` under lock and apply the won grades to them; the keys with no card."""
        found = await _read_cards(conn, keys, lock=True)
        for key in keys:
            before[key] = _curve_point(found[key]) if key in found else None
            rows[key] = found.get(key) or _new_row()
        for source in won_keys:
            grade = prepared.unique[source]
            if (grade.user_id, grade.question_id) in keys:
                card = rows[(grade.user_id, grade.question_id)]
                due[source] = _advance(card, grade, stamp, prepared.rules)
        return keys - found.keys()

    missing = await work_out(stale) if stale else set()
    new = {k for k in changed - stale if prepared.versions[k] == 0} | missing
    if new:
        # New cards go in as they are after their grades. A concurrent grader may be
        # creating one of them: the insert waits for it and skips it; such a card is then
        # read (locked) and worked out anew on top of what the other grader wrote.
        result = await conn.execute(
            insert(_CARD).on_conflict_do_nothing().returning(_CARD.c.user_id, _CARD.c.question_id),
            [{"user_id": u, "question_id": q, **_values(rows[(u, q)])} for u, q in sorted(new)],
        )
        created = {(r[0], r[1]) for r in result}
        if new - created:
            assert not await work_out(new - created), "a card another grader created vanished"
        new = created
    updates = [
        {"b_user_id": u, "b_question_id": q, **{f"b_{k}": v for k, v in _values(row).items()}}
        for (u, q), row in rows.items()
        if (u, q) not in new
    ]
    if updates:
        await conn.execute(_UPDATE_CARD, updates)
    # The class recall of every server counting these members follows their cards.
    await apply_card_changes(
        conn, [CardChange(u, q, before.get((u, q)), _reviewed(rows[(u, q)])) for u, q in changed]
    )
    # Learning II: /me's calendar and true retention, the server's weekly fit.
    await count_answers(conn, won, [due[key] for key in won_keys], prepared.rules)
    return len(won)


def _new_row() -> dict[str, Any]:
    return {"card": None, "reviews": 0, "lapses": 0, "open_mistake": False, "last_wrong_at": None}


def _advance(row: dict[str, Any], grade: Grade, stamp: Any, rules: Rules) -> bool:
    """One graded answer applied to a card row (values as the driver takes them);
    whether it reviewed the card when due (`was_due`)."""
    rating = rating_for(grade.correct, grade.seconds)
    stored = Card.from_dict(cast(CardDict, row["card"])) if row["reviews"] else None
    when_due = was_due(
        None if stored is None else stored.due, row["open_mistake"], as_utc(grade.when)
    )
    card = review(stored, rating, grade.when, rules.scheduler)
    row["card"] = card.to_dict()
    row["due"] = stamp(card.due)
    row["last_review"] = stamp(card.last_review)
    row["reviews"] += 1
    if not grade.correct:
        row["lapses"] += 1
        row["last_wrong_at"] = stamp(grade.when)
    row["open_mistake"] = not grade.correct
    return when_due


def _values(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "card": orjson.dumps(row["card"]).decode(),
        "due": row["due"],
        "last_review": row["last_review"],
        "reviews": row["reviews"],
        "lapses": row["lapses"],
        "open_mistake": row["open_mistake"],
        "last_wrong_at": row["last_wrong_at"],
    }


async def _read_cards(
    conn: Any, keys: set[tuple[int, str]], *, lock: bool
) -> dict[tuple[int, str], dict[str, Any]]:
    """The cards of `keys` that exist (locked for update when `lock`, in one lock order
    for every writer), as the driver gives them (card JSON decoded)."""
    cards = _CARD.c
    query = (
        sa_select(
            cards.user_id,
            cards.question_id,
            cards.card,
            cards.reviews,
            cards.lapses,
            cards.open_mistake,
            cards.last_wrong_at,
        )
        .where(
            cards.user_id.in_({user for user, _ in keys}),
            cards.question_id.in_({question for _, question in keys}),
        )
        .order_by(cards.user_id, cards.question_id)
    )
    rows = await conn.execute(query.with_for_update() if lock else query)
    found: dict[tuple[int, str], dict[str, Any]] = {}
    for user_id, question_id, card, reviews, lapses, open_mistake, last_wrong_at in rows:
        if (user_id, question_id) in keys:
            found[(user_id, question_id)] = {
                "card": card if isinstance(card, dict) else orjson.loads(card),
                "reviews": reviews,
                "lapses": lapses,
                "open_mistake": open_mistake,
                "last_wrong_at": last_wrong_at,
            }
    return found


async def _lock_versions(conn: Any, keys: set[tuple[int, str]]) -> dict[tuple[int, str], int]:
    """`reviews` of the cards of `keys` that exist, locked for update (one lock order)."""
    cards = _CARD.c
    rows = await conn.execute(
        sa_select(cards.user_id, cards.question_id, cards.reviews)
        .where(
            cards.user_id.in_({user for user, _ in keys}),
            cards.question_id.in_({question for _, question in keys}),
        )
        .order_by(cards.user_id, cards.question_id)
        .with_for_update()
    )
    return {(u, q): n for u, q, n in rows if (u, q) in keys}


def _reviewed(row: dict[str, Any]) -> tuple[float, float]:
    point = _curve_point(row)
    assert point is not None, "a graded card has been reviewed"
    return point


def _curve_point(row: dict[str, Any]) -> tuple[float, float] | None:
    """(stability, last review in days) of a card row; None for a card not reviewed yet."""
    return curve_point(row["card"], row["reviews"])


# Tables without SQLAlchemy types for the statements of thousands of rows per settle: the
# values are given as the driver takes them (`driver_time`, JSON text), which skips the
# per-value processing that would otherwise cost more than the rows.
_LOG = table(
    ReviewLog.__tablename__,
    *(
        column(name)
        for name in (
            "source",
            "ref",
            "user_id",
            "question_id",
            "rating",
            "correct",
            "reviewed_at",
            "guild_id",
        )
    ),
)
_CARD = table(
    ReviewCard.__tablename__,
    *(
        column(name)
        for name in (
            "user_id",
            "question_id",
            "card",
            "due",
            "last_review",
            "reviews",
            "lapses",
            "open_mistake",
            "last_wrong_at",
        )
    ),
)
_CARD_VALUES = ("card", "due", "last_review", "reviews", "lapses", "open_mistake", "last_wrong_at")
_UPDATE_CARD = (
    update(_CARD)
    .where(
        _CARD.c.user_id == bindparam("b_user_id"),
        _CARD.c.question_id == bindparam("b_question_id"),
    )
    .values({name: bindparam(f"b_{name}") for name in _CARD_VALUES})
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
