"""fp32 master weights: tiny repeated updates vanish in 16-bit weights."""

from __future__ import annotations

from typing import Any

import torch

from experiments._common import fig_to_png, figure, fmt, timed_run

STEPS = 1000
LR = 1e-4
GRAD = 1.0  # constant gradient: every step should move the weight by LR * GRAD


def train_weights(dev: torch.device, steps: int = STEPS, lr: float = LR) -> torch.Tensor:
    """Trajectories [step, (fp32, fp16, bf16, fp16-from-master)] starting at w = 1.0."""
    w32 = torch.ones((), dtype=torch.float32, device=dev)
    w16 = torch.ones((), dtype=torch.float16, device=dev)
    wbf = torch.ones((), dtype=torch.bfloat16, device=dev)
    master = torch.ones((), dtype=torch.float32, device=dev)
    hist = torch.empty(steps + 1, 4, dtype=torch.float32, device=dev)
    hist[0] = 1.0
    for step in range(1, steps + 1):
        w32 -= lr * GRAD  # plain fp32 training
        w16 -= lr * GRAD  # fp16 weight: 1 - 1e-4 rounds back to 1.0
        wbf -= lr * GRAD  # bf16: even coarser spacing, same stall
        master -= lr * GRAD  # fp32 master copy accumulates every step
        model_w16 = master.half()  # the fp16 copy the model computes with
        hist[step] = torch.stack([w32, w16.float(), wbf.float(), model_w16.float()])
    return hist.cpu()


SNIPPET = """
w16 -= lr * GRAD  # fp16 weight: 1 - 1e-4 rounds back to 1.0
wbf -= lr * GRAD  # bf16: even coarser spacing, same stall
master -= lr * GRAD  # fp32 master copy accumulates every step
model_w16 = master.half()  # the fp16 copy the model computes with
"""
SNIPPET_FUNCS = (train_weights,)
LABELS = ("fp32", "fp16", "bf16", "fp16 copy of fp32 master")
KEYS = ("fp32", "fp16", "bf16", "fp16_from_master")


def compute(dev: torch.device) -> dict[str, Any]:
    hist = train_weights(dev)
    final = dict(zip(KEYS, hist[-1].tolist(), strict=True))
    # Below 1.0 the spacing is eps/2, so a step must exceed eps/4 to change the weight.
    half_spacing = {
        k: torch.finfo(dt).eps / 4
        for k, dt in (("fp32", torch.float32), ("fp16", torch.float16), ("bf16", torch.bfloat16))
    }
    stride = max(1, STEPS // 200)
    return {
        "start": 1.0,
        "lr_times_grad": LR * GRAD,
        "steps": STEPS,
        "expected_final": 1.0 - STEPS * LR * GRAD,
        "final": final,
        "moved": {k: 1.0 - v for k, v in final.items()},
        "stalled": {k: v == 1.0 for k, v in final.items()},
        "half_spacing_below_1": half_spacing,
        "trajectory_every": stride,
        "trajectories": {k: hist[::stride, i].tolist() for i, k in enumerate(KEYS)},
    }


STYLES = {
    # Drawn in this order: bf16 first and wide, so the fp16 line on top stays visible.
    "bf16": {"color": "#bbbbbb", "lw": 7, "ls": "-", "zorder": 1},
    "fp32": {"color": "tab:blue", "lw": 2, "ls": "-", "zorder": 2},
    "fp16_from_master": {"color": "tab:green", "lw": 2, "ls": ":", "zorder": 3},
    "fp16": {"color": "tab:red", "lw": 2.5, "ls": "--", "zorder": 4},
}


def plot(numbers: dict[str, Any]) -> bytes:
    stride = numbers["trajectory_every"]
    names = dict(zip(KEYS, LABELS, strict=True))
    with figure(1, 1, figsize=(9, 4.6)) as (fig, ax):
        for key, style in STYLES.items():
            ys = numbers["trajectories"][key]
            state = " (stuck at 1.0)" if numbers["stalled"][key] else ""
            ax.plot([i * stride for i in range(len(ys))], ys, label=names[key] + state, **style)
        ax.annotate(
            f"fp16 and bf16 weights never move: {numbers['lr_times_grad']:g} is below half "
            f"the fp16 spacing ({numbers['half_spacing_below_1']['fp16']:.2g})",
            xy=(numbers["steps"] * 0.55, 1.0),
            xytext=(numbers["steps"] * 0.22, 0.965),
            fontsize=8.5,
            color="tab:red",
            arrowprops={"arrowstyle": "->", "color": "tab:red"},
        )
        ax.set_xlabel("optimizer step")
        ax.set_ylabel("weight value")
        ax.set_ylim(numbers["expected_final"] - 0.01, 1.01)
        ax.set_title(
            f"w -= {numbers['lr_times_grad']:g} every step, starting at 1.0 "
            f"(expected {numbers['expected_final']:g} after {numbers['steps']} steps)",
            fontsize=10,
        )
        ax.legend(loc="lower left", fontsize=9)
        return fig_to_png(
            fig,
            title="Why keep fp32 master weights",
            lesson="An update below half a weight's spacing rounds away: fp16 weights stall, "
            "an fp32 master copy keeps every step.",
            note="The model can still compute with an fp16 copy of the master (green): it "
            "follows fp32 in steps of one fp16 spacing.",
            bottom=0.22,
        )


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [("update per step", fmt(numbers["lr_times_grad"]))]
    for k in KEYS:
        state = "STALLED" if numbers["stalled"][k] else "moves"
        rows.append((k, f"final {numbers['final'][k]:.6f} ({state})"))
    rows.append(("fp16 half spacing below 1", fmt(numbers["half_spacing_below_1"]["fp16"])))
    return rows


def run(dev: torch.device):
    return timed_run("master-weights", dev, {}, lambda: compute(dev), plot, SNIPPET, highlights)
