"""Accumulating dot products in fp16 vs fp32 as the reduction length grows."""

from __future__ import annotations

from typing import Any

import torch

from experiments._common import SEED, fig_to_png, figure, fmt, generator, timed_run

MAX_LEN = 4096
N_DOTS = 64  # independent dot products, accumulated side by side
CHECKPOINTS = [2**k for k in range(4, 13)]  # 16 .. 4096


def running_sums(p16: torch.Tensor, checkpoints: list[int]) -> dict[str, torch.Tensor]:
    """Accumulate fp16 products row by row in an fp16 and an fp32 running total."""
    acc16 = torch.zeros(p16.shape[1], dtype=torch.float16, device=p16.device)
    acc32 = torch.zeros(p16.shape[1], dtype=torch.float32, device=p16.device)
    out16, out32 = [], []
    for i in range(p16.shape[0]):
        acc16 = acc16 + p16[i]  # fp16 accumulator: rounded to fp16 after every add
        acc32 = acc32 + p16[i].float()  # fp32 accumulator (what tensor cores do)
        if i + 1 in checkpoints:
            out16.append(acc16.double())
            out32.append(acc32.double())
    return {"fp16_accumulator": torch.stack(out16), "fp32_accumulator": torch.stack(out32)}


SNIPPET = """
for i in range(p16.shape[0]):
    acc16 = acc16 + p16[i]  # fp16 accumulator: rounded to fp16 after every add
    acc32 = acc32 + p16[i].float()  # fp32 accumulator (what tensor cores do)
"""
SNIPPET_FUNCS = (running_sums,)


def compute(dev: torch.device) -> dict[str, Any]:
    g = generator(dev, SEED)
    # Positive inputs (like post-ReLU activations / probabilities): sums grow steadily.
    a = torch.rand(MAX_LEN, N_DOTS, generator=g).half()
    b = torch.rand(MAX_LEN, N_DOTS, generator=g).half()
    p16 = (a * b).to(dev)  # element products, stored in fp16
    ref = p16.double().cpu().cumsum(0)[[c - 1 for c in CHECKPOINTS]]  # float64 reference
    sums = {k: v.cpu() for k, v in running_sums(p16, CHECKPOINTS).items()}
    # Library reduction of the same fp16 tensor: fp32 accumulation inside, fp16 result.
    sums["torch_sum_fp16_tensor"] = torch.stack(
        [p16[:c].sum(0).double().cpu() for c in CHECKPOINTS]
    )
    rel = {k: ((v - ref).abs() / ref).mean(1).tolist() for k, v in sums.items()}
    return {
        "setup": f"{N_DOTS} dot products of fp16 vectors with entries in U(0,1)",
        "lengths": CHECKPOINTS,
        "mean_rel_error": rel,
        "reference_mean_sum": ref.mean(1).tolist(),
        "fp16_eps": torch.finfo(torch.float16).eps,
    }


def plot(numbers: dict[str, Any]) -> bytes:
    labels = {
        "fp16_accumulator": "fp16 running sum",
        "fp32_accumulator": "fp32 running sum (tensor-core style)",
        "torch_sum_fp16_tensor": "torch.sum of the fp16 tensor: fp32 inside, rounded once",
    }
    with figure(1, 1, figsize=(9, 4.6)) as (fig, ax):
        for k, ys in numbers["mean_rel_error"].items():
            ax.plot(numbers["lengths"], [max(y, 1e-12) for y in ys], "o-", label=labels[k])
        ax.axhline(numbers["fp16_eps"], color="gray", ls=":", label="fp16 eps (2^-10)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("reduction length (number of products summed)")
        ax.set_ylabel("mean relative error vs float64")
        ax.set_title(numbers["setup"], fontsize=9)
        ax.legend(fontsize=8)
        return fig_to_png(
            fig,
            title="Accumulating sums: fp16 vs fp32 running total",
            lesson="Sum 16-bit products in an fp32 accumulator: an fp16 running total drifts "
            "as the sum grows.",
            note="Green: torch.sum on the fp16 tensor adds in fp32 internally, so only the one "
            "final rounding to fp16 remains (about eps/4).",
            bottom=0.22,
        )


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for i in (0, len(numbers["lengths"]) // 2, -1):
        n = numbers["lengths"][i]
        e = {k: v[i] for k, v in numbers["mean_rel_error"].items()}
        rows.append(
            (
                f"length {n}",
                f"fp16 acc {fmt(e['fp16_accumulator'])}  fp32 acc {fmt(e['fp32_accumulator'])}  "
                f"torch.sum(fp16) {fmt(e['torch_sum_fp16_tensor'])}",
            )
        )
    return rows


def run(dev: torch.device):
    return timed_run(
        "accumulation-precision", dev, {}, lambda: compute(dev), plot, SNIPPET, highlights
    )
