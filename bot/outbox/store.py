"""The outbox table: what is owed, the lease that lets one process send an item, and the
recorded outcome. The delivery loop is `bot.outbox.service`."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import case, func, or_, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.database import Database
from bot.db.tables.daily import DailyPost
from bot.db.tables.outbox import Outbox
from bot.outbox.rules import LEASE, Owed


def owe(session: AsyncSession, kind: Owed, post: DailyPost, now: datetime) -> None:
    """Record an announcement in the caller's transaction (commit it with the state change)."""
    assert post.id is not None
    session.add(Outbox(kind=kind.value, guild_id=post.guild_id, post_id=post.id, due_at=now))


def owe_round(
    session: AsyncSession, kind: Owed, guild_id: int, round_id: int, number: int, now: datetime
) -> None:
    """The same for a live round: question `number`'s reveal, or (0) its scoreboard."""
    session.add(
        Outbox(kind=kind.value, guild_id=guild_id, round_id=round_id, number=number, due_at=now)
    )


async def pending(db: Database, guild_id: int, kinds: Collection[str]) -> list[Outbox]:
    """Owed (of these kinds) and not yet delivered (nor refused for good), oldest first."""
    async with db.session() as session:
        query = (
            select(Outbox)
            .where(
                col(Outbox.guild_id) == guild_id,
                col(Outbox.kind).in_(kinds),
                col(Outbox.delivered_at).is_(None),
                col(Outbox.gave_up).is_(None),
            )
            .order_by(col(Outbox.id))
        )
        return list((await session.exec(query)).all())


async def item(db: Database, kind: Owed, post_id: int) -> Outbox | None:
    async with db.session() as session:
        query = select(Outbox).where(col(Outbox.kind) == kind.value, Outbox.post_id == post_id)
        return (await session.exec(query)).first()


async def item_of_round(db: Database, kind: Owed, round_id: int, number: int) -> Outbox | None:
    async with db.session() as session:
        query = select(Outbox).where(
            col(Outbox.kind) == kind.value, Outbox.round_id == round_id, Outbox.number == number
        )
        return (await session.exec(query)).first()


async def get(db: Database, item_id: int) -> Outbox | None:
    async with db.session() as session:
        return await session.get(Outbox, item_id)


async def due_ids(
    db: Database, now: datetime, kinds: Collection[str], limit: int = 500
) -> list[tuple[int, int]]:
    """(item id, guild id) of what may be sent now (of these kinds): due, unclaimed or
    lease expired."""
    async with db.session() as session:
        query = (
            select(Outbox.id, Outbox.guild_id)
            .where(
                col(Outbox.kind).in_(kinds),
                col(Outbox.delivered_at).is_(None),
                col(Outbox.gave_up).is_(None),
                col(Outbox.due_at) <= now,
                or_(col(Outbox.claimed_until).is_(None), col(Outbox.claimed_until) < now),
            )
            .order_by(col(Outbox.due_at))
            .limit(limit)
        )
        return [(int(i), int(g)) for i, g in (await session.exec(query)).all() if i is not None]


async def claim(db: Database, item_id: int, owner: str, now: datetime) -> Outbox | None:
    """Take the lease on a due item; None when it is done, not due, or another's lease holds.

    The returned row's `unsure_since` is set when an earlier attempt's outcome is unknown."""
    async with db.session() as session:
        claimed = await session.exec(
            update(Outbox)
            .where(
                col(Outbox.id) == item_id,
                col(Outbox.delivered_at).is_(None),
                col(Outbox.gave_up).is_(None),
                col(Outbox.due_at) <= now,
                or_(col(Outbox.claimed_until).is_(None), col(Outbox.claimed_until) < now),
            )
            .values(
                claimed_by=owner,
                claimed_at=now,
                claimed_until=now + LEASE,
                # A claim left behind (its process died between sending and recording):
                # that attempt's outcome is unknown. Evaluated on the row's old values.
                unsure_since=case(
                    (
                        col(Outbox.claimed_by).is_not(None),
                        func.coalesce(
                            col(Outbox.unsure_since),
                            col(Outbox.claimed_at),
                            col(Outbox.created_at),
                        ),
                    ),
                    else_=col(Outbox.unsure_since),
                ),
            )
        )
        await session.commit()
        if claimed.rowcount != 1:
            return None
        return await session.get(Outbox, item_id)


async def finish(db: Database, item_id: int, owner: str, **values: object) -> None:
    """Record an outcome of the item this owner holds, and release the lease."""
    async with db.session() as session:
        await session.exec(
            update(Outbox)
            .where(col(Outbox.id) == item_id, col(Outbox.claimed_by) == owner)
            .values(claimed_until=None, **values)
        )
        await session.commit()


async def failed(db: Database, item_id: int, owner: str, **values: object) -> None:
    """Record a failed attempt whose outcome is unknown (Discord may have the message) and
    release the item for a retry: the next attempt looks for the copy first."""
    async with db.session() as session:
        await session.exec(
            update(Outbox)
            .where(col(Outbox.id) == item_id, col(Outbox.claimed_by) == owner)
            .values(
                claimed_until=None,
                claimed_by=None,
                unsure_since=func.coalesce(col(Outbox.unsure_since), col(Outbox.claimed_at)),
                **values,
            )
        )
        await session.commit()


async def make_due(db: Database, item_id: int, now: datetime) -> None:
    """Bring an owed item's next try forward to now (an admin asked for it)."""
    async with db.session() as session:
        await session.exec(
            update(Outbox)
            .where(
                col(Outbox.id) == item_id,
                col(Outbox.delivered_at).is_(None),
                col(Outbox.gave_up).is_(None),
                col(Outbox.due_at) > now,
            )
            .values(due_at=now)
        )
        await session.commit()


async def release_round_claims(session: AsyncSession, round_id: int, owner: str) -> None:
    """In the caller's transaction: what `owner` was sending for a live round when it
    died (another process took the round over once its lease lapsed) may be claimed at
    once instead of when the item's lease lapses; `claim` takes the claim left behind
    for an attempt of unknown outcome, so the next one looks for the copy first."""
    await session.exec(
        update(Outbox)
        .where(
            col(Outbox.round_id) == round_id,
            col(Outbox.claimed_by) == owner,
            col(Outbox.delivered_at).is_(None),
            col(Outbox.gave_up).is_(None),
        )
        .values(claimed_until=None)
    )
