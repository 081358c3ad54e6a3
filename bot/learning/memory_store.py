"""Each server's memory model in the database: the rules its answers are applied with, the
review log a fit reads, the fit's figures, and the cards replayed when new parameters are
adopted (`bot.learning.memory_rules` has the rules; `bot.cli.memory` runs a fit)."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel import SQLModel

from bot.common.schedule import parse_timezone
from bot.common.times import as_utc
from bot.db.database import Database
from bot.db.locks import lock_guild
from bot.db.retry import retry_transient
from bot.db.tables.daily import GuildDailyConfig
from bot.db.tables.learning import MemoryModel
from bot.db.tables.review import ReviewCard, ReviewLog
from bot.learning.memory_rules import DEFAULT_RULES, FITTED, NOT_BETTER, Rules, replay, rules_of
from bot.learning.recall_rules import curve_of, curve_point
from bot.learning.recall_store import CardChange, apply_card_changes, recount
from bot.learning.replay_sql import UPDATE_CARD

_MODEL = SQLModel.metadata.tables[MemoryModel.__tablename__]
_CONFIG = SQLModel.metadata.tables[GuildDailyConfig.__tablename__]
_LOG = SQLModel.metadata.tables[ReviewLog.__tablename__]
_CARD = SQLModel.metadata.tables[ReviewCard.__tablename__]
# A fit holds its server for at most this long (a process that died frees it then).
FIT_LEASE = timedelta(minutes=30)
# A fit reads at most this many of the server's latest reviews.
FIT_READ_LIMIT = 100_000
# Cards are replayed this many members at a time, one transaction each.
RESCHEDULE_USERS = 200


def _zone(name: str | None) -> ZoneInfo | None:
    try:
        return parse_timezone(name) if name else None
    except Exception:
        return None


async def rules_on(conn: AsyncConnection, guild_id: int | None) -> Rules:
    """The rules this server's answers are applied with (two primary-key reads)."""
    if guild_id is None:
        return DEFAULT_RULES
    config = (
        await conn.execute(
            select(_CONFIG.c.timezone, _CONFIG.c.retention).where(_CONFIG.c.guild_id == guild_id)
        )
    ).first()
    parameters = (
        await conn.execute(select(_MODEL.c.parameters).where(_MODEL.c.guild_id == guild_id))
    ).scalar()
    if config is None and parameters is None:
        return DEFAULT_RULES
    return rules_of(
        parameters,
        config.retention if config else None,
        _zone(config.timezone) if config else None,
    )


async def rules_for(db: Database, guild_id: int | None) -> Rules:
    async with db.session() as session:
        return await rules_on(await session.connection(), guild_id)


async def model(db: Database, guild_id: int) -> MemoryModel | None:
    async with db.session() as session:
        return await session.get(MemoryModel, guild_id)


async def due_for_fit(db: Database, now: datetime, limit: int = 20) -> list[int]:
    """Servers whose weekly fit is due and not running elsewhere, the most overdue first."""
    async with db.session() as session:
        conn = await session.connection()
        rows = await conn.execute(
            select(_MODEL.c.guild_id)
            .where(
                _MODEL.c.next_fit_at <= now,
                or_(_MODEL.c.claimed_until.is_(None), _MODEL.c.claimed_until < now),
            )
            .order_by(_MODEL.c.next_fit_at)
            .limit(limit)
        )
        return [int(g) for (g,) in rows]


async def claim_fit(db: Database, guild_id: int, now: datetime) -> bool:
    """Take the server's fit lease (creating its row); False when another holds it."""
    async with db.session() as session:
        conn = await session.connection()
        if (
            await conn.execute(select(_MODEL.c.guild_id).where(_MODEL.c.guild_id == guild_id))
        ).first() is None:
            await conn.execute(_MODEL.insert().values(guild_id=guild_id, next_fit_at=now))
        claimed = await conn.execute(
            update(_MODEL)
            .where(
                _MODEL.c.guild_id == guild_id,
                or_(_MODEL.c.claimed_until.is_(None), _MODEL.c.claimed_until < now),
            )
            .values(claimed_until=now + FIT_LEASE)
        )
        await session.commit()
    return claimed.rowcount == 1


