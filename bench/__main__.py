"""`python -m bench [--quick] [--only NAME ...]`: run the benchmarks, print the table.

Exit status: 0 all budgets met, 1 a budget missed, 2 a benchmark crashed.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import sys
import time
import traceback
from collections.abc import Awaitable, Callable

from bench.common import Row, close_shared, format_table

# Order: the cheap, in-process ones first; module name == benchmark name.
BENCHMARKS = ("reactions", "grading_latency", "interactions", "demo", "memory", "schedule")


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
    args = parser.parse_args(argv)
    # The bot logs at INFO per post/answer; only problems belong in a benchmark's output.
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("discord.client").setLevel(logging.ERROR)  # "PyNaCl is not installed"
    start = time.perf_counter()
    rows, crashed = asyncio.run(run_all(args.only or list(BENCHMARKS), args.quick))
    print(format_table(rows))
    print(f"\ntotal {time.perf_counter() - start:.0f} s{' (quick sizes)' if args.quick else ''}")
    if crashed:
        print(f"crashed: {', '.join(crashed)}", file=sys.stderr)
        return 2
    return 1 if any(r.passed is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
