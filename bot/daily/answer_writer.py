"""Batched, durable writes of daily answers for reaction bursts.

One writer task drains a queue and commits whatever has gathered in ONE transaction
(multi-row `INSERT ... ON CONFLICT DO NOTHING RETURNING`), then resolves each
submitter's future: an answer is acknowledged only after it is committed. SQLite
allows one writer at a time anyway, so one task batching is the fastest safe shape;
a session per answer pays a transaction (and an fsync-ish WAL append) each.

When answers trickle in (a steady few hundred per second) each would otherwise get its own
transaction, and a transaction costs far more CPU than a row (thread hand-offs, BEGIN
and COMMIT). So the writer gathers
briefly when the answer it just took arrived right after the one before: it waits up to
`gather_s` (a few milliseconds) or until `MIN_BATCH` answers are queued, whichever comes
first. An isolated answer (the previous one long ago) is written at once, a burst
already queues more than `MIN_BATCH`, and `flush` and `close` cut a wait short.

Where the transaction runs: on a SQLite file, whole in the writer's own thread on a
synchronous SQLAlchemy connection (one hand-off per batch; aiosqlite would hand every
statement, fetch and commit to its thread and back), with SQLite's WAL checkpoints
moved out of the commits (`_checkpoint_if_due`). On PostgreSQL, asyncpg through
`AsyncConnection.run_sync` (natively async, no thread).

The statement itself is in `bot.daily.answers_store`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.daily.answers_store import Pending, compile_all, insert_rows
from bot.db.database import Database
from bot.db.retry import is_transient, outage

log = logging.getLogger(__name__)

MAX_BATCH = 5000
# Gathering a trickle: at most this long, or until this many answers are queued. 12 ms
# (8 before issue 27): fewer transactions at a steady 500/s (7 rows each instead of 4.7)
# for a grading p50 of 7 ms, within its 10 ms budget (`bench.steady`).
GATHER_S = 0.012
MIN_BATCH = 64
# A WAL checkpoint after the writer's commits at most this often (SQLite file only).
CHECKPOINT_EVERY_S = 0.5
# A batch the database could not take is tried again after 0.05, 0.1 ... 1 s; at
# shutdown for at most CLOSE_HOLD_S more (SIGTERM must end the process in 10 s).
FIRST_HOLD_DELAY_S = 0.05
MAX_HOLD_DELAY_S = 1.0
CLOSE_HOLD_S = 3.0


class WriterClosed(RuntimeError):
    pass


class AnswerWriter:
    """`inserted = await writer.submit(...)`: True if this was the member's first answer."""

    def __init__(
        self,
        db: Database,
        gather_s: float = GATHER_S,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._db = db
        self._conn: AsyncConnection | None = None  # held between batches, see `_insert`
        # A SQLite file: a synchronous connection used only in the writer's own thread.
        self._sync_engine = db.sync_sqlite_engine()
        self._sync_conn: Connection | None = None
        self._thread = (
            ThreadPoolExecutor(1, thread_name_prefix="answer-writer")
            if self._sync_engine is not None
            else None
        )
        self.own_thread = True  # False: aiosqlite's path (the benchmarks compare both)
        self.checkpoint_every_s = CHECKPOINT_EVERY_S
        self._last_checkpoint = time.monotonic()
        self.checkpoints = 0  # statistics (tests and benchmarks), like the two below
        self.gather_s = gather_s  # 0: never wait for more (each batch as it comes)
        self._last_arrival = -1e9
        self._clock = clock  # when answers arrive: a trickle is one within gather_s
        self._trickle = False  # the latest answer came within gather_s of the one before
        self._wake: asyncio.Future[None] | None = None  # set while gathering
        self.transactions = 0  # statistics (the benchmarks read them)
        self.held_retries = 0  # tries of batches held through a database outage
        self.rows = 0
        # None stops the writer; a bare future is a flush marker (see `flush`).
        self._queue: asyncio.Queue[Pending | asyncio.Future[None] | None] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._warm: asyncio.Task[None] | None = None
        self._closing = False
        self._close_deadline: float | None = None  # held batches give up after it

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="answer-writer")
            # Compiling the statements takes ~0.1 s: do it in a thread while the bot
            # logs in, not in the first burst of reactions (a miss compiles inline).
            self._warm = asyncio.create_task(
                asyncio.to_thread(compile_all, self._db.engine.dialect), name="writer-warm-up"
            )

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
        self._queue.put_nowait(Pending(post_id, user_id, choice, correct, answered_at, future))
        now = self._clock()
        self._trickle = now - self._last_arrival < self.gather_s
        self._last_arrival = now
        if self._wake is not None and self._queue.qsize() >= MIN_BATCH:
            self._stop_gathering()
        return future

    def _stop_gathering(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    async def _gather(self) -> None:
        """Wait up to `gather_s` for more answers (cut short by MIN_BATCH, flush, close)."""
        loop = asyncio.get_running_loop()
        self._wake = loop.create_future()
        timer = loop.call_later(self.gather_s, self._stop_gathering)
        try:
            await self._wake
        finally:
            timer.cancel()
            self._wake = None

    async def _insert(self, batch: list[Pending]) -> set[tuple[int, int]]:
        """One transaction on the writer's own connection; the keys it inserted.

        The connection stays open between batches: taking one from the pool and handing
        it back (with the pool's reset) costs a third of a small transaction. On a SQLite
        file the transaction runs whole in the writer's own thread (one hand-off per
        batch); aiosqlite would hand each statement, the fetch and the commit to its
        thread and back, three times the CPU of a small transaction (0.59 vs 0.20 ms
        for 5 rows, `bench.steady`)."""
        if self._thread is not None and self.own_thread:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._thread, self._insert_in_thread, batch)
        if self._conn is None:
            self._conn = await self._db.engine.connect()
        return await self._conn.run_sync(insert_rows, batch)

    def _insert_in_thread(self, batch: list[Pending]) -> set[tuple[int, int]]:
        assert self._sync_engine is not None
        if self._sync_conn is None:
            self._sync_conn = self._sync_engine.connect()
            # Checkpoints run after the writer's commits, not in them (`_checkpoint_if_due`).
            self._sync_conn.exec_driver_sql("PRAGMA wal_autocheckpoint=0")
            self._sync_conn.commit()
        return insert_rows(self._sync_conn, batch)

    def _checkpoint_if_due(self) -> None:
        """Queue a WAL checkpoint in the writer's thread, at most every `checkpoint_every_s`.

        SQLite checkpoints inside whichever commit takes the log past 1,000 pages; at
        2,000 answers/s that made one transaction every couple of seconds take 7-10 ms
        instead of 0.2 ms (the database file's fsync included), and every answer of it
        waited (`bench.grading_latency`). Run after
        the commit instead, the checkpoint overlaps the writer's gathering of the next
        batch and nobody's answer waits for it; on the writer's own connection, before
        its next transaction, so SQLite can restart the log from its beginning."""
        if self._thread is None or not self.own_thread:
            return
        now = time.monotonic()
        if now - self._last_checkpoint < self.checkpoint_every_s:
            return
        self._last_checkpoint = now
        self._thread.submit(self._checkpoint_in_thread)

    def _checkpoint_in_thread(self) -> None:
        conn = self._sync_conn
        if conn is None:
            return
        try:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").all()
            conn.commit()
            self.checkpoints += 1
        except Exception:  # the next one is due soon; nothing is lost meanwhile
            log.warning("a WAL checkpoint failed", exc_info=True)

    def _close_in_thread(self) -> None:
        conn, self._sync_conn = self._sync_conn, None
        if conn is not None:
            conn.close()

    async def _release(self) -> None:
        try:
            if self._thread is not None:
                await asyncio.get_running_loop().run_in_executor(
                    self._thread, self._close_in_thread
                )
            conn, self._conn = self._conn, None
            if conn is not None:
                await conn.close()
        except Exception:  # a broken connection: the pool discards it
            log.debug("closing the writer's connection failed", exc_info=True)

    async def close(self) -> None:
        """Stop accepting answers, write everything queued, then end the task."""
        if self._task is None:
            return
        if self._warm is not None:
            await asyncio.gather(self._warm, return_exceptions=True)
        self._closing = True
        self._close_deadline = time.monotonic() + CLOSE_HOLD_S
        self._queue.put_nowait(None)
        self._stop_gathering()
        await self._task
        self._task = None
        await self._release()
        if self._thread is not None:
            assert self._sync_engine is not None
            self._sync_engine.dispose()
            self._thread.shutdown(wait=False)
            self._thread = None

    async def flush(self) -> None:
        """Until every answer queued before this call is committed (e.g. before a reveal)."""
        if self._task is None:
            return
        marker: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(marker)
        self._stop_gathering()
        await marker

    async def _run(self) -> None:
        stopping = False
        while not stopping:
            batch: list[Pending] = []
            flushed: list[asyncio.Future[None]] = []
            stopping = self._take(await self._queue.get(), batch, flushed)
            if (
                self._trickle
                and self.gather_s > 0
                and not (stopping or flushed)
                and len(batch) < MIN_BATCH
            ):
                await self._gather()
                if not self._queue.empty():
                    stopping = self._take(self._queue.get_nowait(), batch, flushed)
            if batch:
                await self._write(batch)
            for marker in flushed:
                if not marker.done():
                    marker.set_result(None)

    def _take(
        self,
        item: Pending | asyncio.Future[None] | None,
        batch: list[Pending],
        flushed: list[asyncio.Future[None]],
    ) -> bool:
        """Move `item` and whatever else has gathered into the batch; True on stop.

        A flush marker ends the batch: everything queued before it is in this batch."""
        while True:
            if item is None:
                return True
            if isinstance(item, Pending):
                batch.append(item)
            else:
                flushed.append(item)
            if flushed or len(batch) >= MAX_BATCH or self._queue.empty():
                return False
            item = self._queue.get_nowait()

    async def _insert_held(self, batch: list[Pending]) -> set[tuple[int, int]]:
        """Insert, holding the batch through a database outage (a server restart, a
        read-only file): retried with backoff until it is written, or until the writer
        is closing and `CLOSE_HOLD_S` have passed since (the process must end: the
        reactions stay on Discord's messages and are read back at the next start)."""
        delay = FIRST_HOLD_DELAY_S
        while True:
            try:
                inserted = await self._insert(batch)
            except Exception as exc:
                if not is_transient(exc):
                    raise
                # Nothing was committed; a broken connection is replaced on the next try.
                await self._release()
                deadline = self._close_deadline
                if deadline is not None and time.monotonic() > deadline:
                    raise
                outage.failed(f"writing {len(batch)} answers", exc)
                self.held_retries += 1
                await asyncio.sleep(delay)
                delay = min(delay * 2, MAX_HOLD_DELAY_S)
                continue
            outage.recovered()
            return inserted

    async def _write(self, batch: list[Pending]) -> None:
        self.transactions += 1
        self.rows += len(batch)
        try:
            inserted = await self._insert_held(batch)
        except Exception as exc:  # one bad batch must not kill the writer
            log.exception("writing %d answers failed", len(batch))
            if isinstance(exc, DBAPIError) and exc.connection_invalidated:
                await self._release()
            for pending in batch:
                if not pending.future.done():
                    pending.future.set_exception(exc)
            return
        self._checkpoint_if_due()
        # Both databases insert VALUES rows in order, so the first submission of a key won.
        for pending in batch:
            key = (pending.post_id, pending.user_id)
            new = key in inserted
            inserted.discard(key)
            if not pending.future.done():
                pending.future.set_result(new)
