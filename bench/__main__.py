"""`python -m bench [--quick] [--only NAME ...] [--db postgres --pg-url URL]`.

Runs the benchmarks and prints the table. `--db postgres` runs the database-bound ones
(reactions, schedule, unless --only says otherwise) on SQLite and then on PostgreSQL
(each in its own database created through the admin URL `--pg-url`, default
$QUIZTUTOR_TEST_PG_URL), with a row per figure giving the ratio PostgreSQL / SQLite.

Exit status: 0 all budgets met, 1 a budget missed, 2 a benchmark crashed.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import sys
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import replace

from bench import common
from bench.common import Row, close_shared, format_table

# Order: the cheap, in-process ones first; module name == benchmark name.
BENCHMARKS = (
    "reactions",
    "grading_latency",
    "steady",
    "interactions",
    "live",
    "demo",
    "generated",
    "memory",
    "schedule",
    "shards",
    "charts",
    "scale",
    "upgrade",
    "scale_wire",
)
DB_BOUND = (
    "reactions",
    "steady",
    "live",
    "schedule",
    "shards",
    "scale",
    "upgrade",
    "scale_wire",
)


def load(name: str) -> Callable[[bool], Awaitable[list[Row]]]:
    module = importlib.import_module(f"bench.{name}")
    return module.run  # type: ignore[no-any-return]


async def run_all(names: list[str], quick: bool) -> tuple[list[Row], list[str]]:
    rows: list[Row] = []
    crashed: list[str] = []
    for name in names:
        start = time.perf_counter()
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        try:
            got = await load(name)(quick)
        except Exception:
            traceback.print_exc()
            crashed.append(name)
            continue
        rows += got
        print(f"[bench] {name} done in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        for row in got:
            if row.note:
                print(f"[bench]   {row.metric}: {row.note}", file=sys.stderr)
    await close_shared()
    return rows, crashed


async def run_both(names: list[str], quick: bool, pg_url: str) -> tuple[list[Row], list[str]]:
    """Each benchmark on SQLite, then on PostgreSQL, then PostgreSQL / SQLite per figure."""
    rows: list[Row] = []
    crashed: list[str] = []
    for name in names:
        common.BACKEND.name, common.BACKEND.pg_admin_url = "sqlite", ""
        on_sqlite, failed = await run_all([name], quick)
        common.BACKEND.name, common.BACKEND.pg_admin_url = "postgres", pg_url
        try:
            on_pg, failed_pg = await run_all([name], quick)
        finally:
            common.BACKEND.name = "sqlite"
        crashed += failed + [f"{n} (postgres)" for n in failed_pg]
        rows += [replace(r, metric=f"{r.metric} [SQLite]") for r in on_sqlite]
        rows += [replace(r, metric=f"{r.metric} [PostgreSQL]") for r in on_pg]
        lite = {r.metric: r for r in on_sqlite}
        for row in on_pg:
            base = lite.get(row.metric)
            if base is None:
                continue
            rows.append(
                Row(
                    row.bench,
                    f"{row.metric}: PostgreSQL vs SQLite",
                    row.figure,
                    row.unit,
                    "(info)",
                    None,
                    baseline=base.figure,
                    baseline_what="SQLite, same run",
                    n=row.n,
                    n_what=row.n_what,
                    spread=row.spread,
                )
            )
    return rows, crashed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    parser.add_argument(
        "--only",
        action="append",
        choices=BENCHMARKS,
        metavar="NAME",
        help=f"run only this benchmark (repeatable): {', '.join(BENCHMARKS)}",
    )
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument(
        "--db",
        choices=("sqlite", "postgres"),
        default="sqlite",
        help="postgres: run on SQLite, then on PostgreSQL, and compare (same run)",
    )
    parser.add_argument(
        "--pg-url",
        default=os.environ.get("QUIZTUTOR_TEST_PG_URL", ""),
        help="admin URL of a PostgreSQL server, e.g. postgresql+asyncpg://postgres@127.0.0.1/postgres",
    )
    args = parser.parse_args(argv)
    if args.db == "postgres" and not args.pg_url:
        parser.error("--db postgres needs --pg-url (or QUIZTUTOR_TEST_PG_URL)")
    # The bot logs at INFO per post/answer; only problems belong in a benchmark's output.
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("discord.client").setLevel(logging.ERROR)  # "PyNaCl is not installed"
    start = time.perf_counter()
    if args.db == "postgres":
        rows, crashed = asyncio.run(run_both(args.only or list(DB_BOUND), args.quick, args.pg_url))
    else:
        rows, crashed = asyncio.run(run_all(args.only or list(BENCHMARKS), args.quick))
    print(format_table(rows, markdown=args.markdown))
    print(f"\ntotal {time.perf_counter() - start:.0f} s{' (quick sizes)' if args.quick else ''}")
    if crashed:
        print(f"crashed: {', '.join(crashed)}", file=sys.stderr)
        return 2
    if any(r.checked is False for r in rows):
        return 1  # a wrong result: lost, doubled or out-of-order work, at any size
    if args.quick:
        return 0  # budgets say nothing at tiny sizes on a shared machine
    return 1 if any(r.passed is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
