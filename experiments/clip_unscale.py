"""Gradient clipping with a GradScaler: without ``unscale_`` it clips the scaled gradient.

Three runs from the same weights and batch: fp32 with clipping (the reference), fp16
autocast + GradScaler clipping the still-scaled gradients, and the same with
``scaler.unscale_(opt)`` before ``clip_grad_norm_`` (PyTorch's AMP example).
"""

from __future__ import annotations

import copy
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from experiments._common import SEED, fig_to_png, figure, fmt, generator, timed_run

INIT_SCALE = 2.0**16  # GradScaler's default
CLIP_FRACTION = 0.5  # max_norm = half the true gradient norm: clipping must act
LR = 0.1
VARIANTS = ("fp32_reference", "scaler_no_unscale", "scaler_with_unscale")
LABELS = {
    "fp32_reference": "fp32, clip (reference)",
    "scaler_no_unscale": "GradScaler, clip without unscale_",
    "scaler_with_unscale": "GradScaler, unscale_ then clip",
}


def make_problem(dev: torch.device) -> tuple[nn.Module, torch.Tensor, torch.Tensor]:
    torch.manual_seed(SEED)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4)).to(dev)
    g = generator(dev, SEED + 1)
    x = torch.randn(64, 32, generator=g).to(dev)
    y = torch.randn(64, 4, generator=g).to(dev)
    return model, x, y


def grad_vector(model: nn.Module) -> torch.Tensor:
    """The gradient the optimizer applied (SGD: update = -lr * this)."""
    return torch.cat(
        [p.grad.reshape(-1) for p in model.parameters() if p.grad is not None]
    ).double()


def clipped_step(
    model: nn.Module, x: torch.Tensor, y: torch.Tensor, variant: str, max_norm: float
) -> dict[str, Any]:
    """One optimizer step with clipping; returns the norm clip saw and the update."""
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    if variant == "fp32_reference":
        F.mse_loss(model(x), y).backward()
        seen = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        opt.step()
        scale = 1.0
    else:
        scaler = torch.amp.GradScaler(x.device.type, init_scale=INIT_SCALE)
        with torch.autocast(x.device.type, dtype=torch.float16):
            loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()  # .grad holds gradient * scale
        if variant == "scaler_with_unscale":
            scaler.unscale_(opt)  # .grad back to true units, in fp32
        seen = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(opt)  # unscales first if unscale_ was not called
        scale = scaler.get_scale()
        scaler.update()
    update = -LR * grad_vector(model)  # scaler.step left the unscaled gradient in .grad
    return {"norm_seen_by_clip": seen.item(), "update": update, "scale": scale}


SNIPPET = """
scaler.scale(loss).backward()  # .grad holds gradient * scale
if variant == "scaler_with_unscale":
    scaler.unscale_(opt)  # .grad back to true units, in fp32
seen = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
scaler.step(opt)  # unscales first if unscale_ was not called
"""
SNIPPET_FUNCS = (clipped_step,)


def compute(dev: torch.device) -> dict[str, Any]:
    base, x, y = make_problem(dev)
    probe = copy.deepcopy(base)
    F.mse_loss(probe(x), y).backward()
    true_norm = torch.nn.utils.get_total_norm(
        [p.grad for p in probe.parameters() if p.grad is not None]
    ).item()
    max_norm = CLIP_FRACTION * true_norm
    runs = {v: clipped_step(copy.deepcopy(base), x, y, v, max_norm) for v in VARIANTS}
    ref = runs["fp32_reference"]["update"]
    out: dict[str, Any] = {}
    for v, r in runs.items():
        u = r["update"]
        out[v] = {
            "norm_seen_by_clip": r["norm_seen_by_clip"],
            "update_norm": u.norm().item(),
            "update_norm_ratio": (u.norm() / ref.norm()).item(),
            "update_rel_error": ((u - ref).norm() / ref.norm()).item(),
            "scale": r["scale"],
        }
    return {
        "true_grad_norm": true_norm,
        "max_norm": max_norm,
        "init_scale": INIT_SCALE,
        "lr": LR,
        "expected_update_norm": LR * max_norm,
        "variants": out,
    }


def plot(numbers: dict[str, Any]) -> bytes:
    v = numbers["variants"]
    colors = ["tab:gray", "tab:red", "tab:green"]
    short = ["fp32\nreference", "scaler, no\nunscale_", "scaler,\nunscale_ first"]
    with figure(1, 2, figsize=(10, 4.4)) as (fig, (ax1, ax2)):
        seen = [v[k]["norm_seen_by_clip"] for k in VARIANTS]
        for i, k in enumerate(VARIANTS):
            ax1.bar(short[i], seen[i], color=colors[i], label=LABELS[k])
        ax1.axhline(
            numbers["max_norm"], color="k", ls="--", label=f"max_norm = {numbers['max_norm']:.3g}"
        )
        ax1.set_yscale("log")
        ax1.set_ylabel("gradient norm clip_grad_norm_ saw (log)")
        ax1.set_xlabel("variant")
        ax1.set_title(
            f"without unscale_ clip sees the norm x {numbers['init_scale']:g}", fontsize=10
        )
        ax1.legend(fontsize=7.5, loc="center left")
        ratio = [v[k]["update_norm_ratio"] for k in VARIANTS]
        for i in range(len(VARIANTS)):
            ax2.bar(short[i], ratio[i], color=colors[i], label=f"{ratio[i]:.3g} x the reference")
        ax2.set_yscale("log")
        ax2.set_ylabel("weight update norm / reference (log)")
        ax2.set_xlabel("variant")
        ax2.set_title("the step actually taken", fontsize=10)
        ax2.legend(fontsize=8, loc="center right")
        return fig_to_png(
            fig,
            title="Clipping with a GradScaler: unscale_ first",
            lesson="Call scaler.unscale_(opt) before clip_grad_norm_: otherwise it clips the "
            "scaled gradient and the step shrinks by the scale.",
            note=f"Scale {numbers['init_scale']:g}: the clipped, scaled gradient is then divided "
            f"by it again, so the update is {ratio[1]:.2g} of the right one.",
            bottom=0.26,
        )


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [
        ("true gradient norm", fmt(numbers["true_grad_norm"])),
        ("max_norm", fmt(numbers["max_norm"])),
    ]
    for k, v in numbers["variants"].items():
        rows.append(
            (
                k,
                f"clip saw {fmt(v['norm_seen_by_clip'])}  update x{fmt(v['update_norm_ratio'])} "
                f"of the reference (rel.err {fmt(v['update_rel_error'])})",
            )
        )
    return rows


def run(dev: torch.device):
    return timed_run("clip-unscale", dev, {}, lambda: compute(dev), plot, SNIPPET, highlights)
