"""The servers of the scale benchmark, built through the bot's own code and cached.

A server of M members with a year of daily questions: every day the bot's own choice
picks the question (`DailyPosts.choose`), the post is claimed and "sent", the members
who answer that day react (`DailyAnswers.record`, through the batched answer writer),
and the day is settled at its reveal (`DailySettling.settle`: streaks, review cards,
tallies, the class recall). Member k answers on a given day with their own probability
(exponentially spread around the mean that gives N answers in all, so some members go
quiet for weeks) and is right with a probability from their skill and the question's
difficulty. Times come from an injected clock: the history always ends on the same day.

Built once per size and backend and kept (SQLite: a file under bench/results/scale/;
PostgreSQL: a database `qt_scale_...` on the server, copied with CREATE DATABASE ...
TEMPLATE for each run), keyed by BUILD_VERSION and a fingerprint of the migrations; a run
then works on a copy, so every run starts from the same state.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import random
import shutil
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime, timedelta
from datetime import time as dtime
from pathlib import Path
from typing import Any

from bench.common import BACKEND
from bot.daily import posts_store
from bot.daily.service import DailyService
from bot.db.database import MIGRATIONS_DIR, Database
from bot.quizbank import QuizBank
from testkit.times import Clock

BUILD_VERSION = 1
RESULTS = Path(__file__).resolve().parent / "results" / "scale"
GUILD = 912_345_678_901_234_567
CHANNEL = 912_345_678_901_234_568
FIRST_DAY = date(2025, 1, 6)  # a Monday
POST_AT = dtime(9, 0)
USER_BASE = 700_000_000_000_000_000


@dataclass(frozen=True)
class Size:
    members: int
    answers: int
    days: int = 365

    @property
    def label(self) -> str:
        return f"{self.members:,} members, {self.answers:,} answers"

    @property
    def key(self) -> str:
        return f"{self.members}m{self.answers}a{self.days}d"

    @property
    def today(self) -> date:
        """The day after the history: the day the benchmark's commands run."""
        return FIRST_DAY + timedelta(days=self.days)

    def member(self, k: int) -> int:
        return USER_BASE + k


@dataclass
class Built:
    """What a build made (stored beside the cache)."""

    answers: int
    posts: int
    cards: int
    class_members: int
    seconds: float
    size_mib: float


def post_time(day: date) -> datetime:
    return datetime.combine(day, POST_AT, UTC)


