"""Batched, durable writes of daily answers for reaction bursts.

One writer task drains a queue and commits whatever has gathered in ONE transaction
(multi-row `INSERT ... ON CONFLICT DO NOTHING RETURNING`), then resolves each
submitter's future: an answer is acknowledged only after it is committed. SQLite
allows one writer at a time anyway, so one task batching is the fastest safe shape;
a session per answer pays a transaction (and an fsync-ish WAL append) each.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime

from bot.storage.database import Database

log = logging.getLogger(__name__)

# 5 bound values per row; stays well under SQLite's 32766 variables per statement.
ROWS_PER_STATEMENT = 500
MAX_BATCH = 5000


@dataclass
class _Pending:
    post_id: int
    user_id: int
    choice: int
    correct: bool
    answered_at: datetime
    future: asyncio.Future[bool] = field(repr=False)


@functools.cache
def _insert_sql(rows: int) -> str:
    values = ",".join(["(?, ?, ?, ?, ?)"] * rows)
    return (
        "INSERT INTO daily_answer (post_id, user_id, choice, correct, answered_at) "
        f"VALUES {values} ON CONFLICT DO NOTHING RETURNING post_id, user_id"
    )


def _db_time(value: datetime) -> str:
    # The storage format of SQLAlchemy's SQLite DateTime (naive UTC, see UTCDateTime).
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


class WriterClosed(RuntimeError):
    pass


class AnswerWriter:
    """`inserted = await writer.submit(...)`: True if this was the member's first answer."""

    def __init__(self, db: Database):
        self._db = db
        # None stops the writer; a bare future is a flush marker (see `flush`).
        self._queue: asyncio.Queue[_Pending | asyncio.Future[None] | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._closing = False

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="answer-writer")

    async def submit(
        self, post_id: int, user_id: int, choice: int, correct: bool, answered_at: datetime
    ) -> bool:
        return await self.enqueue(post_id, user_id, choice, correct, answered_at)

    def enqueue(
        self, post_id: int, user_id: int, choice: int, correct: bool, answered_at: datetime
    ) -> asyncio.Future[bool]:
        """Queue an answer without waiting; the future resolves after the commit."""
        if self._task is None or self._closing:
            raise WriterClosed("the answer writer is not running")
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Pending(post_id, user_id, choice, correct, answered_at, future))
        return future

    async def close(self) -> None:
        """Stop accepting answers, write everything queued, then end the task."""
        if self._task is None:
            return
        self._closing = True
        self._queue.put_nowait(None)
        await self._task
        self._task = None

    async def flush(self) -> None:
        """Until every answer queued before this call is committed (e.g. before a reveal)."""
        if self._task is None:
            return
        marker: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(marker)
        await marker

    async def _run(self) -> None:
        stopping = False
        while not stopping:
            batch: list[_Pending] = []
            flushed: list[asyncio.Future[None]] = []
            item = await self._queue.get()
            # Take whatever else has gathered meanwhile: the batch grows with the load.
            while True:
                if item is None:
                    stopping = True
                elif isinstance(item, _Pending):
                    batch.append(item)
                else:
                    flushed.append(item)
                if stopping or flushed or len(batch) >= MAX_BATCH or self._queue.empty():
                    break
                item = self._queue.get_nowait()
            if batch:
                await self._write(batch)
            for marker in flushed:
                if not marker.done():
                    marker.set_result(None)

    async def _write(self, batch: list[_Pending]) -> None:
        inserted: set[tuple[int, int]] = set()
        try:
            async with self._db.engine.begin() as conn:
                for start in range(0, len(batch), ROWS_PER_STATEMENT):
                    chunk = batch[start : start + ROWS_PER_STATEMENT]
                    params: list[object] = []
                    for p in chunk:
                        params += (
                            p.post_id,
                            p.user_id,
                            p.choice,
                            p.correct,
                            _db_time(p.answered_at),
                        )
                    # Plain driver SQL: compiling a 500-row multi-VALUES construct in
                    # SQLAlchemy costs more than the insert itself.
                    result = await conn.exec_driver_sql(_insert_sql(len(chunk)), tuple(params))
                    rows: list[tuple[int, int]] = [tuple(row) for row in result]  # type: ignore[misc]
                    inserted.update(rows)
        except Exception as exc:  # one bad batch must not kill the writer
            log.exception("writing %d answers failed", len(batch))
            for pending in batch:
                if not pending.future.done():
                    pending.future.set_exception(exc)
            return
        # SQLite inserts VALUES rows in order, so the first submission of a key won.
        for pending in batch:
            key = (pending.post_id, pending.user_id)
            new = key in inserted
            inserted.discard(key)
            if not pending.future.done():
                pending.future.set_result(new)
