"""Adam's epsilon in fp16: 1e-8 rounds to 0, and fp16 optimizer state blows up or stalls.

torch.optim.Adam keeps its state in the parameters' dtype. With fp16 parameters the
second moment (1 - beta2) * g^2 underflows to 0 for small gradients, eps = 1e-8 is 0 in
fp16 too, and m / (sqrt(v) + eps) divides by zero. A larger eps avoids the inf but damps
small updates. fp32 state (mixed precision's master weights) is the fix.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from experiments._common import SEED, fig_to_png, figure, fmt, generator, timed_run

LR = 1e-3
BETA2 = 0.999
STEPS = 30
DIM = 64
GRAD_SCALES = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6]
TRAIN_GRAD = 1e-5  # gradient size in the training panel
VARIANTS = {
    # name: (parameter/state dtype, eps)
    "fp32_state": (torch.float32, 1e-8),
    "fp16_state": (torch.float16, 1e-8),
    "fp16_state_eps_1e-4": (torch.float16, 1e-4),
}
LABELS = {
    "fp32_state": "fp32 weights + state, eps 1e-8",
    "fp16_state": "fp16 weights + state, eps 1e-8",
    "fp16_state_eps_1e-4": "fp16 weights + state, eps 1e-4",
}
COLORS = {"fp32_state": "tab:blue", "fp16_state": "tab:red", "fp16_state_eps_1e-4": "tab:orange"}


def adam_steps(
    dtype: torch.dtype, eps: float, grad: torch.Tensor, steps: int, curvature: float
) -> dict[str, Any]:
    """Adam on 0.5 * c * |w - target|^2 from w = 1, the target 0.05 below (gradient ~ c/20)."""
    w = torch.nn.Parameter(torch.ones(DIM, dtype=dtype, device=grad.device))
    target = (1.0 - 0.05 * grad.sign()).to(dtype)
    opt = torch.optim.Adam([w], lr=LR, betas=(0.9, BETA2), eps=eps)  # state in w's dtype
    losses: list[float] = []
    first_update: torch.Tensor | None = None
    for _ in range(steps):
        loss = 0.5 * curvature * ((w.float() - target.float()) ** 2).sum()
        losses.append(loss.item())
        opt.zero_grad()
        loss.backward()  # w.grad in w's dtype (fp16 for an fp16 model)
        before = w.detach().clone()
        opt.step()  # v = beta2 * v + (1 - beta2) * g^2, in fp16 for fp16 w
        if first_update is None:
            first_update = (w.detach() - before).float()
    v = opt.state[w]["exp_avg_sq"]
    assert first_update is not None  # steps >= 1
    return {
        "losses": losses,
        "first_update_over_lr": (first_update.abs().mean() / LR).item(),
        "finite": bool(torch.isfinite(w).all()),
        "v_zero_fraction": (v == 0).float().mean().item(),
        "state_dtype": str(v.dtype).removeprefix("torch."),
    }


SNIPPET = """
opt = torch.optim.Adam([w], lr=LR, betas=(0.9, BETA2), eps=eps)  # state in w's dtype
loss = 0.5 * curvature * ((w.float() - target.float()) ** 2).sum()
loss.backward()  # w.grad in w's dtype (fp16 for an fp16 model)
opt.step()  # v = beta2 * v + (1 - beta2) * g^2, in fp16 for fp16 w
"""
SNIPPET_FUNCS = (adam_steps,)


def compute(dev: torch.device) -> dict[str, Any]:
    g = generator(dev, SEED)
    signs = (torch.randint(0, 2, (DIM,), generator=g) * 2 - 1).float().to(dev)
    sweep: dict[str, list[dict[str, Any]]] = {k: [] for k in VARIANTS}
    for scale in GRAD_SCALES:
        for k, (dt, eps) in VARIANTS.items():
            r = adam_steps(dt, eps, signs * scale, 1, curvature=scale / 0.05)
            sweep[k].append(
                {"grad": scale}
                | {x: r[x] for x in ("first_update_over_lr", "finite", "v_zero_fraction")}
            )
    train = {
        k: adam_steps(dt, eps, signs * TRAIN_GRAD, STEPS, curvature=TRAIN_GRAD / 0.05)
        for k, (dt, eps) in VARIANTS.items()
    }
    half_subnormal = 2.0**-25  # below this, fp16 rounds to 0
    return {
        "eps_in_fp16": torch.tensor(1e-8, dtype=torch.float16).item(),
        "eps_in_bf16": torch.tensor(1e-8, dtype=torch.bfloat16).item(),
        "fp16_smallest_subnormal": 2.0**-24,
        "lr": LR,
        "grad_scales": GRAD_SCALES,
        # Theory: v after step 1 = (1 - beta2) g^2 underflows in fp16 below 2^-25.
        "theory_v_underflows": [(1 - BETA2) * s * s < half_subnormal for s in GRAD_SCALES],
        "sweep": sweep,
        "train_grad": TRAIN_GRAD,
        "train": train,
    }


def plot(numbers: dict[str, Any]) -> bytes:
    with figure(1, 2, figsize=(11, 4.4)) as (fig, (ax1, ax2)):
        for k in VARIANTS:
            pts = numbers["sweep"][k]
            ok = [
                (p["grad"], p["first_update_over_lr"])
                for p in pts
                if p["finite"] and p["first_update_over_lr"] > 0
            ]
            bad = [p["grad"] for p in pts if not p["finite"]]
            still = [p["grad"] for p in pts if p["finite"] and p["first_update_over_lr"] == 0]
            if ok:
                ax1.plot(*zip(*ok, strict=True), "o-", color=COLORS[k], label=LABELS[k])
            if bad:
                ax1.scatter(
                    bad,
                    [40] * len(bad),
                    marker="x",
                    s=80,
                    color=COLORS[k],
                    label=f"{LABELS[k]}: weights inf/NaN",
                )
            if still:
                ax1.scatter(
                    still,
                    [2e-3] * len(still),
                    marker="v",
                    s=70,
                    color=COLORS[k],
                    label=f"{LABELS[k]}: update rounded to 0",
                )
        ax1.set_xscale("log")
        ax1.set_yscale("log")
        ax1.set_ylim(1e-3, 100)
        ax1.invert_xaxis()
        ax1.set_xlabel("gradient magnitude |g|")
        ax1.set_ylabel("first update / lr (fp32 Adam: 1)")
        ax1.set_title("one Adam step at each gradient size", fontsize=10)
        ax1.axhline(1.0, color="k", lw=0.6, ls=":")
        ax1.legend(fontsize=7, loc="lower left")
        for k in VARIANTS:
            losses = [x for x in numbers["train"][k]["losses"] if math.isfinite(x)]
            dead = "" if numbers["train"][k]["finite"] else " (weights inf/NaN)"
            ax2.plot(
                range(len(losses)),
                losses,
                color=COLORS[k],
                marker="o",
                ms=3,
                label=LABELS[k] + dead,
            )
        if not numbers["train"]["fp16_state"]["finite"]:
            first = numbers["train"]["fp16_state"]["losses"][0]
            ax2.annotate(
                "fp16 state, eps 1e-8: inf after step 1",
                xy=(0, first),
                xytext=(3, first * 0.8),
                color="tab:red",
                fontsize=8,
                arrowprops={"arrowstyle": "->", "color": "tab:red"},
            )
        ax2.set_xlabel("optimizer step")
        ax2.set_ylabel("loss")
        ax2.set_title(f"training with gradients ~{numbers['train_grad']:g}", fontsize=10)
        ax2.legend(fontsize=7.5)
        return fig_to_png(
            fig,
            title="Adam's epsilon in fp16",
            lesson="Keep Adam's state in fp32: in fp16, eps=1e-8 is 0 and v underflows, so "
            "m/(sqrt(v)+eps) turns inf; a big eps stalls.",
            note=f"1e-8 stored in fp16 = {numbers['eps_in_fp16']:g}, in bf16 = "
            f"{numbers['eps_in_bf16']:.3g}. (1 - beta2) g^2 is 0 in fp16 once |g| < "
            f"{math.sqrt(2.0**-25 / (1 - BETA2)):.1g}.",
            bottom=0.25,
        )


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [
        ("1e-8 in fp16", fmt(numbers["eps_in_fp16"])),
        ("1e-8 in bf16", fmt(numbers["eps_in_bf16"])),
    ]
    for k in VARIANTS:
        pts = numbers["sweep"][k]
        rows.append(
            (
                k,
                "  ".join(
                    f"{p['grad']:g}:{fmt(p['first_update_over_lr'], 2) if p['finite'] else 'inf'}"
                    for p in pts
                ),
            )
        )
    for k, r in numbers["train"].items():
        state = f"final loss {fmt(r['losses'][-1])}" if r["finite"] else "weights inf/NaN"
        rows.append((f"train {k}", state))
    return rows


def run(dev: torch.device):
    return timed_run("adam-epsilon", dev, {}, lambda: compute(dev), plot, SNIPPET, highlights)
