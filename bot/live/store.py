"""Live rounds in the database: creating a round, the driver's lease, each question's
opening and closing (with the members' review cards and the reveal owed in the same
transaction), the round's end, joining, and the reads behind reveals and scoreboards.

Every time that matters is the database's (`db_now`), read in the transaction that
decides. Every change is a conditional UPDATE on the state it was decided against, so
two processes (or a process and its restarted self) cannot both make it. The answers
themselves are written in batches by `bot.live.answers_store`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func, or_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.clock import db_now
from bot.db.database import Database
from bot.db.tables.live import LiveConfig, LivePlayer, LiveQuestion, LiveRound
from bot.learning.review_rules import Source
from bot.live.rules import ACTIVE, LOBBY_S, QuestionStatus, Status

LIVE = "live"  # the review log's source of live answers
SCOREBOARD = 0  # the outbox's `number` of a round's scoreboard
_ACTIVE = [s.value for s in ACTIVE]


def source_of(round_id: int, number: int) -> Source:
    return Source(LIVE, f"{round_id}:{number}")


def _insert(session: AsyncSession) -> Any:
    conn = session.bind
    name = conn.dialect.name if conn is not None else "sqlite"
    return postgresql.insert if name == "postgresql" else sqlite.insert


# -- creating a round -----------------------------------------------------------------


async def running_in(db: Database, channel_id: int) -> LiveRound | None:
    """The round running in a channel, or in the thread `channel_id` is."""
    async with db.session() as session:
        query = select(LiveRound).where(
            col(LiveRound.status).in_(_ACTIVE),
            or_(col(LiveRound.channel_id) == channel_id, col(LiveRound.thread_id) == channel_id),
        )
        return (await session.exec(query)).first()


async def create(db: Database, row: LiveRound, max_rounds: int) -> LiveRound | None:
    """Store a new round in the first free slot of its server; None when its channel has
    a running round or the server has `max_rounds` (the partial UNIQUE indexes decide)."""
    async with db.session() as session:
        now = await db_now(session)
        values = row.model_dump(exclude={"id", "slot", "created_at"})
        for slot in range(1, max_rounds + 1):
            inserted = await session.exec(
                _insert(session)(LiveRound)
                .values(**values, slot=slot, created_at=now)
                .on_conflict_do_nothing()
                .returning(col(LiveRound.id))
            )
            new_id = inserted.scalar_one_or_none()
            if new_id is not None:
                await session.commit()
                return await session.get(LiveRound, new_id)
        await session.rollback()
    return None


async def place(db: Database, round_id: int, thread_id: int, in_thread: bool) -> bool:
    """Where the round plays (its thread, or the channel itself), recorded before the lobby
    is posted there: a press on the lobby finds its round at once."""
    async with db.session() as session:
        done = await session.exec(
            update(LiveRound)
            .where(col(LiveRound.id) == round_id, col(LiveRound.status) == Status.SETUP)
            .values(thread_id=thread_id, in_thread=in_thread)
        )
        await session.commit()
        return bool(done.rowcount)


async def set_up(db: Database, round_id: int, lobby_message_id: int) -> LiveRound | None:
    """The lobby is out: its minute starts, unless the host pressed Start already (None:
    too late, the round was given up)."""
    async with db.session() as session:
        now = await db_now(session)
        done = await session.exec(
            update(LiveRound)
            .where(col(LiveRound.id) == round_id, col(LiveRound.status) == Status.SETUP)
            .values(
                status=Status.LOBBY,
                lobby_message_id=lobby_message_id,
                next_at=func.coalesce(col(LiveRound.next_at), now + timedelta(seconds=LOBBY_S)),
            )
        )
        await session.commit()
        return await session.get(LiveRound, round_id) if done.rowcount else None


async def get(db: Database, round_id: int) -> LiveRound | None:
    async with db.session() as session:
        return await session.get(LiveRound, round_id)


async def config_locale(db: Database, guild_id: int) -> str | None:
    async with db.session() as session:
        config = await session.get(LiveConfig, guild_id)
        return None if config is None else config.locale


async def set_config_locale(db: Database, guild_id: int, locale: str | None) -> None:
    async with db.session() as session:
        now = await db_now(session)
        await session.exec(
            _insert(session)(LiveConfig)
            .values(guild_id=guild_id, locale=locale, updated_at=now)
            .on_conflict_do_update(
                index_elements=["guild_id"], set_={"locale": locale, "updated_at": now}
            )
        )
        await session.commit()


async def request_stop(db: Database, round_id: int) -> bool:
    """The host's /quiz live stop: the driver ends the round at its next step."""
    async with db.session() as session:
        done = await session.exec(
            update(LiveRound)
            .where(col(LiveRound.id) == round_id, col(LiveRound.status).in_(_ACTIVE))
            .values(stop_requested=True)
        )
        await session.commit()
        return bool(done.rowcount)


async def start_now(db: Database, round_id: int) -> bool:
    """The host's Start: the lobby ends now (pressed while it is being set up: as soon as
    it is)."""
    async with db.session() as session:
        now = await db_now(session)
        done = await session.exec(
            update(LiveRound)
            .where(
                col(LiveRound.id) == round_id,
                col(LiveRound.status).in_([Status.SETUP, Status.LOBBY]),
            )
            .values(next_at=now)
        )
        await session.commit()
        return bool(done.rowcount)


async def skip(db: Database, round_id: int, number: int) -> bool:
    """The host's Skip: question `number`'s time is up now (by the database's clock)."""
    async with db.session() as session:
        now = await db_now(session)
        done = await session.exec(
            update(LiveQuestion)
            .where(
                col(LiveQuestion.round_id) == round_id,
                col(LiveQuestion.number) == number,
                col(LiveQuestion.status) == QuestionStatus.OPEN,
                col(LiveQuestion.closes_at) > now,
            )
            .values(closes_at=now)
        )
        await session.commit()
        return bool(done.rowcount)


async def join(db: Database, round_id: int, user_id: int) -> bool:
    """True when the member joined now (False: joined before)."""
    async with db.session() as session:
        now = await db_now(session)
        inserted = await session.exec(
            _insert(session)(LivePlayer)
            .values(round_id=round_id, user_id=user_id, joined_at=now)
            .on_conflict_do_nothing()
            .returning(col(LivePlayer.user_id))
        )
        new = inserted.scalar_one_or_none() is not None
        await session.commit()
        return new
