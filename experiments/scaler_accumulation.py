"""GradScaler with gradient accumulation: scale(loss / N) each micro-batch, step once.

Every variant starts from the same weights, sees the same N*M samples under fp16
autocast and uses SGD; the reference is one scaler step on the full batch.
"""

from __future__ import annotations

import copy
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from experiments._common import SEED, fig_to_png, figure, fmt, generator, timed_run

INIT_SCALE = 2.0**16
LR = 0.1
VARIANTS = ("full_batch", "correct", "step_every_micro_batch", "no_loss_division")
LABELS = {
    "full_batch": "one full batch (reference)",
    "correct": "scale(loss / N) each, step + update once",
    "step_every_micro_batch": "step + update every micro-batch",
    "no_loss_division": "scale(loss) without / N, step once",
}
COLORS = {
    "full_batch": "tab:gray",
    "correct": "tab:green",
    "step_every_micro_batch": "tab:orange",
    "no_loss_division": "tab:red",
}


def make_problem(
    dev: torch.device, micro_batches: int, micro_batch_size: int
) -> tuple[nn.Module, list[tuple[torch.Tensor, torch.Tensor]]]:
    torch.manual_seed(SEED)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1)).to(dev)
    g = generator(dev, SEED + 1)
    n = micro_batches * micro_batch_size
    x = torch.randn(n, 16, generator=g)
    y = torch.randn(n, 1, generator=g)
    mbs = list(
        zip(x.to(dev).split(micro_batch_size), y.to(dev).split(micro_batch_size), strict=True)
    )
    return model, mbs


def window(
    model: nn.Module, micro_batches: list[tuple[torch.Tensor, torch.Tensor]], variant: str
) -> dict[str, Any]:
    """One accumulation window with a GradScaler; returns steps taken and the final scale."""
    dev = micro_batches[0][0].device.type
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    scaler = torch.amp.GradScaler(dev, init_scale=INIT_SCALE)
    n, steps, skipped = len(micro_batches), 0, 0
    opt.zero_grad()
    for x, y in micro_batches:
        with torch.autocast(dev, dtype=torch.float16):
            loss = F.mse_loss(model(x), y)
        if variant != "no_loss_division":
            loss = loss / n  # the same division as without a scaler
        scaler.scale(loss).backward()  # scaled gradients accumulate in .grad
        if variant == "step_every_micro_batch":
            before = scaler.get_scale()
            scaler.step(opt)  # BUG: N small steps instead of one
            scaler.update()
            opt.zero_grad()
            steps, skipped = steps + 1, skipped + (scaler.get_scale() < before)
    if variant != "step_every_micro_batch":
        before = scaler.get_scale()
        scaler.step(opt)  # unscale_ + inf check + opt.step, once per window
        scaler.update()  # the scale may change only between windows
        steps, skipped = steps + 1, skipped + (scaler.get_scale() < before)
    # update() halves the scale exactly when step() found inf/NaN and skipped opt.step().
    return {"optimizer_steps": steps, "skipped_steps": skipped, "final_scale": scaler.get_scale()}


SNIPPET = """
for x, y in micro_batches:
    with torch.autocast(dev, dtype=torch.float16):
        loss = F.mse_loss(model(x), y)
    if variant != "no_loss_division":
        loss = loss / n  # the same division as without a scaler
    scaler.scale(loss).backward()  # scaled gradients accumulate in .grad
scaler.step(opt)  # unscale_ + inf check + opt.step, once per window
scaler.update()  # the scale may change only between windows
"""
SNIPPET_FUNCS = (window,)


def _weights(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()]).double()


def compute(dev: torch.device, micro_batches: int, micro_batch_size: int) -> dict[str, Any]:
    base, mbs = make_problem(dev, micro_batches, micro_batch_size)
    start = _weights(base)
    full = [(torch.cat([x for x, _ in mbs]), torch.cat([y for _, y in mbs]))]
    updates, info = {}, {}
    for v in VARIANTS:
        model = copy.deepcopy(base)
        info[v] = window(
            model, full if v == "full_batch" else mbs, "correct" if v == "full_batch" else v
        )
        updates[v] = _weights(model) - start
    ref = updates["full_batch"]
    out = {
        v: info[v]
        | {
            "update_rel_error": ((u - ref).norm() / ref.norm()).item(),
            "update_norm_ratio": (u.norm() / ref.norm()).item(),
            "cosine": F.cosine_similarity(u, ref, dim=0).item(),
        }
        for v, u in updates.items()
    }
    return {
        "micro_batches": micro_batches,
        "micro_batch_size": micro_batch_size,
        "effective_batch": micro_batches * micro_batch_size,
        "init_scale": INIT_SCALE,
        "growth_interval": torch.amp.GradScaler(dev.type).get_growth_interval(),
        "variants": out,
    }


def plot(numbers: dict[str, Any]) -> bytes:
    v = numbers["variants"]
    short = ["full\nbatch", "loss / N,\nstep once", "step every\nmicro-batch", "no / N,\nstep once"]
    with figure(1, 2, figsize=(10.5, 4.4)) as (fig, (ax1, ax2)):
        for i, k in enumerate(VARIANTS):
            err = max(v[k]["update_rel_error"], 1e-6)  # the reference itself: 0
            ax1.bar(short[i], err, color=COLORS[k], label=LABELS[k])
        ax1.set_yscale("log")
        ax1.set_ylim(1e-6, 1e3)
        ax1.set_ylabel("update rel. error vs full batch (log)")
        ax1.set_xlabel("variant")
        ax1.set_title("weight update after one window", fontsize=10)
        ax1.legend(fontsize=7, loc="upper left")
        for i, k in enumerate(VARIANTS):
            skip = f", {v[k]['skipped_steps']} skipped (inf)" if v[k]["skipped_steps"] else ""
            ax2.bar(
                short[i],
                v[k]["optimizer_steps"],
                color=COLORS[k],
                label=f"{v[k]['optimizer_steps']} step(s){skip}, update norm "
                f"x{v[k]['update_norm_ratio']:.2f}",
            )
        ax2.set_ylabel("optimizer steps per window")
        ax2.set_xlabel("variant")
        ax2.set_title(
            f"N = {numbers['micro_batches']} micro-batches of {numbers['micro_batch_size']}",
            fontsize=10,
        )
        ax2.legend(fontsize=8, loc="upper left")
        return fig_to_png(
            fig,
            title="GradScaler with gradient accumulation",
            lesson="scaler.scale(loss / N).backward() for each micro-batch; scaler.step and "
            "scaler.update once per window.",
            note="The scale must stay fixed within a window: all N gradients carry it and "
            "step() unscales their sum once. Without / N, overflow (a skipped step) comes sooner.",
            bottom=0.26,
        )


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [
        (
            "effective batch",
            f"{numbers['micro_batch_size']} x {numbers['micro_batches']} = "
            f"{numbers['effective_batch']}",
        )
    ]
    for k, v in numbers["variants"].items():
        rows.append(
            (
                k,
                f"update rel.err {fmt(v['update_rel_error'])}  norm x"
                f"{fmt(v['update_norm_ratio'])}  steps {v['optimizer_steps']} "
                f"(skipped {v['skipped_steps']})  "
                f"scale {v['final_scale']:g}",
            )
        )
    return rows


def run(dev: torch.device, *, micro_batches: int = 4, micro_batch_size: int = 8):
    params = {"micro_batches": micro_batches, "micro_batch_size": micro_batch_size}
    return timed_run(
        "scaler-accumulation",
        dev,
        params,
        lambda: compute(dev, micro_batches, micro_batch_size),
        plot,
        SNIPPET,
        highlights,
    )
