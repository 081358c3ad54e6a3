"""A server's class and its recall per question, kept up to date instead of recounted.

The daily choice needs, per candidate question, the mean retrievability now of the
review cards of the server's active members (`bot.daily.choice_rules`). Reading those
cards is work that grows with the server (270k cards for 10,000 members), so:

- `class_member` holds the server's members who answered a settled daily post within
  the active window; a settle adds its answerers (`join`), not yet `counted`.
- `class_recall` holds, per (server, question), the running sums of
  `bot.learning.recall_rules` over the counted members' cards, and their number.
- `fold` (before a choice, after a settle) counts new members in (adds their cards'
  terms) and drops members whose last answer left the window (subtracts theirs), in
  transactions of at most FOLD_CHUNK members; the terms come from one SQL aggregate.
- every graded answer that changes a counted member's card replaces that card's terms
  in each of the member's servers (`apply_card_changes`, from `record_grades`, in the
  grading transaction: applied exactly once with the card).

So the choice reads one row per question. Members who answered only posts still open
(not settled) are added on the fly (`signals`), their cards read directly: bounded by
the open posts' answers, none in the usual order of reveal-then-post.

Locks (PostgreSQL): a writer locks cards before sums, and sums in key order; `fold`
takes the server's settle lock, so a settle and a fold of one server never interleave.
On SQLite every writer holds the database's write lock.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    case,
    exists,
    false,
    func,
    literal,
    select,
    true,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel import SQLModel

from bot.db.database import Database
from bot.db.locks import lock_guild
from bot.db.tables.aggregates import ClassMember, ClassRecall
from bot.db.tables.daily import DailyAnswer, DailyPost
from bot.db.tables.review import ReviewCard
from bot.learning.recall_rules import (
    ACTIVE_DAYS,
    CARDS,
    EPOCH,
    SUMS,
    Signal,
    add_terms,
    days,
    difference,
)
from bot.learning.recall_sql import UPDATE_SUMS, card_stability, greatest, review_days, terms_select

# Members counted in or out per transaction (each a few ms of the write lock).
FOLD_CHUNK = 200
# Ids per IN list (SQLite binds at most 32766 parameters per statement).
CHUNK = 500

_MEMBER = SQLModel.metadata.tables[ClassMember.__tablename__]
_RECALL = SQLModel.metadata.tables[ClassRecall.__tablename__]
_CARD = SQLModel.metadata.tables[ReviewCard.__tablename__]
_ANSWER = SQLModel.metadata.tables[DailyAnswer.__tablename__]
_POST = SQLModel.metadata.tables[DailyPost.__tablename__]


@dataclass(frozen=True)
class CardChange:
    """A card before and after a graded answer: (stability, last review in days), None
    before for a new card."""

    user_id: int
    question_id: str
    before: tuple[float, float] | None
    after: tuple[float, float]


def _insert(conn: AsyncConnection) -> Any:
    return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert


def _chunks(items: Sequence[Any], size: int = CHUNK) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _as_of(at: float) -> datetime:
    return EPOCH + timedelta(days=at)


# -- membership --------------------------------------------------------------------------


async def join(conn: AsyncConnection, guild_id: int, post_id: int) -> None:
    """The post's answerers are (still) in the server's class: one INSERT ... SELECT."""
    answers = select(
        literal(guild_id), _ANSWER.c.user_id, _ANSWER.c.answered_at, literal(False)
    ).where(_ANSWER.c.post_id == post_id)
    statement = _insert(conn)(_MEMBER).from_select(
        ["guild_id", "user_id", "last_answered_at", "counted"], answers
    )
    latest = statement.excluded.last_answered_at
    await conn.execute(
        statement.on_conflict_do_update(
            index_elements=["guild_id", "user_id"],
            set_={
                "last_answered_at": case(
                    (latest > _MEMBER.c.last_answered_at, latest),
                    else_=_MEMBER.c.last_answered_at,
                )
            },
        )
    )


async def fold(db: Database, guild_id: int, now: datetime, within_s: float | None = None) -> int:
    """Count new members in and members gone quiet out; the members changed. With
    `within_s`, no chunk starts after that many seconds, the first excepted (the rest
    waits for the next fold; the sums stand for the members counted so far)."""
    cutoff = now - timedelta(days=ACTIVE_DAYS)
    changed = 0
    deadline = None if within_s is None else time.monotonic() + within_s
    while True:
        async with db.engine.connect() as conn:
            expired = (
                (
                    await conn.execute(
                        select(_MEMBER.c.user_id)
                        .where(_MEMBER.c.guild_id == guild_id, _MEMBER.c.last_answered_at < cutoff)
                        .limit(FOLD_CHUNK)
                    )
                )
                .scalars()
                .all()
            )
            pending = (
                (
                    await conn.execute(
                        select(_MEMBER.c.user_id)
                        .where(_MEMBER.c.guild_id == guild_id, _MEMBER.c.counted == false())
                        .order_by(_MEMBER.c.user_id)
                        .limit(FOLD_CHUNK)
                    )
                )
                .scalars()
                .all()
            )
        if not expired and not pending:
            return changed
        async with db.engine.begin() as conn:
            changed += await _fold_chunk(conn, guild_id, now, cutoff, expired, pending)
        if deadline is not None and time.monotonic() >= deadline:
            return changed


async def _fold_chunk(
    conn: AsyncConnection,
    guild_id: int,
    now: datetime,
    cutoff: datetime,
    expired: Sequence[int],
    pending: Sequence[int],
) -> int:
    # The server's settle lock first (PostgreSQL), then the first statement writes: on
    # SQLite that takes the write lock for the whole chunk (no read goes stale).
    await lock_guild(conn, guild_id)
    gone: Sequence[Any] = []
    if expired:
        gone = (
            await conn.execute(
                _MEMBER.delete()
                .where(
                    _MEMBER.c.guild_id == guild_id,
                    _MEMBER.c.user_id.in_(expired),
                    _MEMBER.c.last_answered_at < cutoff,
                )
                .returning(_MEMBER.c.user_id, _MEMBER.c.counted)
            )
        ).all()
    joined: Sequence[int] = []
    if pending:
        joined = (
            (
                await conn.execute(
                    update(_MEMBER)
                    .where(
                        _MEMBER.c.guild_id == guild_id,
                        _MEMBER.c.user_id.in_(pending),
                        _MEMBER.c.counted == false(),
                    )
                    .values(counted=True)
                    .returning(_MEMBER.c.user_id)
                )
            )
            .scalars()
            .all()
        )
    leaving = sorted(user for user, counted in gone if counted)
    everyone = sorted({*leaving, *joined})
    deltas: dict[str, tuple[int, list[float]]] = {}
    if not everyone:
        return len(gone) + len(joined)
    # Cards before sums (PostgreSQL): a grader holding one of these cards commits first.
    await conn.execute(
        select(_CARD.c.user_id)
        .where(_CARD.c.user_id.in_(everyone))
        .order_by(_CARD.c.user_id, _CARD.c.question_id)
        .with_for_update(read=True)
    )
    latest = (
        await conn.execute(select(func.max(review_days(conn))).where(_CARD.c.user_id.in_(everyone)))
    ).scalar()
    at = max(days(now), float(latest or 0.0))  # every card's terms at one time
    for users, sign in ((leaving, -1), (sorted(joined), 1)):
        if not users:
            continue
        rows = await conn.execute(terms_select(conn), {"users": users, "at": at})
        for question_id, count, *terms in rows:
            n, sums = deltas.setdefault(question_id, (0, SUMS.zeros()))
            add_terms(sums, [float(t or 0.0) for t in terms], sign)
            deltas[question_id] = (n + sign * int(count), sums)
    if deltas:
        await _add_to_sums(conn, {(guild_id, q): d for q, d in deltas.items()}, at)
    return len(gone) + len(joined)


# -- the sums ----------------------------------------------------------------------------


async def _add_to_sums(
    conn: AsyncConnection, deltas: Mapping[tuple[int, str], tuple[int, Sequence[float]]], at: float
) -> None:
    """Add (cards, sums at `at`) to each (server, question)'s row, creating missing rows."""
    keys = sorted(deltas)
    rows = await _lock_sums(conn, keys)
    missing = [key for key in keys if key not in rows]
    if missing:  # created empty (a concurrent creator's row wins), then locked
        await conn.execute(
            _insert(conn)(_RECALL).on_conflict_do_nothing(),
            [
                {
                    "guild_id": g,
                    "question_id": q,
                    "cards": 0,
                    "sums": SUMS.zeros(),
                    "as_of": _as_of(at),
                }
                for g, q in missing
            ],
        )
        rows.update(await _lock_sums(conn, missing))
    out = []
    for key in keys:
        row = rows[key]
        count, delta = deltas[key]
        since = days(row.as_of)
        to = max(since, at)
        sums = SUMS.moved(row.sums, since, to)
        add_terms(sums, SUMS.moved(delta, at, to))
        cards = row.cards + count
        out.append(
            {
                "k_guild": key[0],
                "k_question": key[1],
                "cards": cards,
                "sums": [float(x) for x in sums] if cards > 0 else SUMS.zeros(),
                "as_of": _as_of(to),
            }
        )
    if out:
        await conn.execute(UPDATE_SUMS, out)


