"""Loss scaling: how many real fp16 gradients underflow to zero, with and without a scaler."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from experiments._common import SEED, fig_to_png, figure, fmt, generator, timed_run
from experiments.cuda import kind_of

# Honest setup note: the loss is multiplied by 2**-14 so that this *small* model's
# gradients are as tiny as those of large models (where per-element gradients of a
# mean loss over many tokens/activations routinely sit around 2**-20..2**-30).
LOSS_FACTOR = 2.0**-14
SCALE = 2.0**16  # GradScaler's default init_scale
FP16_MIN_NORMAL_LOG2 = -14
FP16_MIN_SUBNORMAL_LOG2 = -24


def make_problem(dev: torch.device) -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    torch.manual_seed(SEED)
    model = nn.Sequential(
        nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)
    ).to(dev)
    g = generator(dev, SEED + 1)
    x = torch.randn(64, 64, generator=g).to(dev)
    y = torch.randint(0, 10, (64,), generator=g).to(dev)
    return model, x, y


def amp_grads(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    dtype: torch.dtype | None,
    scaler: torch.amp.GradScaler | None,
) -> torch.Tensor:
    """Parameter gradients (fp32 params) after an autocast forward in ``dtype``."""
    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    opt.zero_grad()
    with torch.autocast(x.device.type, dtype=dtype or torch.float32, enabled=dtype is not None):
        loss = F.cross_entropy(model(x), y) * LOSS_FACTOR
    if scaler is not None:
        scaler.scale(loss).backward()  # backward runs at loss * 2**16: no underflow
        scaler.unscale_(opt)  # divide back in fp32, where tiny values survive
    else:
        loss.backward()  # fp16 backward: values below 2**-24 become 0
    return torch.cat(
        [p.grad.reshape(-1) for p in model.parameters() if p.grad is not None]
    ).detach()


SNIPPET = """
with torch.autocast(x.device.type, dtype=dtype or torch.float32, enabled=dtype is not None):
    loss = F.cross_entropy(model(x), y) * LOSS_FACTOR
if scaler is not None:
    scaler.scale(loss).backward()  # backward runs at loss * 2**16: no underflow
    scaler.unscale_(opt)  # divide back in fp32, where tiny values survive
else:
    loss.backward()  # fp16 backward: values below 2**-24 become 0
