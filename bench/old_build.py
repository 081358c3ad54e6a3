"""A year of a big server written at the oldest schema revision, for the upgrade benchmark
(`bench.upgrade`): what a server that has run the bot since its first release holds when
it upgrades. Written as plain rows with that revision's columns (the bot of then left
posts, answers and member totals; no review cards, no log, no tallies: every later
revision's back-fill has all of it to do), with the sizes, server and members of
`bench.scale_build`, and cached the same way (SQLite: a file under bench/results/scale/;
PostgreSQL: a database copied with CREATE DATABASE ... TEMPLATE for each run). The
history ends yesterday (revision 0005 counts the members of the last 30 days by the
real clock), so a build is kept for the day it was made.
"""

from __future__ import annotations

import math
import random
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import sqlalchemy as sa

from bench.scale_build import CHANNEL, GUILD, Built, Size, cached_build, post_time
from bot.db.base import UTCDateTime
from bot.db.database import Database
from bot.quizbank import QuizBank

# The first revision: a server that has run since then has only its tables (no review
# cards, no log, no tallies); every later revision's back-fill has all of it to do.
OLDEST_REVISION = "0001"
OLD_BUILD_VERSION = 1
_old = {
    "config": sa.table(
        "guild_daily_config",
        *[sa.column(c) for c in ("guild_id", "channel_id", "post_time", "timezone", "locale")],
        *[sa.column(c) for c in ("enabled", "admin_notified")],
        sa.column("updated_at", UTCDateTime),
    ),
    "post": sa.table(
        "daily_post",
        *[sa.column(c) for c in ("id", "guild_id", "day", "question_id", "channel_id")],
        *[sa.column(c) for c in ("message_id", "settled")],
        *[sa.column(c, UTCDateTime) for c in ("claimed_at", "posted_at", "reveal_at")],
    ),
    "answer": sa.table(
        "daily_answer",
        *[sa.column(c) for c in ("post_id", "user_id", "choice", "correct")],
        sa.column("answered_at", UTCDateTime),
    ),
    "stats": sa.table(
        "member_stats",
        *[sa.column(c) for c in ("guild_id", "user_id", "current_streak", "longest_streak")],
        *[sa.column(c) for c in ("answered", "correct", "last_settled_day")],
        sa.column("updated_at", UTCDateTime),
    ),
}


def old_today() -> date:
    """The upgrade runs today (real time: revision 0005 counts the members of the last
    30 days by the clock), after a history that ends yesterday."""
    return datetime.now(UTC).date()


async def build_old(url: str, size: Size, bank: QuizBank) -> Built:
    """A year of `size` written at OLDEST_REVISION with that revision's columns (plain
    rows, as the bot of then left them: posts, answers, member totals; the last post
    still open), ending yesterday."""
    start = time.perf_counter()
    db = await Database.open(url, migrate=False)
    rng = random.Random(37)
    mean = size.answers / (size.days * size.members)
    rates = [min(1.0, mean * -math.log(1.0 - rng.random())) for _ in range(size.members)]
    skill = [rng.gauss(0.8, 0.8) for _ in range(size.members)]
    questions = bank.all_questions(None)
    difficulty = {q.id: rng.gauss(0.0, 0.7) for q in questions}
    first, now = old_today() - timedelta(days=size.days), post_time(old_today())
    totals = [[0, 0] for _ in range(size.members)]
    answers = 0
    try:
        await db.migrate_to(OLDEST_REVISION)
        async with db.engine.begin() as conn:
            await conn.execute(
                sa.insert(_old["config"]),
                [
                    dict(
                        guild_id=GUILD,
                        channel_id=CHANNEL,
                        post_time="09:00",
                        timezone="UTC",
                        locale="en",
                        enabled=True,
                        admin_notified=False,
                        updated_at=now,
                    )
                ],
            )
        for k in range(size.days):
            day = first + timedelta(days=k)
            question = questions[k % len(questions)]
            wrong = [i for i in range(question.n_choices) if i != question.answer]
            at = post_time(day)
            rows = []
            for m in range(size.members):
                if rng.random() >= rates[m]:
                    continue
                right = rng.random() < 1 / (1 + math.exp(difficulty[question.id] - skill[m]))
                totals[m][0] += 1
                totals[m][1] += right
                rows.append(
                    dict(
                        post_id=k + 1,
                        user_id=size.member(m),
                        correct=right,
                        choice=question.answer if right else rng.choice(wrong),
                        answered_at=at + timedelta(minutes=rng.uniform(1, 600)),
                    )
                )
            answers += len(rows)
            async with db.engine.begin() as conn:
                await conn.execute(
                    sa.insert(_old["post"]),
                    [
                        dict(
                            id=k + 1,
                            guild_id=GUILD,
                            day=day,
                            question_id=question.id,
                            channel_id=CHANNEL,
                            message_id=10**18 + k,
                            claimed_at=at,
                            posted_at=at,
                            reveal_at=at + timedelta(hours=23),
                            settled=k < size.days - 1,
                        )
                    ],
                )
                if rows:
                    await conn.execute(sa.insert(_old["answer"]), rows)
        async with db.engine.begin() as conn:
            await conn.execute(
                sa.insert(_old["stats"]),
                [
                    dict(
                        guild_id=GUILD,
                        user_id=size.member(m),
                        current_streak=0,
                        longest_streak=1,
                        answered=a,
                        correct=r,
                        last_settled_day=first,
                        updated_at=now,
                    )
                    for m, (a, r) in enumerate(totals)
                    if a
                ],
            )
        counts = {"posts": size.days, "cards": 0, "class_members": 0}
    finally:
        await db.close()
    return Built(answers=answers, seconds=time.perf_counter() - start, size_mib=0.0, **counts)


async def cached_old(size: Size, bank: QuizBank, workdir: Path) -> tuple[str, Built, bool]:
    """A fresh copy of the year written at OLDEST_REVISION (built once a day: it ends
    yesterday): (url, what the build made, built now)."""
    name = f"qt_old_v{OLD_BUILD_VERSION}_{OLDEST_REVISION}_{old_today():%Y%m%d}_{size.key}"
    return await cached_build(
        name, f"qt_old_*_{size.key}", lambda url: build_old(url, size, bank), workdir
    )