async def _lock_sums(conn: AsyncConnection, keys: Sequence[tuple[int, str]]) -> dict[Any, Any]:
    """The rows of `keys` that exist, locked for update in key order."""
    found = await conn.execute(
        select(_RECALL)
        .where(
            _RECALL.c.guild_id.in_({g for g, _ in keys}),
            _RECALL.c.question_id.in_({q for _, q in keys}),
        )
        .order_by(_RECALL.c.guild_id, _RECALL.c.question_id)
        .with_for_update()
    )
    wanted = set(keys)
    return {(r.guild_id, r.question_id): r for r in found if (r.guild_id, r.question_id) in wanted}


async def apply_card_changes(conn: AsyncConnection, changes: Sequence[CardChange]) -> None:
    """Replace each changed card's terms in the sums of every server that counts its
    member (in the grading transaction, after the cards are locked)."""
    users = sorted({c.user_id for c in changes})
    guilds: dict[int, list[int]] = defaultdict(list)
    for chunk in _chunks(users):
        rows = await conn.execute(
            select(_MEMBER.c.user_id, _MEMBER.c.guild_id).where(
                _MEMBER.c.user_id.in_(chunk), _MEMBER.c.counted == true()
            )
        )
        for user_id, guild_id in rows:
            guilds[user_id].append(guild_id)
    if not guilds:
        return
    at = max(max(c.after[1], c.before[1] if c.before else 0.0) for c in changes)
    counted = [c for c in changes if c.user_id in guilds]
    after = SUMS.terms_many([c.after[0] for c in counted], [c.after[1] for c in counted], at)
    old = [c for c in counted if c.before is not None]
    before = SUMS.terms_many(
        [c.before[0] for c in old if c.before], [c.before[1] for c in old if c.before], at
    )
    where_old = {id(c): row for row, c in enumerate(old)}
    deltas: dict[tuple[int, str], tuple[int, list[float]]] = {}
    for row, change in enumerate(counted):
        delta = (
            difference(after[row], before[where_old[id(change)]])
            if id(change) in where_old
            else after[row]
        )
        for guild_id in guilds[change.user_id]:
            key = (guild_id, change.question_id)
            n, sums = deltas.get(key, (0, SUMS.zeros()))
            add_terms(sums, delta)
            deltas[key] = (n + (change.before is None), sums)
    await _add_to_sums(conn, deltas, at)


