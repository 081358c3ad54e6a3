"""A server's class and its recall per question, kept up to date instead of recounted.

The daily choice needs, per candidate question, the mean retrievability now of the
review cards of the server's active members (`bot.daily.choice_rules`). Reading those
cards is work that grows with the server (270k cards for 10,000 members), so:

- `class_member` holds the server's members who answered a settled daily post within
  the active window; a settle adds its answerers (`join`), not yet `counted`.
- `class_recall` holds, per (server, question), the running sums of
  `bot.learning.recall_rules` over the counted members' cards, and their number, under
  the forgetting curve of the server's memory model (`curves_on`).
- `fold` (before a choice, after a settle) counts new members in (adds their cards'
  terms) and drops members whose last answer left the window (subtracts theirs), in
  transactions of at most FOLD_CHUNK members; the terms come from one SQL aggregate.
- every graded answer that changes a counted member's card replaces that card's terms
  in each of the member's servers, under each server's curve (`apply_card_changes`, from
  `record_grades`, in the grading transaction: applied exactly once with the card).
- a refit that changes a server's curve clears its sums and marks its members not
  counted (`recount`, in the transaction that stores the model); folds count them anew.

So the choice reads one row per question (`bot.daily.choice_store`).

Locks (PostgreSQL): a writer locks cards before sums, and sums in key order; `fold`
takes the server's settle lock, so a settle and a fold of one server never interleave;
a grader holds its servers' memory model rows (FOR SHARE) from before it reads who is
counted until it commits, and `recount` comes after the settle lock and the model row's
update, so a grader adds its terms either before the sums are cleared or not at all.
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
from bot.db.tables.daily import DailyAnswer
from bot.db.tables.learning import MemoryModel
from bot.db.tables.review import ReviewCard
from bot.learning.recall_rules import (
    ACTIVE_DAYS,
    EPOCH,
    SUMS,
    RecallSums,
    add_terms,
    curve_of,
    days,
    difference,
)
from bot.learning.recall_sql import UPDATE_SUMS, review_days, terms_select

# Members counted in or out per transaction: tens of ms of the write lock, which a
# member's write waits for (`Database.priority`) at most once.
FOLD_CHUNK = 25
# Ids per IN list (SQLite binds at most 32766 parameters per statement).
CHUNK = 500

_MEMBER = SQLModel.metadata.tables[ClassMember.__tablename__]
_RECALL = SQLModel.metadata.tables[ClassRecall.__tablename__]
_CARD = SQLModel.metadata.tables[ReviewCard.__tablename__]
_ANSWER = SQLModel.metadata.tables[DailyAnswer.__tablename__]
_MODEL = SQLModel.metadata.tables[MemoryModel.__tablename__]


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


def in_chunks(items: Sequence[Any], size: int = CHUNK) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _as_of(at: float) -> datetime:
    return EPOCH + timedelta(days=at)


async def curves_on(
    conn: AsyncConnection, guilds: Any, *, hold: bool = False
) -> dict[int, RecallSums]:
    """The forgetting curve of each of `guilds` (ids, or a subquery of them) that has a
    memory model row; `SUMS` for the others. `hold`: the rows locked FOR SHARE until the
    commit (PostgreSQL), so no refit changes them meanwhile."""
    query = select(_MODEL.c.guild_id, _MODEL.c.parameters).where(_MODEL.c.guild_id.in_(guilds))
    if hold and conn.dialect.name == "postgresql":
        query = query.with_for_update(read=True)
    return {int(g): curve_of(parameters) for g, parameters in await conn.execute(query)}


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
        # Background work: a member's write goes first (`Database.priority`).
        async with db.priority.background(), db.engine.begin() as conn:
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
    # After the settle lock (and, on SQLite, the first write): no refit changes it now.
    curve = (await curves_on(conn, [guild_id])).get(guild_id, SUMS)
    # Cards before sums (PostgreSQL): a grader holding one of these cards commits first.
    await conn.execute(
        select(_CARD.c.user_id)
        .where(_CARD.c.user_id.in_(everyone))
        .order_by(_CARD.c.user_id, _CARD.c.question_id)
        .with_for_update(read=True)
    )
    latest = (
        await conn.execute(
            select(func.max(review_days(conn.dialect.name))).where(_CARD.c.user_id.in_(everyone))
        )
    ).scalar()
    at = max(days(now), float(latest or 0.0))  # every card's terms at one time
    for users, sign in ((leaving, -1), (sorted(joined), 1)):
        if not users:
            continue
        rows = await conn.execute(
            terms_select(conn.dialect.name, curve), {"users": users, "at": at}
        )
        for question_id, count, *terms in rows:
            n, sums = deltas.setdefault(question_id, (0, curve.zeros()))
            add_terms(sums, [float(t or 0.0) for t in terms], sign)
            deltas[question_id] = (n + sign * int(count), sums)
    if deltas:
        await _add_to_sums(
            conn, {(guild_id, q): d for q, d in deltas.items()}, at, {guild_id: curve}
        )
    return len(gone) + len(joined)


# -- the sums ----------------------------------------------------------------------------


async def _add_to_sums(
    conn: AsyncConnection,
    deltas: Mapping[tuple[int, str], tuple[int, Sequence[float]]],
    at: float,
    curves: Mapping[int, RecallSums],
) -> None:
    """Add (cards, sums at `at`, under the server's curve in `curves`) to each (server,
    question)'s row, creating missing rows."""
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
                    "sums": curves[g].zeros(),
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
        curve = curves[key[0]]
        since = days(row.as_of)
        to = max(since, at)
        sums = curve.moved(row.sums, since, to)
        add_terms(sums, curve.moved(delta, at, to))
        cards = row.cards + count
        out.append(
            {
                "k_guild": key[0],
                "k_question": key[1],
                "cards": cards,
                "sums": [float(x) for x in sums] if cards > 0 else curve.zeros(),
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
    member, under that server's curve (in the grading transaction, after the cards are
    locked)."""
    users = sorted({c.user_id for c in changes})
    guilds: dict[int, list[int]] = defaultdict(list)
    curves: dict[int, RecallSums] = {}
    for chunk in in_chunks(users):
        counted = select(_MEMBER.c.guild_id).where(
            _MEMBER.c.user_id.in_(chunk), _MEMBER.c.counted == true()
        )
        # The curves first, held: a refit's `recount` then waits for this transaction,
        # or has committed and this one reads the members it uncounted.
        curves.update(await curves_on(conn, counted, hold=True))
        rows = await conn.execute(
            select(_MEMBER.c.user_id, _MEMBER.c.guild_id).where(
                _MEMBER.c.user_id.in_(chunk), _MEMBER.c.counted == true()
            )
        )
        for user_id, guild_id in rows:
            guilds[user_id].append(guild_id)
            curves.setdefault(guild_id, SUMS)
    if not guilds:
        return
    at = max(max(c.after[1], c.before[1] if c.before else 0.0) for c in changes)
    counted_changes = [c for c in changes if c.user_id in guilds]
    # Each card's change of terms under each curve in use (most often just one).
    delta_of: dict[tuple[float, int], list[float]] = {}
    for curve in {c.decay: c for c in curves.values()}.values():
        after = curve.terms_many(
            [c.after[0] for c in counted_changes], [c.after[1] for c in counted_changes], at
        )
        for row, change in enumerate(counted_changes):
            delta = after[row]
            if change.before is not None:
                delta = difference(delta, curve.terms(*change.before, at))
            delta_of[(curve.decay, row)] = delta
    deltas: dict[tuple[int, str], tuple[int, list[float]]] = {}
    for row, change in enumerate(counted_changes):
        for guild_id in guilds[change.user_id]:
            key = (guild_id, change.question_id)
            n, sums = deltas.get(key, (0, curves[guild_id].zeros()))
            add_terms(sums, delta_of[(curves[guild_id].decay, row)])
            deltas[key] = (n + (change.before is None), sums)
    await _add_to_sums(conn, deltas, at, curves)


async def recount(conn: AsyncConnection, guild_id: int) -> None:
    """The server's sums cleared and its members marked not counted: its memory model's
    curve changes (in the transaction that stores the model, after the server's settle
    lock and the model row's update). Folds count them in anew under the new curve (the
    fit's own, a settle's or a choice's, the backfill at start)."""
    await conn.execute(
        update(_MEMBER)
        .where(_MEMBER.c.guild_id == guild_id, _MEMBER.c.counted == true())
        .values(counted=False)
    )
    await conn.execute(_RECALL.delete().where(_RECALL.c.guild_id == guild_id))
