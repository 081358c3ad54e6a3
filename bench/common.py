"""Shared helpers of the benchmarks: timing, percentiles, the results table, the stand-in.

Every benchmark returns `Row`s: a figure, its budget, a baseline measured in the same
run and the ratio between them. The machines are shared and noisy, so the ratio is
what to compare between runs; the absolute figure is what the budget is about. A row
says how many repeats (or samples) its figure summarises and their spread (min-max),
and which way its ratio is better.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import sqlite3
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import discord
import orjson

from bot.daily import posts_store
from bot.daily.jobs import DailyJobs
from bot.daily.types import OpenPost
from bot.discord.client import QuizTutorBot
from testkit.bots import make_settings
from testkit.standin.client import run_client, serving_stand_in
from testkit.standin.server import FakeDiscord
from testkit.times import noon_zone

# Bounded waits everywhere: a broken bot fails the benchmark instead of hanging it.
WAIT_S = 60.0


@dataclass
class Row:
    """One line of the results table."""

    bench: str
    metric: str
    figure: float
    unit: str
    budget: str
    passed: bool | None  # None: informational, no budget
    baseline: float | None = None
    baseline_what: str = ""
    note: str = ""
    # A budget on the ratio figure/baseline, e.g. ">=10x".
    ratio_budget: str = ""
    # How many repeats (or samples) the figure summarises, and their min-max; n=1 is one run.
    n: int = 1
    n_what: str = "runs"
    spread: tuple[float, float] | None = None
    # Which way is better for this figure (and so for its ratio to the baseline):
    # "higher" (a rate), "lower" (a time, a size, a cost) or "" (neither: information).
    better: str = "auto"
    # A correctness check that holds at any size (every answer counted once, every post
    # out once and in order): None when the row has none. `--quick` fails only on these.
    checked: bool | None = None

    def __post_init__(self) -> None:
        if self.better == "auto":
            self.better = "higher" if self.unit.endswith("/s") else "lower"

    @property
    def ratio(self) -> float | None:
        if self.baseline is None or self.baseline == 0:
            return None
        return self.figure / self.baseline


def summary(values: Sequence[float]) -> tuple[float, int, tuple[float, float]]:
    """(median, n, (min, max)) of repeated measurements: `Row(..., fig, n=n, spread=s)`."""
    return median(values), len(values), (min(values), max(values))


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, q in [0, 100] (numpy's default method)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else math.nan


def ms(seconds: float) -> float:
    return seconds * 1000.0


def _fmt(value: float | None, unit: str = "") -> str:
    if value is None or math.isnan(value):
        return "-"
    text = f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"
    return f"{text} {unit}".strip()


def _n_spread(r: Row) -> str:
    text = f"{r.n:,} {r.n_what}" if r.n != 1 else f"1 {r.n_what.rstrip('s')}"
    if r.spread is not None and r.n > 1:
        lo, hi = r.spread
        text += f", {_fmt(lo)}\u2013{_fmt(hi, r.unit)}"
    return text


def _ratio(r: Row) -> str:
    ratio = r.ratio
    if ratio is None:
        return "-"
    way = {"higher": "higher is better", "lower": "lower is better"}.get(r.better, "info")
    return f"{ratio:.2f}x ({way}{'; ' + r.ratio_budget if r.ratio_budget else ''})"


def format_table(rows: Iterable[Row], markdown: bool = False) -> str:
    header = (
        "benchmark",
        "figure",
        "n, spread (min\u2013max)",
        "budget",
        "baseline",
        "ratio",
        "pass",
    )
    lines: list[tuple[str, ...]] = [header]
    for r in rows:
        verdict = "-" if r.passed is None else ("PASS" if r.passed else "FAIL")
        lines.append(
            (
                f"{r.bench}: {r.metric}",
                _fmt(r.figure, r.unit),
                _n_spread(r),
                r.budget,
                f"{_fmt(r.baseline, r.unit)} ({r.baseline_what})" if r.baseline_what else "-",
                _ratio(r),
                verdict,
            )
        )
    if markdown:  # the README's table
        out = ["| " + " | ".join(line) + " |" for line in lines]
        out.insert(1, "| " + " | ".join("---" for _ in header) + " |")
        return "\n".join(out)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = [" | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines]
    out.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(out)


def rss_mib(pid: int | str = "self") -> float:
    """Resident set size from /proc (psutil is not a dependency)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


