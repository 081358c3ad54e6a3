"""Gradient accumulation: the correct loop vs two classic bugs, measured against a full batch."""

from __future__ import annotations

import copy
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from experiments._common import SEED, fig_to_png, figure, fmt, generator, timed_run

VARIANTS = ("full_batch", "correct", "zero_grad_every_micro_batch", "no_loss_division")
IN_FEATURES = 16
TRAIN_STEPS = 50
LR = 0.05


def make_model(dev: torch.device) -> nn.Module:
    torch.manual_seed(SEED)
    return nn.Sequential(nn.Linear(IN_FEATURES, 32), nn.Tanh(), nn.Linear(32, 1)).to(dev)


def make_batch(
    micro_batches: int, micro_batch_size: int, dev: torch.device
) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """One batch of N*M samples, split into N micro-batches (drawn on CPU for determinism)."""
    g = generator(dev, SEED + 1)
    n = micro_batches * micro_batch_size
    x = torch.randn(n, IN_FEATURES, generator=g)
    w_true = torch.randn(IN_FEATURES, 1, generator=g)
    y = torch.sin(x @ w_true) + 0.1 * torch.randn(n, 1, generator=g)
    return list(
        zip(x.to(dev).split(micro_batch_size), y.to(dev).split(micro_batch_size), strict=True)
    )


def accumulate(
    model: nn.Module,
    opt: torch.optim.Optimizer,
    micro_batches: list[tuple[torch.Tensor, torch.Tensor]],
    variant: str,
) -> None:
    """Gradients for one optimizer step; this loop is what the snippet shows."""
    n = len(micro_batches)
    opt.zero_grad()
    for x, y in micro_batches:
        if variant == "zero_grad_every_micro_batch":
            opt.zero_grad()  # BUG: forgets the earlier micro-batches
        loss = F.mse_loss(model(x), y)
        if variant != "no_loss_division":
            loss = loss / n  # mean of micro-batch means == full-batch mean
        loss.backward()  # .grad += this micro-batch's gradient


def train(
    model: nn.Module, micro_batches: list[tuple[torch.Tensor, torch.Tensor]], variant: str
) -> list[float]:
    """Short SGD run; records the full-batch loss before each step."""
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    x_all = torch.cat([x for x, _ in micro_batches])
    y_all = torch.cat([y for _, y in micro_batches])
    losses = []
    for _ in range(TRAIN_STEPS):
        with torch.no_grad():
            losses.append(F.mse_loss(model(x_all), y_all).item())
        accumulate(model, opt, micro_batches, variant)
        opt.step()  # once per N micro-batches
    return losses


def flat_grad(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.grad.reshape(-1) for p in model.parameters() if p.grad is not None])


def variant_grad(
    base: nn.Module, micro_batches: list[tuple[torch.Tensor, torch.Tensor]], variant: str
) -> torch.Tensor:
    """Flattened gradient that ``variant`` leaves in .grad, starting from ``base``'s weights."""
    model = copy.deepcopy(base)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    if variant == "full_batch":
        x = torch.cat([x for x, _ in micro_batches])
        y = torch.cat([y for _, y in micro_batches])
        accumulate(model, opt, [(x, y)], "correct")
    else:
        accumulate(model, opt, micro_batches, variant)
    return flat_grad(model).detach()


def compare(g: torch.Tensor, ref: torch.Tensor) -> dict[str, float]:
    g64, r64 = g.double(), ref.double()
    return {
        "grad_rel_error": ((g64 - r64).norm() / r64.norm()).item(),
        "cosine": F.cosine_similarity(g64, r64, dim=0).item(),
        "norm_ratio": (g64.norm() / r64.norm()).item(),
    }


SNIPPET = """
opt.zero_grad()
for x, y in micro_batches:
    if variant == "zero_grad_every_micro_batch":
        opt.zero_grad()  # BUG: forgets the earlier micro-batches
    loss = F.mse_loss(model(x), y)
    if variant != "no_loss_division":
        loss = loss / n  # mean of micro-batch means == full-batch mean
    loss.backward()  # .grad += this micro-batch's gradient
opt.step()  # once per N micro-batches
"""
SNIPPET_FUNCS = (accumulate, train)


def compute(dev: torch.device, micro_batches: int, micro_batch_size: int) -> dict[str, Any]:
    base = make_model(dev)
    mbs = make_batch(micro_batches, micro_batch_size, dev)
    ref = variant_grad(base, mbs, "full_batch")
    variants: dict[str, Any] = {}
    for v in VARIANTS:
        stats: dict[str, Any] = dict(compare(variant_grad(base, mbs, v), ref))
        stats["losses"] = train(copy.deepcopy(base), mbs, v)
        variants[v] = stats
    return {"variants": variants}


def plot(numbers: dict[str, Any]) -> bytes:
    variants = numbers["variants"]
    with figure(1, 2, figsize=(10, 4)) as (fig, (ax1, ax2)):
        names = list(variants)
        short = ["full batch", "correct", "zero_grad\nevery mb", "no loss\n/ N"]
        xs = range(len(names))
        ax1.bar(
            [x - 0.2 for x in xs],
            [variants[n]["norm_ratio"] for n in names],
            0.4,
            label="norm ratio",
        )
        ax1.bar([x + 0.2 for x in xs], [variants[n]["cosine"] for n in names], 0.4, label="cosine")
        ax1.axhline(1.0, color="k", lw=0.8, ls="--")
        ax1.set_xticks(list(xs), short)
        ax1.set_title("gradient vs full batch")
        ax1.legend()
        for n, s in zip(names, short, strict=True):
            ax2.plot(
                variants[n]["losses"],
                label=s.replace("\n", " "),
                ls="--" if n == "correct" else "-",
            )
        ax2.set_yscale("log")
        ax2.set_xlabel("optimizer step")
        ax2.set_ylabel("full-batch MSE")
        ax2.set_title("training")
        ax2.legend()
        return fig_to_png(fig)


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for name, v in numbers["variants"].items():
        rows.append(
            (
                name,
                f"rel.err {fmt(v['grad_rel_error'])}  cos {fmt(v['cosine'], 6)}  "
                f"norm x{fmt(v['norm_ratio'])}  final loss {fmt(v['losses'][-1])}",
            )
        )
    return rows


def run(dev: torch.device, *, micro_batches: int = 4, micro_batch_size: int = 8):
    params = {"micro_batches": micro_batches, "micro_batch_size": micro_batch_size}
    return timed_run(
        "accumulation",
        dev,
        params,
        lambda: compute(dev, micro_batches, micro_batch_size),
        plot,
        SNIPPET,
        highlights,
    )
