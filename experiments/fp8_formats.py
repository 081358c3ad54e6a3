"""FP8 E4M3 vs E5M2: every bit pattern decoded, rounding of telling values, amax scaling.

The format facts come from decoding all 256 bit patterns of each torch dtype (no table
typed in by hand); the casts run on the demo's device, where overflow behaviour of E4M3
(saturate to 448 or NaN: it has no inf) is observed and reported.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from experiments._common import SEED, fig_to_png, figure, fmt, generator, timed_run

FORMATS = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
SAMPLES: dict[str, float] = {
    "0.1": 0.1,
    "1/3": 1 / 3,
    "pi": math.pi,
    "300": 300.0,
    "1e-3": 1e-3,
    "1e-5": 1e-5,
    "1000 (past E4M3's max)": 1000.0,
    "70000 (past E5M2's max)": 70000.0,
}
GRAD_SCALE = 1e-3  # a gradient-like tensor: N(0, 1e-3^2)
N_VALUES = 4096


def decode_all(dtype: torch.dtype) -> torch.Tensor:
    """The 256 values of an 8-bit float format, by reinterpreting every bit pattern."""
    return torch.arange(256, dtype=torch.int16).to(torch.uint8).view(dtype).double()


def format_facts(dtype: torch.dtype) -> dict[str, Any]:
    vals = decode_all(dtype)
    finite = vals[torch.isfinite(vals)]
    positive = finite[finite > 0]
    fi = torch.finfo(dtype)
    return {
        "max": finite.max().item(),
        "has_inf": bool(torch.isinf(vals).any()),
        "nan_patterns": int(torch.isnan(vals).sum()),
        "smallest_subnormal": positive.min().item(),
        "smallest_normal": fi.smallest_normal,
        "eps": fi.eps,
        "mantissa_bits": round(-math.log2(fi.eps)),
        "finite_values": int(finite.numel()),
    }


def nearest(value: float, dtype: torch.dtype) -> float | None:
    """Round-to-nearest-even onto the decoded grid (the theory a cast must match).

    None past the format's max: there the format's overflow rule decides, not rounding.
    """
    if abs(value) > torch.finfo(dtype).max:
        return None
    grid = sorted(set(decode_all(dtype)[torch.isfinite(decode_all(dtype))].tolist()))
    best = min(grid, key=lambda g: (abs(g - value), 0))
    ties = [g for g in grid if abs(g - value) == abs(best - value)]
    if len(ties) > 1:  # even = last mantissa bit 0
        bits = {g: int(torch.tensor(g).to(dtype).view(torch.uint8)) for g in ties}
        best = next(g for g in ties if bits[g] % 2 == 0)
    return best


def scaled_cast(x: torch.Tensor, dtype: torch.dtype) -> tuple[torch.Tensor, float]:
    """Per-tensor scaling: map amax to the format's max, cast, then divide back."""
    scale = torch.finfo(dtype).max / x.abs().max()  # amax -> 448 (E4M3) or 57344 (E5M2)
    q = (x * scale).to(dtype)  # what would be stored / fed to an FP8 matmul
    return q.float() / scale, scale.item()  # dequantized


SNIPPET = """
scale = torch.finfo(dtype).max / x.abs().max()  # amax -> 448 (E4M3) or 57344 (E5M2)
q = (x * scale).to(dtype)  # what would be stored / fed to an FP8 matmul
return q.float() / scale, scale.item()  # dequantized
"""
SNIPPET_FUNCS = (scaled_cast,)


def _errors(x: torch.Tensor, y: torch.Tensor) -> dict[str, float]:
    nz = x != 0
    zeroed = ((y == 0) & nz).float().mean().item()
    rel = ((y - x).abs() / x.abs())[nz & torch.isfinite(y)]
    return {
        "zeroed": zeroed,
        "mean_rel_error": rel.mean().item(),
        "max_rel_error": rel.max().item(),
    }


def compute(dev: torch.device) -> dict[str, Any]:
    facts = {k: format_facts(dt) for k, dt in FORMATS.items()}
    src = torch.tensor(list(SAMPLES.values()), dtype=torch.float32, device=dev)
    rounding: dict[str, dict[str, float | None]] = {}
    for i, (label, v) in enumerate(SAMPLES.items()):
        row: dict[str, float | None] = {"input": v}
        for k, dt in FORMATS.items():
            row[k] = src[i].to(dt).float().item()  # the cast, on this device
            row[f"{k}_nearest"] = nearest(v, dt)
        rounding[label] = row
    g = generator(dev, SEED)
    x = (torch.randn(N_VALUES, generator=g) * GRAD_SCALE).to(dev)
    scaling: dict[str, Any] = {}
    for k, dt in FORMATS.items():
        deq, scale = scaled_cast(x, dt)
        scaling[k] = {
            "direct": _errors(x, x.to(dt).float()),
            "scaled": _errors(x, deq),
            "scale": scale,
            "scaled_amax": (x * scale).abs().max().to(dt).float().item(),
        }
    return {
        "device_type": dev.type,
        "formats": facts,
        "rounding": rounding,
        "tensor": f"{N_VALUES} values ~ N(0, {GRAD_SCALE:g}^2), amax {x.abs().max().item():.3g}",
        "amax": x.abs().max().item(),
        "scaling": scaling,
        "grid": {
            k: sorted(v for v in decode_all(dt).tolist() if math.isfinite(v) and v > 0)
            for k, dt in FORMATS.items()
        },
    }