class Stopwatch:
    """`with Stopwatch() as sw: ...; sw.s` (perf_counter seconds)."""

    def __enter__(self) -> Stopwatch:
        self.start = time.perf_counter()
        self.s = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.s = time.perf_counter() - self.start


# -- the Discord stand-in and the real bot --------------------------------------------


@contextlib.asynccontextmanager
async def stand_in() -> AsyncIterator[FakeDiscord]:
    """The same stand-in the tests use, without pytest's unknown-route check. Without
    Discord's IDENTIFY window: a benchmark starts bots one after another on it and
    measures them, not the 5 s pacing (tests/discord/test_identify.py checks that)."""
    async with serving_stand_in() as fake:
        fake.identify_window_s = 0
        yield fake


@dataclass
class Backend:
    """The database the benchmarks run on (`python -m bench --db postgres --pg-url URL`)."""

    name: str = "sqlite"
    pg_admin_url: str = ""  # an admin connection; each work dir gets its own database


BACKEND = Backend()
_databases: dict[Path, str] = {}


@contextlib.contextmanager
def workdir() -> Any:
    from testkit.databases import drop_pg_database

    with tempfile.TemporaryDirectory(prefix="quiztutor-bench-") as tmp:
        try:
            yield Path(tmp)
        finally:
            url = _databases.pop(Path(tmp), None)
            if url is not None:
                drop_pg_database(url)


def db_url(tmp: Path) -> str:
    """The database of a work dir: a SQLite file in it, or its own PostgreSQL database."""
    if BACKEND.name == "sqlite":
        return f"sqlite+aiosqlite:///{tmp / 'quiztutor.db'}"
    if tmp not in _databases:
        from testkit.databases import create_pg_database

        _databases[tmp] = create_pg_database(BACKEND.pg_admin_url)
    return _databases[tmp]


@contextlib.asynccontextmanager
async def running_bot(
    fake: FakeDiscord, tmp: Path, *, sync: bool = False, **overrides: Any
) -> AsyncIterator[QuizTutorBot]:
    """The real QuizTutorBot on a SQLite file in `tmp`, connected to the stand-in (as the
    e2e tests start it); `sync` registers its commands in the stand-in's guild."""
    overrides.setdefault("database_url", db_url(tmp))
    overrides.setdefault("identify_spacing_s", 0)  # the stand-in's window is off too
    bot = QuizTutorBot(make_settings(tmp, **overrides))
    async with run_client(bot, fake, timeout=WAIT_S):
        if sync:
            guild = discord.Object(id=fake.guild.id)
            bot.tree.copy_global_to(guild=guild)
            await bot.tree.sync(guild=guild)
        yield bot


def jobs_of(bot: QuizTutorBot) -> DailyJobs:
    jobs = getattr(bot.get_cog("DailyCog"), "jobs", None)
    assert isinstance(jobs, DailyJobs), "the daily cog has no DailyJobs"
    return jobs


@contextlib.contextmanager
def awaited_path(bot: QuizTutorBot) -> Iterator[None]:
    """Answer reactions take the awaited path: a task per reaction awaits
    `DailyJobs.on_reaction` and its commit, instead of the synchronous `grade_and_queue`."""
    jobs = jobs_of(bot)
    jobs.reactions.grade_and_queue = lambda *args: False  # type: ignore[method-assign]
    try:
        yield
    finally:
        del jobs.reactions.grade_and_queue


