"""SQLite's WAL checkpoints run beside the answer writer, not inside its commits.

The writer's connection turns SQLite's automatic checkpoint off (a checkpoint inside a
commit made every answer of that batch wait 6-9 ms, `bench.grading_latency`), so the
writer must checkpoint after its commits to keep the write-ahead log small: a WAL that is never
checkpointed grows by every transaction, on the self-hoster's disk.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.daily.answers_store import Pending, answer_writer
from bot.db.database import Database, sqlite_path
from tests.support.db import NOW, make_post

pytestmark = pytest.mark.sqlite_only

TRANSACTIONS = 1500


def wal_bytes(db: Database) -> int:
    wal = Path(f"{sqlite_path(db.url)}-wal")
    return wal.stat().st_size if wal.exists() else 0


async def test_the_wal_stays_small_while_the_writer_commits(db: Database) -> None:
    post_id = await make_post(db)
    writer = answer_writer(db, gather_s=0.0)  # one transaction per answer: the worst case
    writer.checkpoint_every_s = 0.0  # a checkpoint after every commit
    await writer.start()
    try:
        for user in range(TRANSACTIONS):
            assert await writer.submit(Pending(post_id, user, 0, True, NOW)) is True
        assert writer.transactions == TRANSACTIONS
    finally:
        await writer.close()
    assert writer.checkpoints > 0
    # Each transaction appends at least two 4 KiB pages: unchecked, about 12 MiB.
    assert wal_bytes(db) < 1024 * 1024, wal_bytes(db)