"""
SNIPPET_FUNCS = (amp_grads,)


def _zero_fraction(g: torch.Tensor, ref_nonzero: torch.Tensor) -> float:
    return ((g == 0) & ref_nonzero).sum().item() / max(1, ref_nonzero.sum().item())


def compute(dev: torch.device) -> dict[str, Any]:
    model, x, y = make_problem(dev)
    ref = amp_grads(model, x, y, None, None)  # fp32 reference
    nz = ref != 0
    out: dict[str, Any] = {
        "setup": {
            "model": "MLP 64-256-256-10, cross-entropy, batch 64",
            "loss_factor": LOSS_FACTOR,
            "loss_factor_note": "loss multiplied by 2**-14 so gradients are as small as in "
            "large models; without it this small model barely underflows",
            "scale": SCALE,
        },
        "fp16_min_normal": 2.0**FP16_MIN_NORMAL_LOG2,
        "fp16_min_subnormal": 2.0**FP16_MIN_SUBNORMAL_LOG2,
    }
    # 1) Real mixed-precision backward (autocast + GradScaler) when the device supports it.
    amp: dict[str, Any] = {}
    try:
        amp["fp16_no_scaler"] = _zero_fraction(amp_grads(model, x, y, torch.float16, None), nz)
        scaler = torch.amp.GradScaler(dev.type, init_scale=SCALE)
        amp["fp16_with_scaler"] = _zero_fraction(amp_grads(model, x, y, torch.float16, scaler), nz)
        amp["bf16_no_scaler"] = _zero_fraction(amp_grads(model, x, y, torch.bfloat16, None), nz)
        out["method"] = "autocast backward"
    except (RuntimeError, AssertionError, ValueError) as exc:  # no fp16 autocast here
        if kind_of(exc) is not None:
            raise  # the GPU failed (out of memory, ...): say so, do not switch methods
        amp = {}
        out["method"] = f"cast only (autocast fp16 unavailable: {exc})"
    # 2) Device-independent view: cast the fp32 reference gradients (scaled or not).
    cast = {
        "fp16_no_scaler": _zero_fraction(ref.half(), nz),
        "fp16_with_scaler": _zero_fraction((ref * SCALE).half(), nz),
        "bf16_no_scaler": _zero_fraction(ref.bfloat16(), nz),
    }
    out["underflow_fraction"] = amp or cast
    out["cast_underflow_fraction"] = cast
    log2 = ref[nz].abs().log2().float().cpu()
    out["log2_grad_quantiles"] = {
        q: log2.quantile(float(q)).item() for q in ("0.01", "0.1", "0.5", "0.9", "0.99")
    }
    counts, edges = torch.histogram(log2, bins=torch.arange(-45.0, 1.0, 1.0))
    out["histogram"] = {"log2_edges": edges.tolist(), "counts": counts.int().tolist()}
    out["n_values"] = int(nz.sum().item())
    return out


def plot(numbers: dict[str, Any]) -> bytes:
    edges = numbers["histogram"]["log2_edges"]
    counts = numbers["histogram"]["counts"]
    shift = math.log2(numbers["setup"]["scale"])
    uf = numbers["underflow_fraction"]
    with figure(1, 1, figsize=(9, 4.6)) as (fig, ax):
        ax.stairs(
            counts,
            edges,
            fill=True,
            alpha=0.6,
            label=f"fp32 grads (no scaler): {uf['fp16_no_scaler']:.0%} underflow in fp16",
        )
        ax.stairs(
            counts,
            [e + shift for e in edges],
            fill=True,
            alpha=0.5,
            label=f"x 2^{shift:.0f} (scaler): {uf['fp16_with_scaler']:.0%} underflow",
        )
        ax.axvspan(-50, FP16_MIN_SUBNORMAL_LOG2, color="red", alpha=0.1)
        ax.axvline(
            FP16_MIN_NORMAL_LOG2, color="orange", ls="--", label="fp16 smallest normal 2^-14"
        )
        ax.axvline(
            FP16_MIN_SUBNORMAL_LOG2,
            color="red",
            ls="--",
            label="fp16 smallest subnormal 2^-24 (below → 0)",
        )
        ax.set_xlim(-45, 5)
        ax.set_xlabel("log2 |gradient|")
        ax.set_ylabel("count")
        ax.set_title("gradient magnitudes vs fp16 range (loss x 2^-14 setup)", fontsize=10)
        ax.legend(fontsize=8, loc="upper left")
        return fig_to_png(
            fig,
            title="Loss scaling vs fp16 underflow",
            lesson="Scaling the loss by 2^16 lifts tiny gradients above fp16's smallest value; "
            "unscale in fp32 before the step.",
            note=note(numbers),
            bottom=0.22,
        )


def note(numbers: dict[str, Any]) -> str:
    """The caption: bf16's loss, or, where fp16 autocast is unavailable, that the figures
    are fp32 gradients cast to 16-bit (never a silent switch of method)."""
    if numbers["method"] != "autocast backward":
        return "Cast only: fp16 autocast is unavailable here, so these are fp32 gradients cast."
    uf = numbers["underflow_fraction"]
    return (
        f"bf16 (fp32's exponent range) loses {uf['bf16_no_scaler']:.1%} without any "
        "scaler. Setup: loss x 2^-14 mimics a large model's tiny gradients."
    )


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    uf = numbers["underflow_fraction"]
    return [
        ("method", numbers["method"]),
        ("fp16, no scaler", f"{uf['fp16_no_scaler']:.1%} of gradients underflow to 0"),
        ("fp16, GradScaler 2^16", f"{uf['fp16_with_scaler']:.1%}"),
        ("bf16, no scaler", f"{uf['bf16_no_scaler']:.1%}"),
        ("median log2|g|", fmt(numbers["log2_grad_quantiles"]["0.5"])),
        ("setup", "loss multiplied by 2^-14 to mimic a large model's tiny gradients"),
    ]


def run(dev: torch.device):
    return timed_run("loss-scaling", dev, {}, lambda: compute(dev), plot, SNIPPET, highlights)
