"""Storage: migrations match the models, pragmas, the batched answer writer, backups."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from datetime import UTC
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text
from sqlmodel import SQLModel, col, select

from bot.daily.answers_store import Pending, answer_writer
from bot.db.backup import backup
from bot.db.database import Database
from bot.db.tables.daily import DailyAnswer, DailyPost, GuildDailyConfig
from tests.support.db import NOW, make_post, table_names


async def schema_diffs(db: Database) -> list[object]:
    async with db.engine.connect() as conn:
        return await conn.run_sync(
            lambda sync: compare_metadata(MigrationContext.configure(sync), SQLModel.metadata)
        )


async def test_upgrade_from_empty_matches_models(db: Database) -> None:
    assert await db.current_revision() is not None
    assert await schema_diffs(db) == []


async def test_downgrade_upgrade_round_trip(db: Database) -> None:
    await make_post(db)
    await db.migrate_to("base")
    assert await db.current_revision() is None
    assert await table_names(db) <= {"alembic_version"}
    await db.migrate_to("head")
    assert await schema_diffs(db) == []


async def test_upgrade_to_0004_keeps_configs_and_posts(db: Database) -> None:
    """Existing servers get "no repeat within 30 days"; existing posts have no reason."""
    await db.migrate_to("0003")
    async with db.engine.begin() as conn:
        await conn.execute(
            text(
                "INSERT INTO guild_daily_config (guild_id, channel_id, post_time, timezone,"
                " enabled, locale, admin_notified, updated_at)"
                " VALUES (5, 7, '08:00', 'UTC', true, 'id', false, '2026-05-01 01:00:00')"
            )
        )
    await db.migrate_to("head")
    post_id = await make_post(db, guild_id=5)
    async with db.session() as session:
        config = await session.get(GuildDailyConfig, 5)
        post = await session.get(DailyPost, post_id)
    assert config is not None and config.repeat_after_days == 30
    assert post is not None and post.choice is None


@pytest.mark.sqlite_only
async def test_open_creates_parent_dir_and_sets_pragmas(tmp_path: Path) -> None:
    db = await Database.open(f"sqlite+aiosqlite:///{tmp_path / 'nested' / 'dir' / 'q.db'}")
    try:
        async with db.engine.connect() as conn:
            pragma = {
                name: (await conn.execute(text(f"PRAGMA {name}"))).scalar()
                for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")
            }
        assert pragma == {
            "journal_mode": "wal",
            "synchronous": 1,
            "foreign_keys": 1,
            "busy_timeout": 10000,
        }
    finally:
        await db.close()


async def test_timestamps_come_back_aware_utc(db: Database) -> None:
    post_id = await make_post(db)
    async with db.session() as session:
        post = await session.get(DailyPost, post_id)
    assert post is not None and post.reveal_at == NOW and post.reveal_at.tzinfo is UTC


async def test_writer_first_answer_wins_and_reports_duplicates(db: Database) -> None:
    post_id = await make_post(db)
    writer = answer_writer(db)
    await writer.start()
    try:
        # Submitted together they share a batch: queue order decides the winner.
        results = await asyncio.gather(
            writer.submit(Pending(post_id, 10, 2, False, NOW)),
            writer.submit(Pending(post_id, 10, 1, True, NOW)),
            writer.submit(Pending(post_id, 11, 0, False, NOW)),
        )
        assert results == [True, False, True]
        assert await writer.submit(Pending(post_id, 11, 1, True, NOW)) is False
    finally:
        await writer.close()
    async with db.session() as session:
        rows = (await session.exec(select(DailyAnswer).order_by(col(DailyAnswer.user_id)))).all()
    assert [(r.user_id, r.choice, r.correct, r.answered_at) for r in rows] == [
        (10, 2, False, NOW),
        (11, 0, False, NOW),
    ]


async def test_writer_acknowledges_only_after_commit(
    db: Database, open_db: Callable[[], Awaitable[Database]]
) -> None:
    post_id = await make_post(db)
    writer = answer_writer(db)
    await writer.start()
    results = await asyncio.gather(
        *(writer.submit(Pending(post_id, user, 0, True, NOW)) for user in range(1200))
    )
    await writer.close()
    assert all(results)
    # Another connection (another "process") sees every acknowledged answer.
    other = await open_db()
    async with other.engine.connect() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM daily_answer"))).scalar() == 1200


async def test_writer_failure_reaches_submitter_and_writer_survives(db: Database) -> None:
    post_id = await make_post(db)
    writer = answer_writer(db)
    await writer.start()
    try:
        # A post that does not exist violates the foreign key.
        failed = await asyncio.gather(
            writer.submit(Pending(9999, 1, 0, True, NOW)), return_exceptions=True
        )
        assert isinstance(failed[0], Exception)
        assert await writer.submit(Pending(post_id, 1, 0, True, NOW)) is True
    finally:
        await writer.close()


@pytest.mark.sqlite_only
async def test_backup_and_integrity_check(db: Database, tmp_path: Path) -> None:
    await make_post(db)
    assert await db.integrity_check() == []
    dest = await backup(db.url, tmp_path / "backups" / "copy.db")
    with sqlite3.connect(dest) as copy:
        assert copy.execute("SELECT count(*) FROM daily_post").fetchone() == (1,)
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    copy.close()


async def test_writer_first_submission_wins_for_every_batch_size(db: Database) -> None:
    """Batches of 1..9 answers (statements are padded to powers of two by repeating the
    last row): each member's first answer is stored and acknowledged, repeats are not."""
    post_id = await make_post(db)
    writer = answer_writer(db)
    await writer.start()
    expected: dict[int, int] = {}
    acknowledged: list[bool] = []
    first: list[bool] = []
    try:
        user = 0
        for size in range(1, 10):
            batch: list[tuple[int, int]] = []
            for k in range(size):
                # Every third answer repeats the previous member with another choice.
                if k % 3 == 2:
                    batch.append((user, 2))
                else:
                    user += 1
                    batch.append((user, k % 2))
            results = await asyncio.gather(
                *(writer.submit(Pending(post_id, u, c, c == 0, NOW)) for u, c in batch)
            )
            for (u, c), new in zip(batch, results, strict=True):
                first.append(u not in expected)
                acknowledged.append(new)
                expected.setdefault(u, c)
    finally:
        await writer.close()
    assert acknowledged == first
    async with db.session() as session:
        rows = (await session.exec(select(DailyAnswer).where(DailyAnswer.post_id == post_id))).all()
    assert {r.user_id: r.choice for r in rows} == expected
