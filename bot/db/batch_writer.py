"""The one batch writer: bursts of answers (daily reactions and buttons, live presses)
written in a few transactions instead of one each.

One writer task drains a queue and writes whatever has gathered in ONE transaction
(`write(conn, items)`, a feature's SQL, which returns one result per item in order),
then resolves each submitter's future: an item is acknowledged only after it is
committed. SQLite allows one writer at a time anyway, so one task batching is the
fastest safe shape; a session per item pays a transaction each.

Gathering: when items trickle in (a steady few hundred a second) each would otherwise
get its own transaction, and a transaction costs far more CPU than a row. With
`gather_s` > 0 the writer waits up to `gather_s` (a few milliseconds) after an item
that arrived right after the one before, or until `MIN_BATCH` items are queued; an
isolated item is written at once, and `flush` and `close` cut a wait short.

Where the transaction runs: on a SQLite file, whole in the writer's own thread on a
synchronous connection (one hand-off per batch; aiosqlite would hand every statement,
fetch and commit to its thread and back, three times the CPU of a small transaction),
with SQLite's WAL checkpoints moved out of the commits (`_checkpoint_if_due`). On
PostgreSQL, asyncpg through `AsyncConnection.run_sync` on a connection kept between
batches (taking one from the pool and resetting it costs a third of a transaction).

A database outage: the batch is held and tried again (`bot.db.retry.holding`: the one
retry policy) until it is written, or `hold_s` passed (None: no limit), or the writer
is closing and `CLOSE_HOLD_S` passed (the process must end within SIGTERM's 10 s).
Then its submitters get the error; the writer goes on with the next batch.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Generic, TypeVar

from sqlalchemy import Dialect
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection
from tenacity import RetryCallState

from bot.db.database import Database
from bot.db.retry import holding, log_failure, outage

log = logging.getLogger(__name__)

Item = TypeVar("Item")
Out = TypeVar("Out")

# Gathering a trickle ends when this many items are queued.
MIN_BATCH = 64
# A WAL checkpoint after the writer's commits at most this often (SQLite file only).
CHECKPOINT_EVERY_S = 0.5
# After `close`, a batch held through an outage gives up after this long.
CLOSE_HOLD_S = 3.0


class WriterClosed(RuntimeError):
    pass


class BatchWriter(Generic[Item, Out]):
    """`result = await writer.submit(item)`; `on_commit(items, results)` hears of every
    batch written (called on the event loop, after the futures are resolved)."""

    def __init__(
        self,
        db: Database,
        write: Callable[[Connection, list[Item]], list[Out]],
        *,
        name: str,
        max_batch: int,
        gather_s: float = 0.0,
        hold_s: float | None = None,
        on_commit: Callable[[list[Item], list[Out]], None] | None = None,
        warm: Callable[[Dialect], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._db = db
        self._write_sql = write
        self.name = name
        self.max_batch = max_batch
        self.gather_s = gather_s  # 0: never wait for more (each batch as it comes)
        self.hold_s = hold_s
        self._on_commit = on_commit
        self._warm_up = warm
        self._clock = clock  # when items arrive: a trickle is one within gather_s
        self._conn: AsyncConnection | None = None  # PostgreSQL: kept between batches
        # A SQLite file: a synchronous connection used only in the writer's own thread.
        self._sync_engine = db.sync_sqlite_engine()
        self._sync_conn: Connection | None = None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix=name) if self._sync_engine else None
        self.checkpoint_every_s = CHECKPOINT_EVERY_S
        self._last_checkpoint = time.monotonic()
        self._last_arrival = -1e9
        self._trickle = False  # the latest item came within gather_s of the one before
        self._wake: asyncio.Future[None] | None = None  # set while gathering
        # Statistics (tests and benchmarks read them).
        self.transactions = 0
        self.rows = 0
        self.held_retries = 0  # tries of batches held through a database outage
        self.checkpoints = 0
        # None stops the writer; a bare future is a flush marker (see `flush`).
        self._queue: asyncio.Queue[tuple[Item, asyncio.Future[Out]] | asyncio.Future[None] | None]
        self._queue = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._warm: asyncio.Task[None] | None = None
        self._closing = False
        self._close_deadline: float | None = None  # held batches give up after it

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=self.name)
            if self._warm_up is not None:
                # E.g. compiling statements (~0.1 s): in a thread while the bot logs in,
                # not in the first burst.
                self._warm = asyncio.create_task(
                    asyncio.to_thread(self._warm_up, self._db.engine.dialect),
                    name=f"{self.name}-warm-up",
                )

    def submit(self, item: Item) -> asyncio.Future[Out]:
        """Queue `item` without waiting; the future resolves after its commit."""
        if self._task is None or self._closing:
            raise WriterClosed(f"the {self.name} is not running")
        future: asyncio.Future[Out] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((item, future))
        now = self._clock()
        self._trickle = now - self._last_arrival < self.gather_s
        self._last_arrival = now
        if self._wake is not None and self._queue.qsize() >= MIN_BATCH:
            self._stop_gathering()
        return future

    async def flush(self) -> None:
        """Until every item queued before this call is written (e.g. before a reveal)."""
        if self._task is None:
            return
        marker: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(marker)
        self._stop_gathering()
        await marker

    async def close(self) -> None:
        """Stop accepting items, write everything queued, then end the task."""
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

    # -- the writer task ------------------------------------------------------------------

    def _stop_gathering(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    async def _gather(self) -> None:
        """Wait up to `gather_s` for more items (cut short by MIN_BATCH, flush, close)."""
        loop = asyncio.get_running_loop()
        self._wake = loop.create_future()
        timer = loop.call_later(self.gather_s, self._stop_gathering)
        try:
            await self._wake
        finally:
            timer.cancel()
            self._wake = None

    async def _run(self) -> None:
        stopping = False
        while not stopping:
            batch: list[tuple[Item, asyncio.Future[Out]]] = []
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
        entry: tuple[Item, asyncio.Future[Out]] | asyncio.Future[None] | None,
        batch: list[tuple[Item, asyncio.Future[Out]]],
        flushed: list[asyncio.Future[None]],
    ) -> bool:
        """Move `entry` and whatever else has gathered into the batch; True on stop.
        A flush marker ends the batch: everything queued before it is in this batch."""
        while True:
            if entry is None:
                return True
            if isinstance(entry, tuple):
                batch.append(entry)
            else:
                flushed.append(entry)
            if flushed or len(batch) >= self.max_batch or self._queue.empty():
                return False
            entry = self._queue.get_nowait()

    async def _write(self, batch: list[tuple[Item, asyncio.Future[Out]]]) -> None:
        self.transactions += 1
        self.rows += len(batch)
        items = [item for item, _ in batch]
        try:
            results = await self._held(items)
        except Exception as exc:  # one bad batch must not stop the writer
            log_failure(log, f"writing {len(items)} rows ({self.name})", exc)
            await self._release()
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            return
        self._checkpoint_if_due()
        for (_, future), result in zip(batch, results, strict=True):
            if not future.done():
                future.set_result(result)
        if self._on_commit is not None:
            try:
                self._on_commit(items, results)
            except Exception:
                log.exception("a listener of the %s failed", self.name)

    async def _held(self, items: list[Item]) -> list[Out]:
        """The transaction, held through a database outage (see the module docstring)."""
        first_failure: list[float] = []

        def stop(state: RetryCallState) -> bool:
            now = time.monotonic()
            first_failure[:1] = first_failure[:1] or [now]
            if self._close_deadline is not None and now > self._close_deadline:
                return True
            return self.hold_s is not None and now - first_failure[0] > self.hold_s

        async def before_retry() -> None:
            self.held_retries += 1
            await self._release()  # nothing was committed; a fresh connection next

        async for attempt in holding(f"writing {len(items)} rows", stop, before_retry):
            with attempt:
                results = await self._transaction(items)
        outage.recovered()
        return results

    async def _transaction(self, items: list[Item]) -> list[Out]:
        if self._thread is not None:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._thread, self._in_thread, items)
        if self._conn is None:
            self._conn = await self._db.engine.connect()
        return await self._conn.run_sync(self._write_sql, items)

    def _in_thread(self, items: list[Item]) -> list[Out]:
        assert self._sync_engine is not None
        if self._sync_conn is None:
            self._sync_conn = self._sync_engine.connect()
            # Checkpoints run after the writer's commits, not in them (`_checkpoint_if_due`).
            self._sync_conn.exec_driver_sql("PRAGMA wal_autocheckpoint=0")
            self._sync_conn.commit()
        return self._write_sql(self._sync_conn, items)

    def _checkpoint_if_due(self) -> None:
        """Queue a WAL checkpoint in the writer's thread, at most every `checkpoint_every_s`.

        SQLite checkpoints inside whichever commit takes the log past 1,000 pages; at
        2,000 answers/s that made one transaction every couple of seconds take 7-10 ms
        instead of 0.2 ms, and every answer of it waited (`bench.grading_latency`). Run
        after the commit instead, on the writer's own connection, the checkpoint overlaps
        the gathering of the next batch and nobody's answer waits for it."""
        if self._thread is None:
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
            log.debug("closing the %s's connection failed", self.name, exc_info=True)