def plot(numbers: dict[str, Any]) -> bytes:
    colors = {"e4m3": "tab:blue", "e5m2": "tab:orange"}
    with figure(1, 2, figsize=(11, 4.4), gridspec_kw={"width_ratios": [3, 2]}) as (
        fig,
        (ax1, ax2),
    ):
        for i, (k, grid) in enumerate(numbers["grid"].items()):
            f = numbers["formats"][k]
            ax1.scatter(
                [math.log2(v) for v in grid],
                [i] * len(grid),
                marker="|",
                s=120,
                color=colors[k],
                label=f"{k.upper()}: {len(grid)} positive values",
            )
            inf = "has inf" if f["has_inf"] else "no inf"
            ax1.annotate(
                f"max {f['max']:g} ({inf})",
                (math.log2(f["max"]), i),
                fontsize=8,
                xytext=(4, 8),
                textcoords="offset points",
            )
        amax = numbers["amax"]
        ax1.axvline(math.log2(amax), color="red", ls=":", label=f"amax of the tensor ({amax:.2g})")
        ax1.set_yticks([0, 1], ["E4M3", "E5M2"])
        ax1.set_ylim(-0.6, 2.2)
        ax1.set_xlim(-18, 24)
        ax1.set_xlabel("log2 of positive representable values")
        ax1.set_ylabel("format")
        ax1.set_title("every FP8 value (ticks): E4M3 finer, E5M2 wider", fontsize=10)
        ax1.legend(fontsize=7.5, loc="upper left", ncol=2)
        labels, zeroed, err = [], [], []
        for k in numbers["scaling"]:
            for way in ("direct", "scaled"):
                s = numbers["scaling"][k][way]
                labels.append(f"{k.upper()}\n{'cast' if way == 'direct' else 'amax-scaled'}")
                zeroed.append(s["zeroed"])
                err.append(s["mean_rel_error"])
        xs = range(len(labels))
        ax2.bar([x - 0.2 for x in xs], zeroed, 0.4, color="tab:red", label="fraction flushed to 0")
        ax2.bar([x + 0.2 for x in xs], err, 0.4, color="tab:gray", label="mean relative error")
        ax2.set_xticks(list(xs), labels, fontsize=8)
        ax2.set_xlabel("how the tensor is cast")
        ax2.set_ylabel("fraction")
        ax2.set_title(numbers["tensor"], fontsize=9)
        ax2.legend(fontsize=8)
        r = numbers["rounding"]["1000 (past E4M3's max)"]
        return fig_to_png(
            fig,
            title="FP8: E4M3 (max 448, no inf) vs E5M2 (max 57344, with inf)",
            lesson="FP8 needs a per-tensor scale: multiply by max/amax before the cast, divide "
            "after; E4M3 keeps precision, E5M2 range.",
            note=f"Observed on {numbers['device_type']}: 1000 cast to E4M3 gives {fmt(r['e4m3'], 5)}, "
            f"to E5M2 {fmt(r['e5m2'], 5)}; pi becomes {fmt(numbers['rounding']['pi']['e4m3'])} / "
            f"{fmt(numbers['rounding']['pi']['e5m2'])}.",
            bottom=0.27,
        )


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for k, f in numbers["formats"].items():
        rows.append(
            (
                k.upper(),
                f"max {f['max']:g}  {'inf' if f['has_inf'] else 'no inf'}  "
                f"min subnormal {f['smallest_subnormal']:.3g}  eps {f['eps']:g}",
            )
        )
    for label, r in numbers["rounding"].items():
        rows.append((label, f"E4M3 {fmt(r['e4m3'], 5)}  E5M2 {fmt(r['e5m2'], 5)}"))
    for k, s in numbers["scaling"].items():
        rows.append(
            (
                f"{k.upper()} on the tensor",
                f"cast: {s['direct']['zeroed']:.0%} zeroed, "
                f"amax-scaled: {s['scaled']['zeroed']:.0%} zeroed, "
                f"error {s['scaled']['mean_rel_error']:.1%}",
            )
        )
    return rows


def run(dev: torch.device):
    return timed_run("fp8-formats", dev, {}, lambda: compute(dev), plot, SNIPPET, highlights)
