"""Gradient accumulation: the correct loop vs two classic bugs, and what accumulation costs.

The model is linear (least squares), so SGD's stability limit is known exactly: with
curvature L (the Hessian's largest eigenvalue) a step ``lr`` is stable while lr * L < 2.
The demo trains at 0.8 of that limit; forgetting the ``/ N`` multiplies every step by N.
"""

from __future__ import annotations

import copy
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from experiments._common import (
    SEED,
    elapsed_ms,
    fig_to_png,
    figure,
    fmt,
    generator,
    median_spread,
    plain_log_labels,
    sync,
    timed_run,
)

VARIANTS = ("full_batch", "correct", "zero_grad_every_micro_batch", "no_loss_division")
LABELS = {
    "full_batch": "full batch (reference)",
    "correct": "accumulated, loss / N",
    "zero_grad_every_micro_batch": "zero_grad every micro-batch",
    "no_loss_division": "accumulated, no loss / N",
}
COLORS = {
    "full_batch": "black",
    "correct": "tab:green",
    "zero_grad_every_micro_batch": "tab:orange",
    "no_loss_division": "tab:red",
}
IN_FEATURES = 16
TRAIN_STEPS = 30
LR_FRACTION = 0.8  # of SGD's stability limit 2 / L on this batch
DIVERGED = 1e30  # a run stops once its loss passes this (fp32 overflows soon after)
CLIP_FACTOR = 1.5  # clip_grad_norm_ threshold = 1.5 x the true gradient norm at the start
COST_REPEATS = 7


def make_model(dev: torch.device) -> nn.Module:
    torch.manual_seed(SEED)
    return nn.Linear(IN_FEATURES, 1).to(dev)


def make_batch(
    micro_batches: int, micro_batch_size: int, dev: torch.device
) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """One batch of N*M samples, split into N micro-batches (drawn on CPU for determinism)."""
    g = generator(dev, SEED + 1)
    n = micro_batches * micro_batch_size
    x = torch.randn(n, IN_FEATURES, generator=g)
    w_true = torch.randn(IN_FEATURES, 1, generator=g)
    y = x @ w_true + 0.1 * torch.randn(n, 1, generator=g)
    return list(
        zip(x.to(dev).split(micro_batch_size), y.to(dev).split(micro_batch_size), strict=True)
    )


def curvature(micro_batches: list[tuple[torch.Tensor, torch.Tensor]]) -> float:
    """Largest Hessian eigenvalue of the full-batch MSE of a linear model with bias."""
    x = torch.cat([x for x, _ in micro_batches]).double().cpu()
    x1 = torch.cat([x, torch.ones(len(x), 1, dtype=x.dtype)], dim=1)
    hessian = 2 * x1.T @ x1 / len(x)
    return torch.linalg.eigvalsh(hessian)[-1].item()


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


def _full(micro_batches: list[tuple[torch.Tensor, torch.Tensor]]) -> list[tuple[Any, Any]]:
    return [(torch.cat([x for x, _ in micro_batches]), torch.cat([y for _, y in micro_batches]))]


def train(
    model: nn.Module,
    micro_batches: list[tuple[torch.Tensor, torch.Tensor]],
    variant: str,
    lr: float,
) -> list[float]:
    """SGD run; records the full-batch loss before each step, stops once it diverges."""
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    ((x_all, y_all),) = _full(micro_batches)
    batches = _full(micro_batches) if variant == "full_batch" else micro_batches
    losses: list[float] = []
    for _ in range(TRAIN_STEPS):
        with torch.no_grad():
            losses.append(F.mse_loss(model(x_all), y_all).item())
        if not losses[-1] < DIVERGED:  # also catches inf / nan
            break
        accumulate(model, opt, batches, "correct" if variant == "full_batch" else variant)
        opt.step()  # once per N micro-batches
    return losses


def flat_grad(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.grad.reshape(-1) for p in model.parameters() if p.grad is not None])


def variant_grad(
    base: nn.Module, micro_batches: list[tuple[torch.Tensor, torch.Tensor]], variant: str
) -> torch.Tensor:
    """Flattened gradient that ``variant`` leaves in .grad, starting from ``base``'s weights."""
    model = copy.deepcopy(base)
    opt = torch.optim.SGD(model.parameters(), lr=0.0)
    if variant == "full_batch":
        accumulate(model, opt, _full(micro_batches), "correct")
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


def clip_coefficient(grad: torch.Tensor, max_norm: float) -> float:
    """Factor clip_grad_norm_(max_norm) multiplies this gradient by (1 = not clipped)."""
    p = torch.nn.Parameter(torch.zeros_like(grad))
    p.grad = grad.clone()
    total = torch.nn.utils.clip_grad_norm_([p], max_norm).item()
    return (p.grad.norm() / total).item() if total > 0 else 1.0


