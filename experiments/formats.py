"""fp32 / fp16 / bf16 side by side: bits, range, precision, and telling values."""

from __future__ import annotations

import math
from typing import Any

import torch

from experiments._common import fig_to_png, figure, timed_run

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
# label -> value; chosen to hit overflow, underflow, rounding and precision edges.
VALUES: dict[str, float] = {
    "65504": 65504.0,
    "70000": 70000.0,
    "1e-8": 1e-8,
    "1/3": 1 / 3,
    "1+2^-8": 1 + 2.0**-8,
    "0.1": 0.1,
    "3e38": 3e38,
}


def format_info(dtype: torch.dtype) -> dict[str, Any]:
    """Layout and limits straight from torch.finfo."""
    fi = torch.finfo(dtype)
    mantissa = round(-math.log2(fi.eps))  # explicit fraction bits
    return {
        "bits": fi.bits,
        "exponent_bits": fi.bits - 1 - mantissa,
        "mantissa_bits": mantissa,
        "max": fi.max,
        "smallest_normal": fi.smallest_normal,
        "smallest_subnormal": fi.smallest_normal * fi.eps,
        "eps": fi.eps,
    }


def convert(value: float, dtype: torch.dtype) -> float:
    """What ``value`` becomes when stored in ``dtype`` (round to nearest even)."""
    return torch.tensor(value, dtype=torch.float64).to(dtype).item()


SNIPPET = """
fi = torch.finfo(dtype)
mantissa = round(-math.log2(fi.eps))  # explicit fraction bits
return torch.tensor(value, dtype=torch.float64).to(dtype).item()
"""
SNIPPET_FUNCS = (format_info, convert)


def compute(dev: torch.device) -> dict[str, Any]:
    del dev  # pure number formats; identical on every device
    return {
        "formats": {k: format_info(dt) for k, dt in DTYPES.items()},
        "values": {
            label: {"input": v, **{k: convert(v, dt) for k, dt in DTYPES.items()}}
            for label, v in VALUES.items()
        },
    }


def plot(numbers: dict[str, Any]) -> bytes:
    with figure(1, 1, figsize=(9, 3.6)) as (fig, ax):
        for i, f in enumerate(numbers["formats"].values()):
            lo_sub, lo, hi = (
                math.log10(f[k]) for k in ("smallest_subnormal", "smallest_normal", "max")
            )
            ax.barh(
                i,
                lo - lo_sub,
                left=lo_sub,
                color="lightgray",
                label="subnormal" if i == 0 else None,
            )
            ax.barh(i, hi - lo, left=lo, color="tab:blue", label="normal" if i == 0 else None)
            ax.text(
                hi + 1,
                i,
                f"{f['mantissa_bits']} mantissa bits, eps={f['eps']:.1e}",
                va="center",
                fontsize=8,
            )
        ax.set_yticks(range(len(numbers["formats"])), list(numbers["formats"]))
        ax.axvline(-8, color="red", ls=":", lw=2, label="1e-8, a typical tiny gradient")
        ax.set_xlim(-48, 75)
        ax.set_xlabel("log10 |value| representable (subnormal, then normal range)")
        ax.set_ylabel("format")
        ax.legend(fontsize=8, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=3)
        v = numbers["values"]["1e-8"]
        return fig_to_png(
            fig,
            title="fp32 vs fp16 vs bf16: range and precision",
            lesson="bf16 keeps fp32's range with 7 mantissa bits; fp16 has 10 but a narrow range "
            "(max 65504, zero below 6e-8).",
            note=f"Red line: 1e-8 becomes {_show(v['fp16'])} in fp16 but {_show(v['bf16'])} in "
            "bf16: fp16 needs loss scaling, bf16 usually not.",
            top=0.78,
            bottom=0.3,
        )


def _show(x: Any) -> str:
    return f"{x:.8g}" if isinstance(x, float) else str(x)


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for name, f in numbers["formats"].items():
        rows.append(
            (
                name,
                f"e{f['exponent_bits']} m{f['mantissa_bits']}  max {f['max']:.4g}  "
                f"min normal {f['smallest_normal']:.3g}  min subnormal {f['smallest_subnormal']:.3g}  "
                f"eps {f['eps']:.3g}",
            )
        )
    for label, v in numbers["values"].items():
        rows.append((label, "  ".join(f"{k}={_show(v[k])}" for k in DTYPES)))
    return rows


def run(dev: torch.device):
    return timed_run("formats", dev, {}, lambda: compute(dev), plot, SNIPPET, highlights)
