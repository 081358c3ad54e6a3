"""Another writer of the database, in a process of its own: a one-row UPDATE committed
every 5 ms on its own connection, and the worst time one took while `running`.

A process, not a thread of the benchmark: a thread would share the bot's interpreter lock
and measure it too. On SQLite its connection checkpoints nothing (as the answer writer's:
`bot.db.batch_writer`), so what it measures is the wait for the write lock, including the
busy handler's sleeps (1, 2, 5, 10, 15, 20, 25 ms ...: a lock held 60 ms is seen as
about 78 ms). On PostgreSQL: the wait for row locks, and the server's own latency.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import sqlite3
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

TICK_S = 0.005


class CommitProbe:
    """`with probe.running(): ...`, then `probe.worst` (seconds) and `probe.commits`."""

    def __init__(self, url: str, guild_id: int) -> None:
        context = multiprocessing.get_context("spawn")
        self._pipe, child = context.Pipe()
        self._process = context.Process(
            target=_main, args=(url, guild_id, child), name="commit-probe", daemon=True
        )
        self._process.start()
        assert self._pipe.recv() == "ready"
        self.worst = 0.0
        self.commits = 0

    @contextlib.contextmanager
    def running(self) -> Iterator[CommitProbe]:
        self._pipe.send("mark")  # forget what came before
        self._pipe.recv()
        try:
            yield self
        finally:
            self._pipe.send("mark")
            self.worst, self.commits = self._pipe.recv()

    def close(self) -> None:
        self._pipe.send("stop")
        self._process.join(10)


def _main(url: str, guild_id: int, pipe: Connection) -> None:
    if url.startswith("sqlite"):
        _sqlite(url.split("///", 1)[1], guild_id, pipe)
    else:
        asyncio.run(_postgres(url, guild_id, pipe))


def _answer(pipe: Connection, state: list[Any]) -> bool:
    """Handle what the benchmark asked; False on stop."""
    while pipe.poll():
        message = pipe.recv()
        if message == "stop":
            return False
        pipe.send((state[0], state[1]))
        state[0], state[1] = 0.0, 0
    return True


def _sqlite(path: str, guild_id: int, pipe: Connection) -> None:
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    # As the bot's connections (`bot.db.database`): no fsync per commit in WAL mode.
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    sql = "UPDATE guild_daily_config SET admin_notified = 1 - admin_notified WHERE guild_id = ?"
    state: list[Any] = [0.0, 0]
    pipe.send("ready")
    try:
        while _answer(pipe, state):
            start = time.perf_counter()
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(sql, (guild_id,))
            conn.execute("COMMIT")
            state[0], state[1] = max(state[0], time.perf_counter() - start), state[1] + 1
            time.sleep(TICK_S)
    finally:
        conn.close()


async def _postgres(url: str, guild_id: int, pipe: Connection) -> None:
    import asyncpg
    from sqlalchemy.engine import make_url

    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn)
    sql = "UPDATE guild_daily_config SET admin_notified = NOT admin_notified WHERE guild_id = $1"
    state: list[Any] = [0.0, 0]
    pipe.send("ready")
    try:
        while _answer(pipe, state):
            start = time.perf_counter()
            await conn.execute(sql, guild_id)
            state[0], state[1] = max(state[0], time.perf_counter() - start), state[1] + 1
            await asyncio.sleep(TICK_S)
    finally:
        await conn.close()