async def release_fit(db: Database, guild_id: int, next_fit_at: datetime | None = None) -> None:
    values: dict[str, Any] = {"claimed_until": None}
    if next_fit_at is not None:
        values["next_fit_at"] = next_fit_at
    async with db.session() as session:
        await session.exec(update(_MODEL).where(_MODEL.c.guild_id == guild_id).values(**values))
        await session.commit()


async def review_count(db: Database, guild_id: int, at_most: int) -> int:
    """The server's reviews, counted up to `at_most` (an index range, bounded)."""
    async with db.session() as session:
        conn = await session.connection()
        inner = select(_LOG.c.id).where(_LOG.c.guild_id == guild_id).limit(at_most).subquery()
        return int((await conn.execute(select(func.count()).select_from(inner))).scalar() or 0)


async def reviews_for_fit(
    db: Database, guild_id: int, limit: int = FIT_READ_LIMIT
) -> list[tuple[int, str, int, datetime]]:
    """(member, question, rating, when) of the server's latest `limit` reviews, oldest first."""
    async with db.session() as session:
        conn = await session.connection()
        rows = await conn.execute(
            select(_LOG.c.user_id, _LOG.c.question_id, _LOG.c.rating, _LOG.c.reviewed_at)
            .where(_LOG.c.guild_id == guild_id)
            .order_by(_LOG.c.reviewed_at.desc(), _LOG.c.id.desc())
            .limit(limit)
        )
        found = [(int(u), str(q), int(r), as_utc(w)) for u, q, r, w in rows]
    found.reverse()
    return found


async def save_fit(
    db: Database, guild_id: int, result: dict[str, Any], now: datetime, next_fit_at: datetime
) -> bool:
    """Store a fit's figures and its parameters when it beat the defaults (the defaults
    again when it did not); release the lease. True when new parameters were adopted. Parameters of another forgetting curve
    (decay) than the ones they replace have the server's class recall counted anew
    (`bot.learning.recall_store.recount`), in the same transaction."""
    counts = result.get("counts") or {}
    metrics = result.get("metrics") or {}
    base, fitted = metrics.get("default") or {}, metrics.get("fitted") or {}
    values: dict[str, Any] = {
        "decision": result["decision"],
        "reason": str(result.get("reason") or "")[:300],
        "candidate": result.get("candidate_parameters"),
        "reviews": int(counts.get("reviews", 0)),
        "members": int(counts.get("members", 0)),
        "held_out": int(counts.get("held_out_scored", 0)),
        "log_loss_default": base.get("log_loss"),
        "log_loss_fitted": fitted.get("log_loss"),
        "rmse_default": base.get("rmse_bins"),
        "rmse_fitted": fitted.get("rmse_bins"),
        "fit_seconds": (result.get("seconds") or {}).get("total"),
        "fitted_at": now,
        "next_fit_at": next_fit_at,
        "claimed_until": None,
    }
    adopted = result["decision"] == FITTED and result.get("parameters") is not None
    # The latest fit decides: one that no longer beats the defaults puts them back.
    decides = adopted or result["decision"] == NOT_BETTER
    if adopted:
        values.update(parameters=list(result["parameters"]), adopted_at=now)
    elif decides:
        values.update(parameters=None, adopted_at=None)
    async with db.session() as session:
        conn = await session.connection()
        old = None
        if decides:  # after the settle lock: no fold of this server runs meanwhile
            await lock_guild(conn, guild_id)
            old = (
                await conn.execute(select(_MODEL.c.parameters).where(_MODEL.c.guild_id == guild_id))
            ).scalar()
        await conn.execute(update(_MODEL).where(_MODEL.c.guild_id == guild_id).values(**values))
        if decides and curve_of(old).decay != curve_of(values["parameters"]).decay:
            await recount(conn, guild_id)
        await session.commit()
    return adopted


async def set_rescheduled(db: Database, guild_id: int, cards: int) -> None:
    async with db.session() as session:
        await session.exec(
            update(_MODEL).where(_MODEL.c.guild_id == guild_id).values(rescheduled=cards)
        )
        await session.commit()


