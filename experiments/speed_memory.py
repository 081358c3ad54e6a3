"""Tensor memory and matmul throughput, fp32 vs bf16/fp16, measured on this device."""

from __future__ import annotations

import time
from typing import Any

import torch

from experiments._common import SEED, fig_to_png, figure, fmt, generator, sync, timed_run

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
TIME_BUDGET_S = 0.12  # per dtype; keeps the demo fast even where 16-bit is slow
MEM_SHAPE = (1024, 1024)


def matmul_gflops(a: torch.Tensor, b: torch.Tensor, budget_s: float = TIME_BUDGET_S) -> float:
    """Repeat a @ b until the time budget is spent; return achieved GFLOP/s."""
    a @ b  # warm-up: kernel selection, lazy init
    sync(a.device)
    reps, t0 = 0, time.perf_counter()
    while True:
        a @ b
        reps += 1
        sync(a.device)  # GPU work is async: wait before reading the clock
        elapsed = time.perf_counter() - t0
        if elapsed > budget_s:
            break
    n = a.shape[0]
    return 2 * n**3 * reps / elapsed / 1e9


SNIPPET = """
a @ b  # warm-up: kernel selection, lazy init
reps, t0 = 0, time.perf_counter()
while True:
    a @ b
    reps += 1
    sync(a.device)  # GPU work is async: wait before reading the clock
    elapsed = time.perf_counter() - t0
    if elapsed > budget_s:
        break
return 2 * n**3 * reps / elapsed / 1e9
"""
SNIPPET_FUNCS = (matmul_gflops,)


def compute(dev: torch.device) -> dict[str, Any]:
    n = 4096 if dev.type == "cuda" else 256
    g = generator(dev, SEED)
    a32 = torch.randn(n, n, generator=g).to(dev)
    b32 = torch.randn(n, n, generator=g).to(dev)
    memory = {}
    gflops: dict[str, float | str] = {}
    for name, dt in DTYPES.items():
        t = torch.empty(MEM_SHAPE, dtype=dt, device=dev)
        memory[name] = t.element_size() * t.nelement()
        try:
            gflops[name] = matmul_gflops(a32.to(dt), b32.to(dt))
        except RuntimeError as exc:  # dtype matmul unsupported on this device
            gflops[name] = f"unsupported: {str(exc).splitlines()[0][:80]}"
    base = gflops["fp32"]
    speedup = {
        k: (v / base if isinstance(v, float) and isinstance(base, float) else None)
        for k, v in gflops.items()
    }
    return {
        "matmul_size": n,
        "tensor_shape": list(MEM_SHAPE),
        "tensor_bytes": memory,
        "matmul_gflops": gflops,
        "speedup_vs_fp32": speedup,
        "threads": torch.get_num_threads(),
        "note": "16-bit halves memory everywhere; speed gains need hardware support "
        "(tensor cores / AMX). On many CPUs 16-bit matmul is slower than fp32.",
    }


def plot(numbers: dict[str, Any]) -> bytes:
    names = list(numbers["tensor_bytes"])
    with figure(1, 2, figsize=(9, 3.5)) as (fig, (ax1, ax2)):
        ax1.bar(names, [numbers["tensor_bytes"][k] / 2**20 for k in names])
        ax1.set_ylabel("MiB")
        ax1.set_title(
            f"memory of a {numbers['tensor_shape'][0]}x{numbers['tensor_shape'][1]} tensor"
        )
        vals = [v if isinstance(v, float) else 0.0 for v in numbers["matmul_gflops"].values()]
        ax2.bar(names, vals, color="tab:orange")
        ax2.set_ylabel("GFLOP/s")
        n = numbers["matmul_size"]
        ax2.set_title(f"{n}x{n} matmul throughput")
        return fig_to_png(fig)


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for k in numbers["tensor_bytes"]:
        gf = numbers["matmul_gflops"][k]
        sp = numbers["speedup_vs_fp32"][k]
        rows.append(
            (
                k,
                f"{numbers['tensor_bytes'][k] / 2**20:.0f} MiB  "
                + (f"{fmt(gf)} GFLOP/s (x{fmt(sp, 2)} vs fp32)" if isinstance(gf, float) else gf),
            )
        )
    return rows


def run(dev: torch.device):
    return timed_run("speed-memory", dev, {}, lambda: compute(dev), plot, SNIPPET, highlights)