def adam_update(base: nn.Module, grad: torch.Tensor) -> torch.Tensor:
    """The first Adam step's weight change for this gradient (lr 1e-3)."""
    p = torch.nn.Parameter(torch.cat([q.detach().reshape(-1) for q in base.parameters()]))
    before = p.detach().clone()
    p.grad = grad.clone()
    torch.optim.Adam([p], lr=1e-3).step()
    return (p.detach() - before).double()


def _saved_bytes(model: nn.Module, batches: list[tuple[torch.Tensor, torch.Tensor]]) -> int:
    """Largest amount of activations autograd holds for one backward (parameters excluded)."""
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    peak = 0
    for x, y in batches:
        held = 0

        def pack(t: torch.Tensor) -> torch.Tensor:
            nonlocal held
            if t.untyped_storage().data_ptr() not in params:
                held += t.element_size() * t.nelement()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            loss = F.mse_loss(model(x), y)
        loss.backward()
        peak = max(peak, held)
    return peak


def cost(
    base: nn.Module, micro_batches: list[tuple[torch.Tensor, torch.Tensor]], dev: torch.device
) -> dict[str, Any]:
    """Time per optimizer update (median of repeats) and activation memory, both ways."""
    out: dict[str, Any] = {}
    for way, batches in (("full_batch", _full(micro_batches)), ("accumulated", micro_batches)):
        model = copy.deepcopy(base)
        opt = torch.optim.SGD(model.parameters(), lr=0.0)
        samples = []

        def update(model: nn.Module = model, opt: Any = opt, batches: Any = batches) -> None:
            accumulate(model, opt, batches, "correct")
            opt.step()

        for _ in range(COST_REPEATS + 1):  # the first run is a warm-up
            sync(dev)  # earlier work is done before the clock starts
            samples.append(elapsed_ms(dev, update))  # CUDA events on a GPU
        out[way] = {
            "ms_per_update": median_spread(samples[1:]),
            "passes_per_update": len(batches),
            "activation_bytes": _saved_bytes(model, batches),
        }
    out["time_ratio"] = (
        out["accumulated"]["ms_per_update"]["median"] / out["full_batch"]["ms_per_update"]["median"]
    )
    out["memory_ratio"] = out["full_batch"]["activation_bytes"] / max(
        1, out["accumulated"]["activation_bytes"]
    )
    return out


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
    curv = curvature(mbs)
    lr = LR_FRACTION * 2 / curv
    ref = variant_grad(base, mbs, "full_batch")
    max_norm = CLIP_FACTOR * ref.norm().item()
    adam_ref = adam_update(base, ref)
    variants: dict[str, Any] = {}
    for v in VARIANTS:
        grad = variant_grad(base, mbs, v)
        stats: dict[str, Any] = dict(compare(grad, ref))
        stats["losses"] = train(copy.deepcopy(base), mbs, v, lr)
        stats["diverged"] = not stats["losses"][-1] < DIVERGED or (
            stats["losses"][-1] > 10 * stats["losses"][0]
        )
        stats["clip_coefficient"] = clip_coefficient(grad, max_norm)
        upd = adam_update(base, grad)
        stats["adam_update_rel_diff"] = ((upd - adam_ref).norm() / adam_ref.norm()).item()
        variants[v] = stats
    n = micro_batches
    return {
        "micro_batches": n,
        "micro_batch_size": micro_batch_size,
        "effective_batch": n * micro_batch_size,
        "curvature": curv,
        "lr": lr,
        "lr_times_curvature": lr * curv,
        "no_division_lr_times_curvature": n * lr * curv,
        # Least squares: the top mode's error grows by |1 - N lr L| per step, its loss squared.
        "theory_no_division_growth": (n * lr * curv - 1) ** 2,
        "clip_max_norm": max_norm,
        "variants": variants,
        "cost": cost(base, mbs, dev),
    }


def _plot_grads(ax: Any, variants: dict[str, Any], n: int) -> None:
    xs = list(range(len(VARIANTS)))
    ax.bar(
        [x - 0.2 for x in xs],
        [variants[v]["norm_ratio"] for v in VARIANTS],
        0.4,
        label="gradient norm / full-batch norm",
        color="tab:blue",
    )
    ax.bar(
        [x + 0.2 for x in xs],
        [variants[v]["cosine"] for v in VARIANTS],
        0.4,
        label="cosine with full-batch gradient",
        color="tab:gray",
    )
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    ax.set_xticks(xs, ["full\nbatch", "loss / N", "zero_grad every\nmicro-batch", "no\nloss / N"])
    ax.set_ylabel("ratio to the full-batch gradient")
    ax.set_xlabel("how the N micro-batches are accumulated")
    ax.set_title(
        f"gradient left in .grad (no / N: {n}x the norm, clipping {n}x tighter)", fontsize=9
    )
    ax.legend(fontsize=8)