def gateway_ws(bot: QuizTutorBot) -> Any:
    """Shard 0's DiscordWebSocket (discord.py's real frame parser)."""
    info = bot.get_shard(0)
    assert info is not None, "not connected"
    return info._parent.ws


async def open_daily_post(
    bot: QuizTutorBot, guild_id: int, channel_id: int, day_offset: int = 0
) -> tuple[OpenPost, int]:
    """A posted, open daily question on a made-up message id; returns (post, n_choices).

    Reaction grading only needs the post in the daily service; no Discord message is
    needed because the handler never reads the message.
    """
    daily = bot.services.daily
    await daily.configs.configure(guild_id, channel_id, "12:00", "UTC", locale="en")
    day = datetime.now(UTC).date() + timedelta(days=day_offset)
    question = daily.bank.all_questions(None)[0]
    post = await posts_store.claim(
        daily.db,
        guild_id,
        day,
        question.id,
        channel_id,
        datetime.now(UTC) + timedelta(days=2),
        daily.clock(),
    )
    assert post is not None and post.id is not None
    message_id = (1 << 60) + post.id
    await daily.posts.set_message(post.id, message_id)
    found = await daily.answers.post_by_message(message_id, channel_id)
    assert found is not None
    n_choices = len(next(iter(question.choices.values())))
    return found, n_choices


def reaction_frame(seq: int, post: OpenPost, user_id: int, emoji: str) -> str:
    """A MESSAGE_REACTION_ADD gateway frame as Discord sends it (member included)."""
    user = {
        "id": str(user_id),
        "username": f"u{user_id}",
        "discriminator": "0",
        "global_name": None,
        "avatar": None,
    }
    data = {
        "user_id": str(user_id),
        "channel_id": str(post.channel_id),
        "message_id": str(post.message_id),
        "guild_id": str(post.guild_id),
        "emoji": {"id": None, "name": emoji},
        "burst": False,
        "burst_colors": [],
        "type": 0,
        "message_author_id": "1",
        "member": {
            "user": user,
            "roles": [],
            "nick": None,
            "avatar": None,
            "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
        },
    }
    return orjson.dumps({"op": 0, "t": "MESSAGE_REACTION_ADD", "s": seq, "d": data}).decode()


def count_rows(tmp: Path, sql: str, params: Sequence[Any] = ()) -> int:
    """A read on a separate connection (`?` placeholders): sees only committed rows."""
    from testkit.databases import db_rows

    return int(db_rows(db_url(tmp), sql, tuple(params))[0][0])


# -- one bot with a warm demo worker, shared by the benchmarks that need it ---------------


@dataclass
class DemoBot:
    fake: FakeDiscord
    bot: QuizTutorBot
    tmp: Path
    warmup_s: float  # bot start until the worker finished its warm-up


_shared: tuple[contextlib.AsyncExitStack, DemoBot] | None = None


async def demo_bot() -> DemoBot:
    """The stand-in + a bot with its warm torch worker, started once per run (the worker's
    spawn, torch import and warm-up cost seconds; `interactions` and `demo` share it)."""
    global _shared
    if _shared is None:
        stack = contextlib.AsyncExitStack()
        fake = await stack.enter_async_context(stand_in())
        tmp = stack.enter_context(workdir())
        start = time.perf_counter()
        bot = await stack.enter_async_context(
            running_bot(fake, tmp, sync=True, demo_worker=True, demo_device="cpu")
        )
        await asyncio.wait_for(bot.services.demo_warmup, 180)
        _shared = (stack, DemoBot(fake, bot, tmp, time.perf_counter() - start))
    return _shared[1]


async def close_shared() -> None:
    global _shared
    if _shared is not None:
        stack, _shared = _shared[0], None
        await stack.aclose()


def new_members(fake: FakeDiscord, count: int, prefix: str) -> list[Any]:
    """Fresh guild members (no cooldowns, no open quiz sessions)."""
    users = [fake.add_user(f"{prefix}{i}") for i in range(count)]
    for user in users:
        fake.add_member(fake.guild, user)
    return users


