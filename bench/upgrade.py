"""Issue 37: the day a big server upgrades.

A year of a server of 10,000 members and 1,000,000 daily answers, written at the oldest
schema revision (`bench.old_build`, cached), is upgraded to head by the project's own
migrations, as the bot does at its first start after `git pull`; the time is the whole
`Database.migrate_to("head")`. Then the first day: the bot's daily service starts with the
class backfill (`bot.learning.recall_backfill`, as `bot.container` starts it) and at once
the day's question is chosen (`daily.posts.choose`, what `/daily now` and the scheduled
post wait for) while thousands of members are still to be folded into the class recall;
then the backfill is awaited, and a choice on a folded class (any later day) is the
baseline. Each run works on a fresh copy; figures are medians of 3 runs.

Checks that hold at any size: every settled daily answer is in the review log once, the
`/me` calendar counts each of them once, and every card the log names exists.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime

from bench.common import BACKEND, Row, ms, summary, workdir
from bench.old_build import OLDEST_REVISION, cached_old
from bench.scale_build import GUILD, Built, Size
from bot.daily.service import DailyService
from bot.db.database import Database
from bot.learning.recall_backfill import ClassBackfill
from bot.quizbank.files import SHIPPED_DIR, load_bank

NAME = "upgrade"
SIZE = Size(10_000, 1_000_000)
QUICK_SIZE = Size(40, 1_500, 40)
REPEATS = 3
UPGRADE_BUDGET_S = 30.0
CHOICE_BUDGET_MS = 500.0  # `/daily now` to its reply, the first day as any other


@dataclass
class Run:
    upgrade_s: float
    first_choice_s: float
    backfill_s: float
    later_choice_s: float
    folded: int
    problems: list[str]
    built: Built
    fresh: bool


async def _scalar(db: Database, sql: str) -> int:
    async with db.engine.connect() as conn:
        return int((await conn.exec_driver_sql(sql)).scalar_one())


async def _problems(db: Database) -> list[str]:
    settled = await _scalar(
        db,
        "SELECT count(*) FROM daily_answer a JOIN daily_post p ON p.id = a.post_id WHERE p.settled",
    )
    logged = await _scalar(db, "SELECT count(*) FROM review_log")
    counted = await _scalar(db, "SELECT coalesce(sum(answers), 0) FROM member_activity")
    cards = await _scalar(db, "SELECT count(*) FROM review_card")
    named = await _scalar(
        db, "SELECT count(*) FROM (SELECT DISTINCT user_id, question_id FROM review_log) c"
    )
    out = []
    if logged != settled:
        out.append(f"review log {logged:,} != {settled:,} settled answers")
    if counted != logged:
        out.append(f"/me calendar {counted:,} != {logged:,} answers")
    if cards != named:
        out.append(f"review cards {cards:,} != {named:,} cards in the log")
    return out


async def one_run(size: Size) -> Run:
    bank = load_bank([SHIPPED_DIR])
    with workdir() as tmp:
        url, built, fresh = await cached_old(size, bank, tmp)
        db = await Database.open(url, migrate=False)
        try:
            start = time.perf_counter()
            await db.migrate_to("head")
            upgrade_s = time.perf_counter() - start
            problems = await _problems(db)
            daily = DailyService(db, bank)
            await daily.start()
            backfill = ClassBackfill(db, daily.clock)
            try:
                started = time.perf_counter()
                backfill.start()
                today = datetime.now(UTC).date()
                await daily.posts.choose(GUILD, today, None, 30)
                first_choice_s = time.perf_counter() - started
                await backfill.done()
                backfill_s = time.perf_counter() - started
                start = time.perf_counter()
                await daily.posts.choose(GUILD, today, None, 30)
                later_choice_s = time.perf_counter() - start
            finally:
                await backfill.close()
                await daily.close()
        finally:
            await db.close()
    return Run(
        upgrade_s,
        first_choice_s,
        backfill_s,
        later_choice_s,
        backfill.folded,
        problems,
        built,
        fresh,
    )


async def run(quick: bool) -> list[Row]:
    size = QUICK_SIZE if quick else SIZE
    runs = [await one_run(size) for _ in range(1 if quick else REPEATS)]
    problems = sorted({p for r in runs for p in r.problems})
    for problem in problems:
        print(f"[bench] upgrade: {problem}")
    upgrade, n, spread = summary([r.upgrade_s for r in runs])
    first, _, first_spread = summary([ms(r.first_choice_s) for r in runs])
    later, _, _ = summary([ms(r.later_choice_s) for r in runs])
    backfill, _, backfill_spread = summary([r.backfill_s for r in runs])
    built = runs[0].built
    where = "SQLite" if BACKEND.name == "sqlite" else "PostgreSQL"
    note = (
        f"{'built now' if runs[0].fresh else 'cached'}: {built.answers:,} answers written at"
        f" revision {OLDEST_REVISION} in {built.seconds:.0f} s; {where}"
    )
    return [
        Row(
            NAME,
            f"a year at revision {OLDEST_REVISION} to head, {size.label}",
            upgrade,
            "s",
            f"<={UPGRADE_BUDGET_S:.0f} s",
            upgrade <= UPGRADE_BUDGET_S,
            n=n,
            spread=spread,
            note=note,
            checked=not problems,
        ),
        Row(
            NAME,
            "first daily choice after it, the class still being folded",
            first,
            "ms",
            f"<={CHOICE_BUDGET_MS:.0f} ms",
            first <= CHOICE_BUDGET_MS,
            baseline=later,
            baseline_what="class folded, same run",
            n=n,
            spread=first_spread,
        ),
        Row(
            NAME,
            f"class folded in the background after start ({runs[0].folded:,} members)",
            backfill,
            "s",
            "(info)",
            None,
            n=n,
            spread=backfill_spread,
        ),
    ]