def _plot_training(ax: Any, numbers: dict[str, Any]) -> None:
    variants = numbers["variants"]
    for v in VARIANTS:
        losses = [x for x in variants[v]["losses"] if x < DIVERGED]
        ax.plot(
            losses,
            label=LABELS[v],
            color=COLORS[v],
            ls="--" if v == "correct" else "-",
            lw=2 if v == "correct" else 1.5,
        )
    ax.set_yscale("log")
    plain_log_labels(ax.yaxis)
    ax.set_ylim(top=1e6)
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("full-batch MSE (log scale)")
    ax.set_title(
        f"SGD at lr = {LR_FRACTION} x its stability limit 2/L; no / N steps "
        f"{numbers['micro_batches']}x as far",
        fontsize=9,
    )
    bad = variants["no_loss_division"]
    if bad["diverged"]:
        ax.annotate(
            f"no / N diverges: loss x{numbers['theory_no_division_growth']:.3g} per step",
            xy=(1.2, 2e3),
            xytext=(4, 2e2),
            color="tab:red",
            fontsize=8,
            arrowprops={"arrowstyle": "->", "color": "tab:red"},
        )
    ax.legend(fontsize=7.5, loc="upper right")


def _plot_cost(ax_t: Any, ax_m: Any, c: dict[str, Any], n: int) -> None:
    ways = ("full_batch", "accumulated")
    names = ["one full batch", f"{n} micro-batches"]
    med = [c[w]["ms_per_update"]["median"] for w in ways]
    err = [
        [m - c[w]["ms_per_update"]["min"] for m, w in zip(med, ways, strict=True)],
        [c[w]["ms_per_update"]["max"] - m for m, w in zip(med, ways, strict=True)],
    ]
    ax_t.bar(names, med, color=["tab:gray", "tab:purple"])
    ax_t.errorbar(
        [0, 1],
        med,
        yerr=err,
        fmt="none",
        ecolor="black",
        capsize=4,
        label=f"median of {COST_REPEATS} updates; whiskers min-max",
    )
    ax_t.set_ylabel("ms per optimizer update")
    ax_t.set_xlabel("same effective batch")
    ax_t.set_title(f"time: {n} passes in a row = {c['time_ratio']:.1f}x slower", fontsize=9)
    ax_t.legend(fontsize=8)
    kib = [c[w]["activation_bytes"] / 1024 for w in ways]
    for name, value, color in zip(names, kib, ["tab:gray", "tab:purple"], strict=True):
        ax_m.bar(name, value, color=color, label=f"{name}: {value:.2f} KiB")
    ax_m.set_ylabel("KiB of activations held at peak")
    ax_m.set_xlabel("same effective batch")
    ax_m.set_title(f"memory: {c['memory_ratio']:.0f}x less with accumulation", fontsize=9)
    ax_m.legend(fontsize=8)


def plot(numbers: dict[str, Any]) -> bytes:
    n, m = numbers["micro_batches"], numbers["micro_batch_size"]
    with figure(2, 2, figsize=(11, 7.5)) as (fig, axes):
        _plot_grads(axes[0][0], numbers["variants"], n)
        _plot_training(axes[0][1], numbers)
        _plot_cost(axes[1][0], axes[1][1], numbers["cost"], n)
        return fig_to_png(
            fig,
            title=f"Gradient accumulation: {n} micro-batches x {m} samples = effective batch "
            f"{numbers['effective_batch']}",
            lesson="Divide each micro-batch's loss by N: the N summed gradients then equal the "
            "full batch's; without it SGD steps N x too far.",
            note="micro-batch = the slice that fits in memory. Adam barely notices a gradient "
            f"N times larger (update diff "
            f"{numbers['variants']['no_loss_division']['adam_update_rel_diff']:.0e}); the harm "
            "there: clip thresholds and logged norms off by N.",
            top=0.9,
            bottom=0.16,
            hspace=0.55,
            wspace=0.22,
        )


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    n, m = numbers["micro_batches"], numbers["micro_batch_size"]
    rows = [("effective batch", f"{m} x {n} = {numbers['effective_batch']} samples per step")]
    for name, v in numbers["variants"].items():
        state = "DIVERGED" if v["diverged"] else f"final loss {fmt(v['losses'][-1])}"
        rows.append(
            (
                name,
                f"rel.err {fmt(v['grad_rel_error'])}  norm x{fmt(v['norm_ratio'])}  "
                f"clip coef {fmt(v['clip_coefficient'])}  SGD: {state}",
            )
        )
    c = numbers["cost"]
    rows.append(
        (
            "SGD lr x curvature",
            f"{fmt(numbers['lr_times_curvature'])} (stable below 2); "
            f"no / N: {fmt(numbers['no_division_lr_times_curvature'])}",
        )
    )
    rows.append(
        (
            "time per update",
            f"full {fmt(c['full_batch']['ms_per_update']['median'])} ms"
            f"  accumulated {fmt(c['accumulated']['ms_per_update']['median'])} ms",
        )
    )
    rows.append(
        (
            "activations at peak",
            f"full {c['full_batch']['activation_bytes']} B  "
            f"accumulated {c['accumulated']['activation_bytes']} B",
        )
    )
    return rows


def run(dev: torch.device, *, micro_batches: int = 8, micro_batch_size: int = 4):
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