def _schema() -> str:
    """A fingerprint of the migrations: a build is only reused by the schema it was made for."""
    digest = hashlib.sha1()
    for path in sorted(MIGRATIONS_DIR.glob("versions/*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


def cache_name(size: Size) -> str:
    return f"qt_scale_v{BUILD_VERSION}_{_schema()}_{size.key}"


async def build(url: str, size: Size, bank: QuizBank) -> Built:
    """A server of `size` in the (empty) database at `url`."""
    start = time.perf_counter()
    clock = Clock(post_time(FIRST_DAY))
    db = await Database.open(url)
    daily = DailyService(db, bank, clock=clock)
    await daily.start()
    rng = random.Random(27)
    mean = size.answers / (size.days * size.members)
    rates = [min(1.0, mean * -math.log(1.0 - rng.random())) for _ in range(size.members)]
    skill = [rng.gauss(0.8, 0.8) for _ in range(size.members)]
    difficulty = {q.id: rng.gauss(0.0, 0.7) for q in bank.all_questions(None)}
    answers = 0
    try:
        await daily.configs.configure(GUILD, CHANNEL, "09:00", "UTC", locale="en")
        for k in range(size.days):
            day = FIRST_DAY + timedelta(days=k)
            clock.now = post_time(day)
            choice = await daily.posts.choose(GUILD, day, None, 30)
            reveal = clock.now + timedelta(hours=23)
            reason = choice.reason.to_dict()
            post = await posts_store.claim(
                daily.db, GUILD, day, choice.question_id, CHANNEL, reveal, clock.now, reason
            )
            assert post is not None and post.id is not None
            await daily.posts.set_message(post.id, 10**18 + post.id, clock.now)
            found = await daily.answers.post_by_message(10**18 + post.id)
            assert found is not None
            question = bank.question(choice.question_id)
            wrong = [i for i in range(question.n_choices) if i != question.answer]
            records = []
            for m in range(size.members):
                if rng.random() >= rates[m]:
                    continue
                right = rng.random() < 1 / (1 + math.exp(difficulty[question.id] - skill[m]))
                picked = question.answer if right else rng.choice(wrong)
                at = clock.now + timedelta(minutes=rng.uniform(1, 600))
                records.append(daily.answers.record(found, size.member(m), picked, at))
            answers += len(records)
            await asyncio.gather(*records)
            clock.now = reveal
            await daily.settling.settle(post.id, clock.now)
        counts = await _counts(db)
    finally:
        await daily.close()
        await db.close()
    return Built(answers=answers, seconds=time.perf_counter() - start, **counts)


async def _counts(db: Database) -> dict[str, Any]:
    async with db.engine.connect() as conn:
        posts = (await conn.exec_driver_sql("SELECT count(*) FROM daily_post")).scalar_one()
        cards = (await conn.exec_driver_sql("SELECT count(*) FROM review_card")).scalar_one()
        members = (await conn.exec_driver_sql("SELECT count(*) FROM class_member")).scalar_one()
        if db.is_sqlite:
            pages = (await conn.exec_driver_sql("PRAGMA page_count")).scalar_one()
            page = (await conn.exec_driver_sql("PRAGMA page_size")).scalar_one()
            mib = pages * page / 2**20
        else:
            mib = (
                await conn.exec_driver_sql("SELECT pg_database_size(current_database())")
            ).scalar_one() / 2**20
    return {"posts": posts, "cards": cards, "class_members": members, "size_mib": mib}


async def cached(size: Size, bank: QuizBank, workdir: Path) -> tuple[str, Built, bool]:
    """A fresh copy of the built server for one run: (url, what the build made, built now)."""
    return await cached_build(
        cache_name(size), f"qt_scale_*_{size.key}", lambda url: build(url, size, bank), workdir
    )


async def cached_build(
    name: str, family: str, make: Callable[[str], Awaitable[Built]], workdir: Path
) -> tuple[str, Built, bool]:
    """A fresh copy of the database `name`, built by `make(url)` the first time and kept
    (a SQLite file in RESULTS, or a PostgreSQL template database beside its metadata);
    older builds of its `family` (a glob: `*` for what differs) are dropped first."""
    if BACKEND.name == "sqlite":
        RESULTS.mkdir(parents=True, exist_ok=True)
        stored, meta = RESULTS / f"{name}.db", RESULTS / f"{name}.json"
        fresh = not (stored.exists() and meta.exists())
        if fresh:
            for old in RESULTS.glob(f"{family}.*"):
                if not old.name.endswith(".pg.json"):  # PostgreSQL's builds stay
                    old.unlink()
            partial = RESULTS / f"{name}.building.db"
            partial.unlink(missing_ok=True)
            built = await make(f"sqlite+aiosqlite:///{partial}")
            partial.rename(stored)
            partial.with_name(partial.name + ".migrate-lock").unlink(missing_ok=True)
            meta.write_text(json.dumps(asdict(built)))
        copy = workdir / f"{name}.db"
        shutil.copyfile(stored, copy)
        return f"sqlite+aiosqlite:///{copy}", Built(**json.loads(meta.read_text())), fresh
    return await _cached_pg(name, family, make)


async def _cached_pg(
    name: str, family: str, make: Callable[[str], Awaitable[Built]]
) -> tuple[str, Built, bool]:
    from sqlalchemy.engine import make_url

    from testkit.databases import create_pg_database

    admin = BACKEND.pg_admin_url
    exists = await _pg(admin, "SELECT 1 FROM pg_database WHERE datname = $1", name)
    meta = RESULTS / f"{name}.pg.json"
    fresh = not (exists and meta.exists())
    if fresh:
        pattern = family.replace("*", "%")
        for old in await _pg(
            admin, "SELECT datname FROM pg_database WHERE datname LIKE $1", pattern
        ):
            await _pg(admin, f'DROP DATABASE IF EXISTS "{old[0]}" WITH (FORCE)')
        await _pg(admin, f'CREATE DATABASE "{name}"')
        url = make_url(admin).set(drivername="postgresql+asyncpg", database=name)
        built = await make(url.render_as_string(hide_password=False))
        RESULTS.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps(asdict(built)))
    return create_pg_database(admin, template=name), Built(**json.loads(meta.read_text())), fresh


async def _pg(admin_url: str, sql: str, *args: Any) -> list[Any]:
    import asyncpg
    from sqlalchemy.engine import make_url

    dsn = make_url(admin_url).set(drivername="postgresql").render_as_string(hide_password=False)
    conn = await asyncpg.connect(dsn)
    try:
        return list(await conn.fetch(sql, *args))
    finally:
        await conn.close()
