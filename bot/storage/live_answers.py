"""Live answers, written in batches: a thousand members pressing within seconds cost a
few transactions, not a thousand.

One writer task drains a queue and writes whatever has gathered in ONE transaction, then
resolves each press's future: a press is acknowledged only after its answer is
committed (or refused). Per question in the batch, the transaction first takes the
question's row (`UPDATE ... RETURNING`: PostgreSQL's row lock, SQLite's write lock), so
a concurrent close either sees these answers or this batch sees the question closed;
then it reads the database's clock, refuses what comes after the deadline, and inserts
the answers with `ON CONFLICT DO NOTHING RETURNING`: a member's first answer counts,
whichever process or batch it came through. The question's count and the players
(answering also joins) change in the same transaction.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sqlalchemy import update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, select

from bot.core.live import QuestionStatus, points
from bot.storage.database import Database
from bot.storage.dbclock import db_now
from bot.storage.models import LiveAnswer, LivePlayer, LiveQuestion
from bot.storage.retry import retry_transient

log = logging.getLogger(__name__)

MAX_BATCH = 2000
ROWS_PER_STATEMENT = 500  # 9 values a row: well inside SQLite's 32,766 parameters


class Outcome(StrEnum):
    COUNTED = "counted"  # this press is the member's answer
    REPEAT = "repeat"  # the member had answered: the first answer counts
    CLOSED = "closed"  # the question is closed (or was never opened)
    LATE = "late"  # after the deadline, by the database's clock
    NOT_OPEN = "not_open"  # its message is still being sent


@dataclass(frozen=True)
class Recorded:
    outcome: Outcome
    position: int | None = None  # the answer that counts (COUNTED, REPEAT)
    answered: int = 0  # the question's answers after this batch


@dataclass
class LivePending:
    round_id: int
    number: int
    user_id: int
    position: int  # as displayed
    choice: int  # as written
    correct: bool
    seconds: int  # the question's time
    future: asyncio.Future[Recorded] = field(repr=False)


class WriterClosed(RuntimeError):
    pass


Committed = Callable[[int, int, int], None]  # (round id, number, answered) after a commit


class LiveAnswerWriter:
    """`recorded = await writer.submit(...)`; `on_commit` hears of every batch written."""

    def __init__(self, db: Database, on_commit: Committed | None = None) -> None:
        self._db = db
        self.on_commit = on_commit
        self._queue: asyncio.Queue[LivePending | asyncio.Future[None] | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self.transactions = 0  # statistics (tests, benchmarks)
        self.rows = 0

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="live-answer-writer")

    def submit(
        self,
        round_id: int,
        number: int,
        user_id: int,
        position: int,
        choice: int,
        correct: bool,
        seconds: int,
    ) -> asyncio.Future[Recorded]:
        if self._task is None or self._closing:
            raise WriterClosed("the live answer writer is not running")
        future: asyncio.Future[Recorded] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(
            LivePending(round_id, number, user_id, position, choice, correct, seconds, future)
        )
        return future

    async def flush(self) -> None:
        """Until every answer queued before this call is written."""
        if self._task is None:
            return
        marker: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(marker)
        await marker

    async def close(self) -> None:
        if self._task is None:
            return
        self._closing = True
        self._queue.put_nowait(None)
        await self._task
        self._task = None

    async def _run(self) -> None:
        stopping = False
        while not stopping:
            batch: list[LivePending] = []
            markers: list[asyncio.Future[None]] = []
            item = await self._queue.get()
            while True:
                if item is None:
                    stopping = True
                elif isinstance(item, LivePending):
                    batch.append(item)
                else:
                    markers.append(item)
                if stopping or markers or len(batch) >= MAX_BATCH or self._queue.empty():
                    break
                item = self._queue.get_nowait()
            if batch:
                await self._write(batch)
            for marker in markers:
                if not marker.done():
                    marker.set_result(None)

    async def _write(self, batch: list[LivePending]) -> None:
        self.transactions += 1
        self.rows += len(batch)
        try:
            results, counts = await retry_transient(
                lambda: self._transaction(batch), "writing live answers"
            )
        except Exception as exc:  # one bad batch must not kill the writer
            log.exception("writing %d live answers failed", len(batch))
            for pending in batch:
                if not pending.future.done():
                    pending.future.set_exception(exc)
            return
        for pending, recorded in zip(batch, results, strict=True):
            if not pending.future.done():
                pending.future.set_result(recorded)
        if self.on_commit is not None:
            for (round_id, number), answered in counts.items():
                try:
                    self.on_commit(round_id, number, answered)
                except Exception:
                    log.exception("a live answer listener failed")

    async def _transaction(
        self, batch: list[LivePending]
    ) -> tuple[list[Recorded], dict[tuple[int, int], int]]:
        groups: dict[tuple[int, int], list[LivePending]] = {}
        for pending in batch:
            groups.setdefault((pending.round_id, pending.number), []).append(pending)
        decided: dict[int, Recorded] = {}  # id(pending) -> outcome
        counts: dict[tuple[int, int], int] = {}
        async with self._db.session() as session:
            conn = await session.connection()
            insert: Any = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
            now = None
            for (round_id, number), items in groups.items():
                taken = await session.exec(
                    update(LiveQuestion)
                    .where(
                        col(LiveQuestion.round_id) == round_id,
                        col(LiveQuestion.number) == number,
                        col(LiveQuestion.status) != QuestionStatus.CLOSED,
                    )
                    .values(answered=col(LiveQuestion.answered))
                    .returning(
                        col(LiveQuestion.status),
                        col(LiveQuestion.opened_at),
                        col(LiveQuestion.closes_at),
                        col(LiveQuestion.answered),
                    )
                )
                row = taken.first()
                if now is None:
                    now = await db_now(session)  # after the first lock: no earlier
                if row is None:
                    refused = Recorded(Outcome.CLOSED)
                elif row[0] != QuestionStatus.OPEN or row[1] is None or row[2] is None:
                    refused = Recorded(Outcome.NOT_OPEN, answered=int(row[3]))
                elif now >= row[2]:
                    refused = Recorded(Outcome.LATE, answered=int(row[3]))
                else:
                    counts[(round_id, number)] = await self._insert(
                        session, insert, items, row[1], now, int(row[3]), decided
                    )
                    continue
                for pending in items:
                    decided[id(pending)] = refused
            await session.commit()
        return [decided[id(p)] for p in batch], counts

    async def _insert(
        self,
        session: Any,
        insert: Any,
        items: list[LivePending],
        opened_at: Any,
        now: Any,
        answered: int,
        decided: dict[int, Recorded],
    ) -> int:
        """Insert the first press of each member; the question's count afterwards."""
        conn = await session.connection()
        first: dict[int, LivePending] = {}
        for pending in items:
            first.setdefault(pending.user_id, pending)
        ms = max(0, int((now - opened_at).total_seconds() * 1000))
        rows = [
            {
                "round_id": p.round_id,
                "number": p.number,
                "user_id": p.user_id,
                "position": p.position,
                "choice": p.choice,
                "correct": p.correct,
                "answered_at": now,
                "ms": ms,
                "points": points(p.correct, ms / 1000, p.seconds),
            }
            for p in first.values()
        ]
        inserted: set[int] = set()
        for start in range(0, len(rows), ROWS_PER_STATEMENT):
            chunk = rows[start : start + ROWS_PER_STATEMENT]
            result = await conn.execute(
                insert(LiveAnswer)
                .values(chunk)
                .on_conflict_do_nothing()
                .returning(col(LiveAnswer.user_id))
            )
            inserted.update(int(u) for (u,) in result.all())
        any_item = items[0]
        if inserted:
            count = await session.exec(
                update(LiveQuestion)
                .where(
                    col(LiveQuestion.round_id) == any_item.round_id,
                    col(LiveQuestion.number) == any_item.number,
                )
                .values(answered=col(LiveQuestion.answered) + len(inserted))
                .returning(col(LiveQuestion.answered))
            )
            answered = int(count.scalar_one())
            players = [
                {"round_id": any_item.round_id, "user_id": u, "joined_at": now} for u in inserted
            ]
            for start in range(0, len(players), ROWS_PER_STATEMENT):
                await conn.execute(
                    insert(LivePlayer)
                    .values(players[start : start + ROWS_PER_STATEMENT])
                    .on_conflict_do_nothing()
                )
        repeats = [u for u in first if u not in inserted]
        earlier = (
            await _first_positions_in(session, any_item.round_id, any_item.number, repeats)
            if repeats
            else {}
        )
        for pending in items:
            if pending is first[pending.user_id] and pending.user_id in inserted:
                decided[id(pending)] = Recorded(Outcome.COUNTED, pending.position, answered)
            else:
                position = earlier.get(pending.user_id, first[pending.user_id].position)
                decided[id(pending)] = Recorded(Outcome.REPEAT, position, answered)
        return answered


async def _first_positions_in(
    session: Any, round_id: int, number: int, user_ids: list[int]
) -> dict[int, int]:
    rows = await session.exec(
        select(LiveAnswer.user_id, LiveAnswer.position).where(
            col(LiveAnswer.round_id) == round_id,
            col(LiveAnswer.number) == number,
            col(LiveAnswer.user_id).in_(user_ids),
        )
    )
    return {int(u): int(p) for u, p in rows.all()}
