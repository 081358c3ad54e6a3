"""Revision 0008's replay, set-based (issue 37): a year-old big server upgrades in
seconds, and ends exactly as the replay one review at a time left it."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from bot.db.base import UTCDateTime
from bot.db.database import Database
from bot.learning import replay_store
from bot.learning.memory_rules import replay, scheduler_for
from bot.learning.replay_rules import Replayer
from bot.learning.review_rules import SCHEDULER, rating_for, review
from testkit.databases import dispose_database_url, new_database_url
from tests.learning import replay_reference

UTC_SERVER, JAKARTA_SERVER = 41, 42
QUESTIONS = ["mp-fp16-range", "mp-bf16-range", "ga-01", "ga-02", "as-01"]


def random_history(rng: random.Random) -> list[tuple[int, bool, datetime]]:
    """One card's reviews: same-day repeats, ties, answers graded late (earlier than the
    previous one), long gaps."""
    at = datetime(2025, 1, 1, 9, tzinfo=UTC) + timedelta(seconds=rng.randrange(10**7))
    out = []
    for _ in range(rng.randrange(1, 9)):
        step = rng.choice([-7200, 0, 90, 86_399, 86_400, 3 * 86_400 + 5])
        at += timedelta(seconds=rng.choice([step, rng.randrange(60 * 86_400)]))
        right = rng.random() < 0.7
        out.append((int(rating_for(right, rng.choice([None, 3.0]))), right, at))
    return out


@pytest.mark.parametrize("retention", [0.9, 0.83])
def test_the_bulk_replay_gives_what_fsrs_gives_review_by_review(retention: float) -> None:
    scheduler = SCHEDULER if retention == 0.9 else scheduler_for(None, retention)
    bulk = Replayer(scheduler)
    rng = random.Random(37)
    for _ in range(3000):
        history = random_history(rng)
        assert bulk.replay(history) == replay(history, scheduler), history


T = sa.table  # the columns of revision 0004, as a year-old bot wrote them
CONFIG = T(
    "guild_daily_config",
    *[
        sa.column(c)
        for c in (
            "guild_id",
            "channel_id",
            "post_time",
            "timezone",
            "enabled",
            "locale",
            "admin_notified",
        )
    ],
    sa.column("updated_at", UTCDateTime),
)
POST = T(
    "daily_post",
    *[sa.column(c) for c in ("id", "guild_id", "day", "question_id", "channel_id", "settled")],
    *[sa.column(c, UTCDateTime) for c in ("claimed_at", "reveal_at")],
)
ANSWER = T(
    "daily_answer",
    *[sa.column(c) for c in ("post_id", "user_id", "choice", "correct")],
    sa.column("answered_at", UTCDateTime),
)
SESSION = T(
    "quiz_session",
    *[
        sa.column(c)
        for c in (
            "id",
            "user_id",
            "guild_id",
            "locale",
            "position",
            "answered_current",
            "score",
            "status",
        )
    ],
    *[sa.column(c, UTCDateTime) for c in ("started_at", "last_activity_at")],
    *[sa.column(c, sa.JSON) for c in ("question_ids", "choice_orders")],
)
RESULT = T(
    "quiz_result",
    *[sa.column(c) for c in ("session_id", "question_id", "user_id", "chosen", "correct")],
    sa.column("answered_at", UTCDateTime),
)
LOG = T(
    "review_log",
    *[sa.column(c) for c in ("source", "ref", "user_id", "question_id", "rating", "correct")],
    sa.column("reviewed_at", UTCDateTime),
)
CARD = T(
    "review_card",
    *[sa.column(c) for c in ("user_id", "question_id", "reviews", "lapses", "open_mistake")],
    sa.column("card", sa.JSON),
    *[sa.column(c, UTCDateTime) for c in ("due", "last_review", "last_wrong_at")],
)


async def write_at_0004(db: Database, seed: int, now: datetime) -> None:
    """Two servers (one on Jakarta time) over 60 days ending yesterday: daily answers
    (the last post of each still open), quiz results (one outside a server, one at the
    very time of a daily answer of its card), and answers already applied to review
    cards live (their log rows and cards, one of them also a daily answer: a conflict)."""
    rng = random.Random(seed)
    today = now.date()
    members = [900 + k for k in range(24)]
    posts: list[dict[str, Any]] = []
    answers: list[dict[str, Any]] = []
    sessions: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    logs: list[dict[str, Any]] = []
    cards: list[dict[str, Any]] = []
    post_id = 0
    for guild in (UTC_SERVER, JAKARTA_SERVER):
        for k in range(60):
            day = today - timedelta(days=60 - k)
            at = datetime.combine(day, time(9), UTC)
            post_id += 1
            question = QUESTIONS[(k + guild) % len(QUESTIONS)]
            posts.append(
                dict(
                    id=post_id,
                    guild_id=guild,
                    day=day,
                    question_id=question,
                    channel_id=1,
                    settled=k < 59,
                    claimed_at=at,
                    reveal_at=at + timedelta(hours=23),
                )
            )
            for user in members:
                if rng.random() < 0.45:
                    right = rng.random() < 0.6
                    when = at + timedelta(minutes=rng.choice([1, 700, 800, rng.uniform(1, 900)]))
                    answers.append(
                        dict(
                            post_id=post_id,
                            user_id=user,
                            choice=0 if right else 2,
                            correct=right,
                            answered_at=when,
                        )
                    )
    for answer in answers[:40:4]:  # applied live: the log has them already
        post = posts[answer["post_id"] - 1]
        logs.append(
            dict(
                source="daily",
                ref=str(answer["post_id"]),
                user_id=answer["user_id"],
                question_id=post["question_id"],
                correct=answer["correct"],
                rating=int(rating_for(answer["correct"])),
                reviewed_at=answer["answered_at"],
            )
        )
        card = review(None, rating_for(answer["correct"]), answer["answered_at"])
        cards.append(
            dict(
                user_id=answer["user_id"],
                question_id=post["question_id"],
                card=card.to_dict(),
                reviews=1,
                lapses=int(not answer["correct"]),
                open_mistake=not answer["correct"],
                due=card.due,
                last_review=card.last_review,
                last_wrong_at=None if answer["correct"] else answer["answered_at"],
            )
        )
    tie = answers[7]
    for n in range(8):
        sid = f"s{n}"
        start = datetime.combine(today - timedelta(days=rng.randrange(1, 50)), time(20), UTC)
        user = members[n]
        sessions.append(
            dict(
                id=sid,
                user_id=user,
                guild_id=None if n == 5 else UTC_SERVER,
                locale="en",
                question_ids=QUESTIONS,
                choice_orders=[[0, 1]] * 5,
                position=0,
                answered_current=False,
                score=0,
                status="finished",
                started_at=start,
                last_activity_at=start,
            )
        )
        for q, question in enumerate(QUESTIONS):
            results.append(
                dict(
                    session_id=sid,
                    question_id=question,
                    user_id=user,
                    chosen=0,
                    correct=rng.random() < 0.5,
                    answered_at=start + timedelta(minutes=q),
                )
            )
    post = posts[tie["post_id"] - 1]
    sessions.append(dict(sessions[0], id="tie", user_id=tie["user_id"]))
    results.append(
        dict(
            session_id="tie",
            question_id=post["question_id"],
            user_id=tie["user_id"],
            chosen=0,
            correct=not tie["correct"],
            answered_at=tie["answered_at"],
        )
    )
    async with db.engine.begin() as conn:
        await conn.execute(
            sa.insert(CONFIG),
            [
                dict(
                    guild_id=g,
                    channel_id=1,
                    post_time="09:00",
                    timezone=zone,
                    enabled=True,
                    locale="en",
                    admin_notified=False,
                    updated_at=now,
                )
                for g, zone in ((UTC_SERVER, "UTC"), (JAKARTA_SERVER, "Asia/Jakarta"))
            ],
        )
        for table, rows in (
            (POST, posts),
            (ANSWER, answers),
            (SESSION, sessions),
            (RESULT, results),
            (LOG, logs),
            (CARD, cards),
        ):
            await conn.execute(sa.insert(table), rows)


async def dump(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in key order (the memory models without the time the
    upgrade ran)."""

    def tables(conn: sa.Connection) -> dict[str, list[str]]:
        found = sa.inspect(conn)
        return {t: [c["name"] for c in found.get_columns(t)] for t in found.get_table_names()}

    out = {}
    async with db.engine.connect() as conn:
        for name, columns in sorted((await conn.run_sync(tables)).items()):
            if name == "alembic_version":
                continue
            keep = [c for c in columns if (name, c) != ("memory_model", "next_fit_at")]
            quoted = ", ".join(f'"{c}"' for c in keep)
            rows = await conn.exec_driver_sql(f'SELECT {quoted} FROM "{name}"')
            out[name] = sorted((tuple(r) for r in rows), key=repr)  # PostgreSQL: json
    return out


@pytest.fixture
def second_url(tmp_path: Path) -> Iterator[str]:
    url = new_database_url(tmp_path, "by-the-old-replay.db")
    yield url
    dispose_database_url(url)


async def test_an_upgrade_ends_as_the_replay_one_review_at_a_time_left_it(
    db_url: str, second_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    upgraded = {}
    now = datetime.now(UTC)
    for name, url in (("old", second_url), ("new", db_url)):
        db = await Database.open(url, migrate=False)
        try:
            await db.migrate_to("0004")
            await write_at_0004(db, 5, now)
            with monkeypatch.context() as patch:
                if name == "old":
                    patch.setattr(replay_store, "replay_history", replay_reference.replay_history)
                await db.migrate_to("head")
            upgraded[name] = await dump(db)
        finally:
            await db.close()
    old, new = upgraded["old"], upgraded["new"]
    assert len(new["review_log"]) > 1000 and len(new["review_card"]) > 100
    assert sum(r[2] for r in new["member_activity"]) == len(new["review_log"])
    assert old.keys() == new.keys()
    for table in old:
        assert old[table] == new[table], table
