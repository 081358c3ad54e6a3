"""Budget 4: `/demo accumulation` (defaults), command -> final message with its plot.

Warm: the bot's own worker, warmed up at bot start (`DemoRunner.start` in setup_hook).
Cold: a fresh worker that imported torch but ran nothing (`warm_up=False`) swapped in.
Baseline (same run): the time the worker itself reports for the demo (compute + plot,
"Ran on ... in X s"), so the ratio is the bot's + IPC's + Discord's share.
`cuda` (full run, where a GPU is present): the same demo on a CUDA worker, beside the
CPU figure. `probe` (full run only) splits the worker time into compute and plotting, first call
vs later calls, one torch thread vs torch's default, in a separate process.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time

from bench.common import DemoBot, Row, demo_bot, median, new_members, summary
from bot.demos.runner import DemoRunner

NAME = "demo"
REPEATS = 3
PROBE_RUNS = 4  # run0 pays first-call costs; the figure is the median of the others

PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
import torch
torch.set_num_threads(int(sys.argv[1]) or torch.get_num_threads())
from experiments import accumulation
from experiments._common import resolve_device
dev = resolve_device("cpu")
out = {"import_s": time.perf_counter() - t0, "threads": torch.get_num_threads()}
for i in range(int(sys.argv[2])):  # run0 pays first-call costs; the /demo defaults (8 x 4)
    t = time.perf_counter(); numbers = accumulation.compute(dev, 8, 4); c = time.perf_counter() - t
    t = time.perf_counter(); accumulation.plot(numbers); p = time.perf_counter() - t
    out[f"run{i}"] = {"compute_s": round(c, 3), "plot_s": round(p, 3)}
print(json.dumps(out))
"""


async def one_demo(env: DemoBot, tag: str) -> tuple[float, float]:
    """(seconds command -> final message with the plot, seconds the worker reported)."""
    (member,) = new_members(env.fake, 1, tag)
    start = time.perf_counter()
    res = await env.fake.slash(member, "demo", name="accumulation")
    final = await res.wait_original(lambda m: bool(m.attachments), timeout=120)
    total = time.perf_counter() - start
    fields = {f["name"]: f["value"] for f in final.embeds[0]["fields"]}
    found = re.search(r"in (\d+\.\d+) s", fields.get("Ran on", ""))
    return total, float(found.group(1)) if found else float("nan")


def probe(threads: int) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(threads), str(PROBE_RUNS)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


CUDA_PROBE = (
    "import torch; print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else '')"
)


def cuda_device() -> str:
    """The GPU's name, or '' (asked in a child: the bench process hosts the bot, which
    never imports torch)."""
    out = subprocess.run(
        [sys.executable, "-c", CUDA_PROBE], capture_output=True, text=True, timeout=120
    )
    return out.stdout.strip() if out.returncode == 0 else ""


async def cuda_rows(env: DemoBot, samples: int, cpu_warm: float) -> list[Row]:
    """`/demo accumulation` on a GPU worker (CUDA warm-up at its start), beside the CPU
    figure of the same run; nothing where no GPU is present."""
    name = await asyncio.to_thread(cuda_device)
    if not name:
        return []
    demos = env.bot.services.demos
    gpu = DemoRunner(device="cuda")
    spawn = time.perf_counter()
    await gpu.start()
    start_s = time.perf_counter() - spawn
    env.bot.services.demos = gpu
    try:
        runs = [await one_demo(env, f"cuda{i}") for i in range(samples)]
    finally:
        env.bot.services.demos = demos
        await gpu.close()
    total, n, spread = summary([t for t, _ in runs])
    return [
        Row(
            NAME,
            "warm median on CUDA, command -> plot",
            total,
            "s",
            "(info)",
            None,
            baseline=cpu_warm,
            baseline_what="CPU warm median, same run",
            n=n,
            spread=spread,
            note=f"{name}; in-worker {median([w for _, w in runs]):.3f} s (timed after a"
            f" synchronise); first demo {runs[0][0]:.3f} s; worker start with CUDA warm-up"
            f" {start_s:.1f} s",
        )
    ]


async def run(quick: bool) -> list[Row]:
    samples = 1 if quick else 5
    env = await demo_bot()
    info = env.bot.services.demos.worker_info if env.bot.services.demos else {}
    warm = [await one_demo(env, f"warm{i}") for i in range(samples)]
    warm_total = median([t for t, _ in warm])
    worker_s = median([w for _, w in warm])
    rows = [
        Row(
            NAME,
            "warm median, command -> plot",
            warm_total,
            "s",
            "<=1.0 s",
            warm_total <= 1.0,
            baseline=worker_s,
            baseline_what="in-worker compute+plot",
            n=samples,
            spread=(min(t for t, _ in warm), max(t for t, _ in warm)),
            note=f"worker start {info.get('ready_s')} s "
            f"(torch import {info.get('import_s')} s), bot start -> warm {env.warmup_s:.1f} s, "
            "in parallel with READY",
        )
    ]
    if not quick:
        demos = env.bot.services.demos
        assert demos is not None
        cold: list[tuple[float, float, float]] = []
        for rep in range(REPEATS):
            fresh = DemoRunner(device="cpu", warm_up=False)
            spawn = time.perf_counter()
            await fresh.start()
            spawn_s = time.perf_counter() - spawn
            env.bot.services.demos = fresh
            try:
                cold.append((*await one_demo(env, f"cold{rep}"), spawn_s))
            finally:
                env.bot.services.demos = demos
                await fresh.close()
        cold_total, reps, cold_spread = summary([c[0] for c in cold])
        cold_worker = median([c[1] for c in cold])
        spawn_s = median([c[2] for c in cold])
        rows.append(
            Row(
                NAME,
                "cold, fresh worker (torch imported, no warm-up)",
                cold_total,
                "s",
                "(info)",
                None,
                baseline=warm_total,
                baseline_what="warm median",
                n=reps,
                spread=cold_spread,
                note=f"in-worker {cold_worker:.2f} s; spawn+import before it {spawn_s:.1f} s",
            )
        )
        cuda = await cuda_rows(env, samples, warm_total)
        rows += cuda
        if not cuda:
            print(
                "[bench]   demo: no CUDA device here; the CUDA row runs where one is present",
                file=sys.stderr,
            )
        # One after the other: in parallel they would share the 2 cores.
        one = await asyncio.to_thread(probe, 1)
        default = await asyncio.to_thread(probe, 0)
        later = [one[f"run{i}"] for i in range(1, PROBE_RUNS)]  # run0 pays first-call costs
        plot_s, probe_n, plot_spread = summary([float(r["plot_s"]) for r in later])  # type: ignore[index]
        rows.append(
            Row(
                NAME,
                "probe: plot share of a warm run",
                plot_s,
                "s",
                "(info)",
                None,
                baseline=median([float(r["compute_s"]) for r in later]),  # type: ignore[index]
                baseline_what="compute",
                better="",
                n=probe_n,
                spread=plot_spread,
                note=f"1 thread: {one}; default threads: {default}",
            )
        )
    return rows