async def seed_database(
    tmp: Path,
    channels: Sequence[int],
    guild_ids: Sequence[int],
    post_times: Sequence[str],
    answers: int = 0,
) -> None:
    """Migrate, then bulk-insert daily configs (one per guild) and settled posts carrying
    `answers` answers (1,000 per post), with plain sqlite3: seeding is not what we time."""
    from bot.db.database import Database

    db = await Database.open(db_url(tmp))
    await db.close()
    zone, _ = noon_zone()
    if BACKEND.name != "sqlite":
        await _seed_postgres(db_url(tmp), zone, channels, guild_ids, post_times, answers)
        return
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    with contextlib.closing(sqlite3.connect(tmp / "quiztutor.db")) as conn:
        conn.executemany(
            "INSERT INTO guild_daily_config (guild_id, channel_id, post_time, timezone, topic,"
            " reveal_after_hours, enabled, locale, disabled_reason, admin_notified, updated_at)"
            " VALUES (?, ?, ?, ?, NULL, NULL, 1, 'en', NULL, 0, ?)",
            [
                (g, c, t, zone, stamp)
                for g, c, t in zip(guild_ids, channels, post_times, strict=True)
            ],
        )
        per_post = 1000
        for p in range(answers // per_post):
            day = (datetime.now(UTC).date() - timedelta(days=p + 1)).isoformat()
            cur = conn.execute(
                "INSERT INTO daily_post (guild_id, day, question_id, channel_id, message_id,"
                " claimed_at, posted_at, reveal_at, settled) VALUES (?, ?, 'ga-01', ?, ?, ?, ?, ?, 1)",
                (guild_ids[0], day, channels[0], 10**17 + p, stamp, stamp, stamp),
            )
            conn.executemany(
                "INSERT INTO daily_answer (post_id, user_id, choice, correct, answered_at)"
                " VALUES (?, ?, ?, ?, ?)",
                [(cur.lastrowid, 10**15 + u, u % 4, u % 4 == 0, stamp) for u in range(per_post)],
            )
        conn.commit()


async def _seed_postgres(
    url: str,
    zone: str,
    channels: Sequence[int],
    guild_ids: Sequence[int],
    post_times: Sequence[str],
    answers: int,
) -> None:
    """`seed_database` on PostgreSQL, with plain asyncpg (datetimes, booleans)."""
    import asyncpg
    from sqlalchemy.engine import make_url

    conn = await asyncpg.connect(
        make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    )
    now = datetime.now(UTC).replace(tzinfo=None)
    try:
        await conn.executemany(
            "INSERT INTO guild_daily_config (guild_id, channel_id, post_time, timezone, topic,"
            " reveal_after_hours, enabled, locale, disabled_reason, admin_notified, updated_at)"
            " VALUES ($1, $2, $3, $4, NULL, NULL, true, 'en', NULL, false, $5)",
            [(g, c, t, zone, now) for g, c, t in zip(guild_ids, channels, post_times, strict=True)],
        )
        per_post = 1000
        for p in range(answers // per_post):
            day = datetime.now(UTC).date() - timedelta(days=p + 1)
            post_id = await conn.fetchval(
                "INSERT INTO daily_post (guild_id, day, question_id, channel_id, message_id,"
                " claimed_at, posted_at, reveal_at, settled)"
                " VALUES ($1, $2, 'ga-01', $3, $4, $5, $5, $5, true) RETURNING id",
                guild_ids[0],
                day,
                channels[0],
                10**17 + p,
                now,
            )
            await conn.executemany(
                "INSERT INTO daily_answer (post_id, user_id, choice, correct, answered_at)"
                " VALUES ($1, $2, $3, $4, $5)",
                [(post_id, 10**15 + u, u % 4, u % 4 == 0, now) for u in range(per_post)],
            )
    finally:
        await conn.close()