async def members_of(db: Database, guild_id: int) -> list[int]:
    """Every member with a review in this server (one pass over its rows)."""
    async with db.session() as session:
        conn = await session.connection()
        rows = await conn.execute(
            select(_LOG.c.user_id).where(_LOG.c.guild_id == guild_id).distinct()
        )
        return sorted(int(u) for (u,) in rows)


async def _reschedule_batch(db: Database, guild_id: int, users: Sequence[int]) -> int:
    """Replay, with the server's rules now, every card of these members whose latest
    answer was given in this server; one transaction, the cards locked first (a grade
    applied meanwhile waits, then applies to the replayed card)."""
    async with db.session() as session:
        conn = await session.connection()
        rules = await rules_on(conn, guild_id)
        locked = select(_CARD.c.user_id, _CARD.c.question_id, _CARD.c.card, _CARD.c.reviews).where(
            _CARD.c.user_id.in_(users)
        )
        if conn.dialect.name == "postgresql":
            locked = locked.with_for_update()
        before = {
            (int(u), str(q)): curve_point(card, reviews)
            for u, q, card, reviews in await conn.execute(locked)
        }
        rows = await conn.execute(
            select(
                _LOG.c.user_id,
                _LOG.c.question_id,
                _LOG.c.rating,
                _LOG.c.correct,
                _LOG.c.reviewed_at,
                _LOG.c.guild_id,
            )
            .where(_LOG.c.user_id.in_(users))
            .order_by(_LOG.c.user_id, _LOG.c.question_id, _LOG.c.reviewed_at, _LOG.c.id)
        )
        histories: dict[tuple[int, str], list[Any]] = {}
        for row in rows:
            histories.setdefault((int(row[0]), str(row[1])), []).append(row)
        changed = []
        moved = []  # the class recall's sums follow the replayed cards
        for (user_id, question_id), history in histories.items():
            if history[-1][5] != guild_id:
                continue  # scheduled by another server's answer
            card = replay([(r[2], bool(r[3]), as_utc(r[4])) for r in history], rules.scheduler)
            changed.append(
                {
                    "b_user_id": user_id,
                    "b_question_id": question_id,
                    "card": card.card,
                    "due": card.due,
                    "last_review": card.last_review,
                    "reviews": card.reviews,
                    "lapses": card.lapses,
                    "open_mistake": card.open_mistake,
                    "last_wrong_at": card.last_wrong_at,
                }
            )
            after = curve_point(card.card, card.reviews)
            if after is not None:
                moved.append(
                    CardChange(user_id, question_id, before.get((user_id, question_id)), after)
                )
        if changed:
            await conn.execute(UPDATE_CARD, changed)
            await apply_card_changes(conn, moved)
        await session.commit()
    return len(changed)


async def reschedule(db: Database, guild_id: int) -> int:
    """Replay the cards this server schedules with its current rules; the cards replayed."""
    users = await members_of(db, guild_id)
    done = 0
    for start in range(0, len(users), RESCHEDULE_USERS):
        batch = users[start : start + RESCHEDULE_USERS]

        def step(batch: list[int] = batch) -> Awaitable[int]:
            return _reschedule_batch(db, guild_id, batch)

        done += await retry_transient(step, "replaying review cards")
    return done


async def class_cards(
    db: Database, guild_id: int, since: datetime, limit: int
) -> list[dict[str, Any]]:
    """The stored cards the class reviewed in this server since `since` (at most `limit`)."""
    recent = (
        select(_LOG.c.user_id, _LOG.c.question_id)
        .where(_LOG.c.guild_id == guild_id, _LOG.c.reviewed_at >= since)
        .distinct()
        .limit(limit)
        .subquery()
    )
    async with db.session() as session:
        conn = await session.connection()
        rows = await conn.execute(
            select(_CARD.c.card).join(
                recent,
                (_CARD.c.user_id == recent.c.user_id)
                & (_CARD.c.question_id == recent.c.question_id),
            )
        )
        return [dict(card) for (card,) in rows]
