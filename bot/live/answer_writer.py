"""Live answers, written in batches: a thousand members pressing within seconds cost a
few transactions, not a thousand.

One writer task drains a queue and writes whatever has gathered in ONE transaction, then
resolves each press's future: a press is acknowledged only after its answer is
committed (or refused). The transaction (`bot.live.answers_store.write_batch`)
locks each question's row first, refuses what comes after its deadline by the
database's clock, and inserts with ON CONFLICT DO NOTHING: a member's first answer
counts. On a SQLite file it runs whole in the writer's own thread on a synchronous
connection (one hand-off per batch; aiosqlite would hand every statement to its thread
and back), as the daily answer writer does; on PostgreSQL through
`AsyncConnection.run_sync`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy.engine import Connection

from bot.db.database import Database
from bot.db.retry import log_failure, retry_transient
from bot.live.answers_store import LivePending, Outcome, Recorded, write_batch

log = logging.getLogger(__name__)

MAX_BATCH = 2000
__all__ = ["LiveAnswerWriter", "LivePending", "Outcome", "Recorded", "WriterClosed"]


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
        # A SQLite file: a synchronous connection used only in the writer's own thread.
        self._sync_engine = db.sync_sqlite_engine()
        self._sync_conn: Connection | None = None
        self._thread = (
            ThreadPoolExecutor(1, thread_name_prefix="live-writer")
            if self._sync_engine is not None
            else None
        )
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
        arrived: float | None = None,
    ) -> asyncio.Future[Recorded]:
        """`arrived`: when the press came, by `time.monotonic()` (default: now); it is
        judged at that moment by the database's clock however late it is written (a
        database away for a while)."""
        if self._task is None or self._closing:
            raise WriterClosed("the live answer writer is not running")
        future: asyncio.Future[Recorded] = asyncio.get_running_loop().create_future()
        moment = time.monotonic() if arrived is None else arrived
        self._queue.put_nowait(
            LivePending(
                round_id, number, user_id, position, choice, correct, seconds, future, moment
            )
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
        if self._thread is not None:
            assert self._sync_engine is not None
            await asyncio.get_running_loop().run_in_executor(self._thread, self._close_in_thread)
            self._sync_engine.dispose()
            self._thread.shutdown(wait=False)
            self._thread = None

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
            # (a database away for longer than the tries: noted once for the outage; each
            # press is answered "try again")
            log_failure(log, f"writing {len(batch)} live answers", exc)
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
        """One transaction: on a SQLite file whole in the writer's own thread (one hand-off
        per batch, where aiosqlite would hand off every statement); elsewhere through
        `AsyncConnection.run_sync` (asyncpg is natively async)."""
        if self._thread is not None:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._thread, self._in_thread, batch)
        async with self._db.engine.connect() as conn:
            return await conn.run_sync(write_batch, batch)

    def _in_thread(
        self, batch: list[LivePending]
    ) -> tuple[list[Recorded], dict[tuple[int, int], int]]:
        assert self._sync_engine is not None
        if self._sync_conn is None:
            self._sync_conn = self._sync_engine.connect()
        try:
            return write_batch(self._sync_conn, batch)
        except Exception:
            conn, self._sync_conn = self._sync_conn, None
            conn.close()  # a fresh connection for the retry
            raise

    def _close_in_thread(self) -> None:
        conn, self._sync_conn = self._sync_conn, None
        if conn is not None:
            conn.close()
