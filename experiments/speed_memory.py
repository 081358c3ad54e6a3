"""Tensor memory and matmul throughput, fp32 vs bf16/fp16, measured on this device.

Throughput is the median of several timed samples (each long enough to swamp the clock),
with the spread shown: one short sample per dtype can flip a ratio on a busy machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from experiments._common import (
    SEED,
    elapsed_ms,
    fig_to_png,
    figure,
    fmt,
    generator,
    median_spread,
    sync,
    timed_run,
)
from experiments.cuda import kind_of
from experiments.gpu import capability_claims

DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
MEM_SHAPE = (1024, 1024)
REPEATS = 7
SAMPLE_S = {"cpu": 0.006, "cuda": 0.004}  # minimum length of one timed sample
MATMUL_N = {"cpu": 256, "cuda": 4096}
CPU_16BIT_FLAGS = ("amx_bf16", "amx_fp16", "avx512_bf16", "avx512_fp16")


def matmul_samples(a: torch.Tensor, b: torch.Tensor, min_s: float) -> list[float]:
    """GFLOP/s of ``a @ b``, REPEATS samples of ``reps`` matmuls each.

    Timed by `elapsed_ms`: CUDA events on a GPU (its kernels run after the launches
    return), the host clock on a CPU; one synchronise per sample, not per matmul."""
    a @ b  # warm-up: kernel selection, lazy init
    sync(a.device)
    reps = 1

    def run() -> None:
        for _ in range(reps):
            a @ b

    while elapsed_ms(a.device, run) < min_s * 1e3 and reps < 1 << 16:
        reps *= 2  # calibrate: enough matmuls per sample to last min_s
    n, samples = a.shape[0], []
    for _ in range(REPEATS):
        seconds = elapsed_ms(a.device, run) / 1e3
        samples.append(2 * n**3 * reps / seconds / 1e9)
    return samples


SNIPPET = """
def run() -> None:
    for _ in range(reps):
        a @ b

for _ in range(REPEATS):
    seconds = elapsed_ms(a.device, run) / 1e3
    samples.append(2 * n**3 * reps / seconds / 1e9)
