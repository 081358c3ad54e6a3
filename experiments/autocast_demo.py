"""Observed output dtype of common ops under torch.autocast on this device."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from experiments._common import SEED, fig_to_png, figure, generator, timed_run

LOW_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}


def make_ops(dev: torch.device) -> dict[str, Callable[[], torch.Tensor]]:
    g = generator(dev, SEED)
    x = torch.randn(8, 16, generator=g).to(dev)  # fp32 inputs, as in a normal model
    w = torch.randn(16, 16, generator=g).to(dev)
    img = torch.randn(1, 3, 8, 8, generator=g).to(dev)
    k = torch.randn(4, 3, 3, 3, generator=g).to(dev)
    return {
        "linear": lambda: F.linear(x, w),
        "matmul": lambda: x @ w,
        "conv2d": lambda: F.conv2d(img, k),
        "softmax": lambda: torch.softmax(x, dim=-1),
        "layer_norm": lambda: F.layer_norm(x, (16,)),
        "sum": lambda: x.sum(),
        "exp": lambda: x.exp(),
        "add": lambda: x + x,
        "add(matmul_out, fp32)": lambda: (x @ w) + x,  # type promotion across dtypes
        # Same ops fed a 16-bit tensor (a matmul output): does autocast upcast them?
        "softmax(matmul_out)": lambda: torch.softmax(x @ w, dim=-1),
        "layer_norm(matmul_out)": lambda: F.layer_norm(x @ w, (16,)),
        "sum(matmul_out)": lambda: (x @ w).sum(),
        "exp(matmul_out)": lambda: (x @ w).exp(),
    }


def observe(dev: torch.device, ops: dict[str, Callable[[], torch.Tensor]]) -> dict[str, Any]:
    """Run each op under autocast(fp16) and autocast(bf16); record the output dtype."""
    table: dict[str, dict[str, str]] = {}
    for label, dtype in LOW_DTYPES.items():
        table[label] = {}
        for name, op in ops.items():
            try:
                with torch.autocast(device_type=dev.type, dtype=dtype):
                    out = op()
                table[label][name] = str(out.dtype).removeprefix("torch.")
            except (RuntimeError, AssertionError) as exc:  # unsupported on this device
                table[label][name] = f"error: {str(exc).splitlines()[0][:80]}"
    return table


SNIPPET = """
with torch.autocast(device_type=dev.type, dtype=dtype):
    out = op()
table[label][name] = str(out.dtype).removeprefix("torch.")
"""
SNIPPET_FUNCS = (observe,)


def compute(dev: torch.device) -> dict[str, Any]:
    ops = make_ops(dev)
    return {
        "device_type": dev.type,
        "torch_version": torch.__version__,
        "input_dtype": "float32",
        "ops": list(ops),
        "observed": observe(dev, ops),
    }


def plot(numbers: dict[str, Any]) -> bytes:
    ops = numbers["ops"]
    cols = list(numbers["observed"])
    cells = [[op] + [numbers["observed"][c][op][:24] for c in cols] for op in ops]

    def color(v: str) -> str:
        return {"float16": "#f4b183", "bfloat16": "#f4b183", "float32": "#9dc3e6"}.get(v, "#dddddd")

    colors = [["white"] + [color(v) for v in row[1:]] for row in cells]
    with figure(1, 1, figsize=(7, 0.35 * len(ops) + 1)) as (fig, ax):
        ax.axis("off")
        ax.table(
            cellText=cells,
            cellColours=colors,
            colLabels=["op", *(f"autocast {c}" for c in cols)],
            loc="center",
            bbox=[0, 0, 1, 1],
        )
        ax.set_title(f"output dtype on {numbers['device_type']} (inputs fp32 unless noted)")
        return fig_to_png(fig)


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    obs = numbers["observed"]
    return [(op, "  ".join(f"{c}→{obs[c][op]}" for c in obs)) for op in numbers["ops"]]


def run(dev: torch.device):
    return timed_run("autocast", dev, {}, lambda: compute(dev), plot, SNIPPET, highlights)