# -- what the choice reads -----------------------------------------------------------------


async def signals(
    conn: AsyncConnection, guild_id: int, questions: Sequence[str], now: datetime
) -> tuple[int, dict[str, Signal], Any]:
    """(active members, their recall per question with cards, the active members as a
    subquery of user ids) for the choice, after `fold`."""
    cutoff = now - timedelta(days=ACTIVE_DAYS)
    counted = select(_MEMBER.c.user_id).where(
        _MEMBER.c.guild_id == guild_id, _MEMBER.c.last_answered_at >= cutoff
    )
    # Members whose only recent answers are on posts not settled yet.
    extra = (
        select(_ANSWER.c.user_id)
        .join(_POST, _POST.c.id == _ANSWER.c.post_id)
        .where(
            _POST.c.guild_id == guild_id,
            _POST.c.settled == false(),
            _ANSWER.c.answered_at >= cutoff,
            ~exists().where(_MEMBER.c.guild_id == guild_id, _MEMBER.c.user_id == _ANSWER.c.user_id),
        )
        .distinct()
    )
    members = (
        await conn.execute(select(func.count()).select_from(counted.subquery()))
    ).scalar_one()
    members += (await conn.execute(select(func.count()).select_from(extra.subquery()))).scalar_one()
    found: dict[str, Signal] = {}
    if not members or not questions:
        return members, found, counted.union(extra)
    at = days(now)
    totals: dict[str, tuple[int, float]] = {}
    for chunk in _chunks(list(questions)):
        rows = await conn.execute(
            select(_RECALL.c.question_id, _RECALL.c.cards, _RECALL.c.sums, _RECALL.c.as_of).where(
                _RECALL.c.guild_id == guild_id,
                _RECALL.c.question_id.in_(chunk),
                _RECALL.c.cards > 0,
            )
        )
        for question_id, cards, sums, as_of in rows:
            mean = SUMS.mean(sums, cards, days(as_of), at)
            totals[question_id] = (cards, mean * cards)
        stability = card_stability()
        elapsed = greatest(conn, literal(0.0), literal(at) - review_days(conn))
        recall = func.power(1.0 + literal(SUMS.factor) * elapsed / stability, SUMS.decay)
        extra_rows = await conn.execute(
            select(_CARD.c.question_id, func.count(), func.sum(recall))
            .where(_CARD.c.user_id.in_(extra), _CARD.c.question_id.in_(chunk))
            .group_by(_CARD.c.question_id)
        )
        for question_id, count, total in extra_rows:
            n, s = totals.get(question_id, (0, 0.0))
            totals[question_id] = (n + int(count), s + float(total or 0.0))
    for question_id, (n, total) in totals.items():
        if n > 0:
            found[question_id] = Signal(min(1.0, max(0.0, total / n)), CARDS, n)
    return members, found, counted.union(extra)