"""
SNIPPET_FUNCS = (matmul_samples,)


def hardware(dev: torch.device) -> dict[str, Any]:
    """What decides 16-bit speed: tensor cores on CUDA (which dtypes they take, from the
    compute capability), AMX / AVX512-BF16 on a CPU."""
    if dev.type == "cuda":
        return capability_claims(*torch.cuda.get_device_capability(dev))
    flags: list[str] = []
    try:
        text = Path("/proc/cpuinfo").read_text()
        present = (
            set(text.split("flags", 1)[1].split("\n", 1)[0].split()) if "flags" in text else set()
        )
        flags = [f for f in CPU_16BIT_FLAGS if f in present]
    except (OSError, IndexError):
        pass
    return {"cpu_capability": torch.backends.cpu.get_cpu_capability(), "16bit_matrix_flags": flags}


def compute(dev: torch.device) -> dict[str, Any]:
    kind = "cuda" if dev.type == "cuda" else "cpu"
    n = MATMUL_N[kind]
    g = generator(dev, SEED)
    a32 = torch.randn(n, n, generator=g).to(dev)
    b32 = torch.randn(n, n, generator=g).to(dev)
    memory: dict[str, int] = {}
    gflops: dict[str, float | str] = {}
    spread: dict[str, dict[str, float]] = {}
    for name, dt in DTYPES.items():
        t = torch.empty(MEM_SHAPE, dtype=dt, device=dev)
        memory[name] = t.element_size() * t.nelement()
        try:
            stats = median_spread(matmul_samples(a32.to(dt), b32.to(dt), SAMPLE_S[kind]))
            gflops[name], spread[name] = stats["median"], stats
        except RuntimeError as exc:  # dtype matmul unsupported on this device
            if kind_of(exc) is not None:
                raise  # the GPU failed (out of memory, ...): not "unsupported"
            gflops[name] = f"unsupported: {str(exc).splitlines()[0][:80]}"
    base = gflops["fp32"]
    speedup = {
        k: (v / base if isinstance(v, float) and isinstance(base, float) else None)
        for k, v in gflops.items()
    }
    return {
        "device_type": dev.type,
        "matmul_size": n,
        "repeats": REPEATS,
        "tensor_shape": list(MEM_SHAPE),
        "tensor_bytes": memory,
        "matmul_gflops": gflops,
        "gflops_spread": spread,
        "speedup_vs_fp32": speedup,
        "threads": torch.get_num_threads(),
        # TF32 matmuls unless the precision is "highest" (PyTorch's default: fp32 stays fp32),
        # on cards that have TF32 (sm_80+); elsewhere fp32 stays fp32 whatever the setting.
        "tf32_matmul": dev.type == "cuda"
        and capability_claims(*torch.cuda.get_device_capability(dev))["tf32"]
        and torch.get_float32_matmul_precision() != "highest",
        "hardware": hardware(dev),
        "note": "16-bit halves memory everywhere; speed gains need 16-bit matrix hardware "
        "(tensor cores on GPUs, AMX/AVX512-BF16 on CPUs); without it 16-bit can be slower.",
    }


def caveat(numbers: dict[str, Any]) -> str:
    hw = numbers["hardware"]
    if numbers["device_type"] == "cuda":
        sm = hw["compute_capability"].replace(".", "")
        cores = [k for k in ("fp16", "bf16") if hw[f"tensor_cores_{k}"]]
        has = f"{' and '.join(cores)} tensor cores" if cores else "no tensor cores"
        tf32 = "TF32 on" if numbers["tf32_matmul"] else "TF32 off"
        if not hw["tf32"]:
            tf32 = "no TF32 before sm_80"
        return f"GPU sm_{sm}: {has}; fp32 matmuls {tf32}. End-to-end gains are smaller."
    flags = ", ".join(hw["16bit_matrix_flags"]) or "none"
    return (
        f"CPU caveat: no tensor cores; 16-bit is fast only with matrix extensions (found: {flags}), "
        "else it is slower than fp32."
    )


def plot(numbers: dict[str, Any]) -> bytes:
    names = list(numbers["tensor_bytes"])
    colors = ["tab:blue", "tab:orange", "tab:green"]
    with figure(1, 2, figsize=(10, 4.2)) as (fig, (ax1, ax2)):
        for k, c in zip(names, colors, strict=True):
            size = numbers["tensor_bytes"][k]
            per_value = size // (numbers["tensor_shape"][0] * numbers["tensor_shape"][1])
            ax1.bar(k, size / 2**20, color=c, label=f"{k}: {per_value} bytes per value")
        ax1.set_ylabel("MiB")
        ax1.set_xlabel("dtype")
        shape = numbers["tensor_shape"]
        ax1.set_title(f"memory of a {shape[0]}x{shape[1]} tensor", fontsize=10)
        ax1.legend(fontsize=8)
        spread = numbers["gflops_spread"]
        med = [spread[k]["median"] if k in spread else 0.0 for k in names]
        err = [
            [m - spread[k]["min"] if k in spread else 0 for m, k in zip(med, names, strict=True)],
            [spread[k]["max"] - m if k in spread else 0 for m, k in zip(med, names, strict=True)],
        ]
        ax2.bar(names, med, color=colors)
        ax2.errorbar(
            range(len(names)),
            med,
            yerr=err,
            fmt="none",
            ecolor="black",
            capsize=5,
            label=f"median of {numbers['repeats']} samples; whiskers min-max",
        )
        for i, k in enumerate(names):
            sp = numbers["speedup_vs_fp32"][k]
            if sp is not None:
                top = spread[k]["max"]
                ax2.text(i, top * 1.02, f"x{sp:.2f} vs fp32", ha="center", va="bottom", fontsize=9)
        # Every dtype unsupported: no bars, an axis that still draws.
        ax2.set_ylim(bottom=0, top=max((s["max"] for s in spread.values()), default=1.0) * 1.25)
        ax2.set_ylabel("GFLOP/s")
        ax2.set_xlabel("dtype")
        n = numbers["matmul_size"]
        ax2.set_title(f"{n}x{n} matmul throughput on {numbers['device_type']}", fontsize=10)
        ax2.legend(fontsize=8, loc="upper left")
        sp = numbers["speedup_vs_fp32"]
        speed = ", ".join(f"{k} x{sp[k]:.2f}" for k in ("bf16", "fp16") if sp[k] is not None)
        speed = speed or "16-bit matmul unsupported"
        return fig_to_png(
            fig,
            title=f"Speed and memory: fp32 vs 16-bit on {numbers['device_type']}",
            lesson=f"16-bit always halves memory; speed depends on the hardware (here {speed} "
            "vs fp32).",
            note=caveat(numbers),
            top=0.85,
            bottom=0.25,
        )


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for k in numbers["tensor_bytes"]:
        gf = numbers["matmul_gflops"][k]
        sp = numbers["speedup_vs_fp32"][k]
        if isinstance(gf, float):
            s = numbers["gflops_spread"][k]
            speed = f"{fmt(gf)} GFLOP/s [{fmt(s['min'])}-{fmt(s['max'])}] (x{fmt(sp, 2)} vs fp32)"
        else:
            speed = gf
        rows.append((k, f"{numbers['tensor_bytes'][k] / 2**20:.0f} MiB  {speed}"))
    rows.append(("caveat", caveat(numbers)))
    return rows


def run(dev: torch.device):
    return timed_run("speed-memory", dev, {}, lambda: compute(dev), plot, SNIPPET, highlights)
