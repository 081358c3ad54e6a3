"""What autocast does to each op on the CPU and on THIS device, side by side, and which AMP
calls are deprecated here.

Ops autocast may run in 16-bit (matmul, linear, conv2d) get fp32 inputs: a 16-bit output
means autocast lowered them. Ops autocast may keep in fp32 (softmax, sum, ...) get 16-bit
inputs of the autocast dtype: an fp32 output means autocast cast them up, a 16-bit one
that it left them alone. The lists differ by device (CPU vs CUDA), so nothing is assumed:
the CPU column is always observed (tiny tensors: milliseconds), so a question about CPU
autocast agrees with the demo on a GPU host too, next to the GPU's own column.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from matplotlib.patches import Patch

from experiments._common import SEED, fig_to_png, figure, generator, timed_run
from experiments.cuda import kind_of

LOW_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}
#: Ops fed fp32 inputs (does autocast lower them?).
LOWERED = ("linear", "matmul", "conv2d")
#: Ops fed 16-bit inputs (does autocast cast them up to fp32?).
UPCAST_CANDIDATES = (
    "softmax",
    "log_softmax",
    "sum",
    "exp",
    "layer_norm",
    "mse_loss",
    "cross_entropy",
)
#: Ops the CUDA autocast reference lists as autocast to float32 (PyTorch "Autocast Op
#: Reference"); shown only to say how this device differs, never as this device's result.
CUDA_FP32_LIST = ("softmax", "log_softmax", "sum", "exp", "layer_norm", "mse_loss", "cross_entropy")


def make_ops(dev: torch.device, low: torch.dtype) -> dict[str, Callable[[], torch.Tensor]]:
    g = generator(dev, SEED)
    x32 = torch.randn(8, 16, generator=g)
    w = torch.randn(16, 16, generator=g).to(dev)
    img = torch.randn(1, 3, 8, 8, generator=g).to(dev)
    k = torch.randn(4, 3, 3, 3, generator=g).to(dev)
    x, x16 = x32.to(dev), x32.to(dev, low)  # x16: e.g. the output of a lowered matmul
    target = torch.zeros(8, dtype=torch.long, device=dev)
    return {
        "linear": lambda: F.linear(x, w),
        "matmul": lambda: x @ w,
        "conv2d": lambda: F.conv2d(img, k),
        "softmax": lambda: torch.softmax(x16, dim=-1),
        "log_softmax": lambda: F.log_softmax(x16, dim=-1),
        "sum": lambda: x16.sum(),
        "exp": lambda: x16.exp(),
        "layer_norm": lambda: F.layer_norm(x16, (16,)),
        "mse_loss": lambda: F.mse_loss(x16, x16 * 0.5),
        "cross_entropy": lambda: F.cross_entropy(x16, target),
    }


def observe(dev: torch.device) -> dict[str, Any]:
    """Run each op under autocast(fp16) and autocast(bf16); record the output dtype."""
    table: dict[str, dict[str, str]] = {}
    for label, dtype in LOW_DTYPES.items():
        table[label] = {}
        for name, op in make_ops(dev, dtype).items():
            try:
                with torch.autocast(device_type=dev.type, dtype=dtype):
                    out = op()
                table[label][name] = str(out.dtype).removeprefix("torch.")
            except (RuntimeError, AssertionError) as exc:  # unsupported on this device
                if kind_of(exc) is not None:
                    raise  # the GPU failed (out of memory, ...): not "unsupported"
                table[label][name] = f"error: {str(exc).splitlines()[0][:60]}"
    return table


def api_calls(dev: torch.device) -> dict[str, Callable[[], Any]]:
    """AMP entry points, constructed (not entered): construction is where torch warns."""
    return {
        f'torch.amp.autocast("{dev.type}", dtype=torch.float16)': lambda: torch.amp.autocast(
            dev.type, dtype=torch.float16
        ),
        f'torch.amp.GradScaler("{dev.type}")': lambda: torch.amp.GradScaler(dev.type),
        "torch.cuda.amp.autocast()": lambda: torch.cuda.amp.autocast(),
        "torch.cuda.amp.GradScaler()": lambda: torch.cuda.amp.GradScaler(),
        "torch.cpu.amp.autocast()": lambda: torch.cpu.amp.autocast(),
    }


def api_status(dev: torch.device) -> dict[str, dict[str, str]]:
    """Which AMP calls emit a FutureWarning/DeprecationWarning on the installed torch."""
    out = {}
    for call, make in api_calls(dev).items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                make()
                error = ""
            except Exception as exc:  # an API removed in a future torch
                error = f"{type(exc).__name__}: {exc}"[:80]
        deprecations = [
            w for w in caught if issubclass(w.category, FutureWarning | DeprecationWarning)
        ]
        if error:
            status, message = "error", error
        elif deprecations:
            status, message = "deprecated", str(deprecations[0].message).split(". ")[0][:90]
        else:
            status, message = "current", ""
        out[call] = {"status": status, "message": message}
    return out


SNIPPET = """
with torch.autocast(device_type=dev.type, dtype=dtype):
    out = op()
table[label][name] = str(out.dtype).removeprefix("torch.")
"""
SNIPPET_FUNCS = (observe,)


def compute(dev: torch.device) -> dict[str, Any]:
    observed = observe(dev)
    # Columns: the CPU first, then the worker's device when it is another one.
    by_device = {"cpu": observe(torch.device("cpu")) if dev.type != "cpu" else observed}
    by_device[dev.type] = observed
    cast_up = {
        k: [op for op in UPCAST_CANDIDATES if v[op] == "float32"] for k, v in observed.items()
    }
    kept_low = {
        k: [op for op in UPCAST_CANDIDATES if v[op] == str(LOW_DTYPES[k]).removeprefix("torch.")]
        for k, v in observed.items()
    }
    return {
        "device_type": dev.type,
        "torch_version": str(torch.__version__),
        "input_dtypes": {op: "float32" for op in LOWERED}
        | {op: "autocast dtype" for op in UPCAST_CANDIDATES},
        "ops": [*LOWERED, *UPCAST_CANDIDATES],
        "observed": observed,
        "by_device": by_device,
        "cast_up_to_fp32": cast_up,
        "kept_in_16bit": kept_low,
        "cuda_reference_fp32_list": list(CUDA_FP32_LIST),
        "apis": api_status(dev),
    }


COLORS = {"low": "#f4b183", "fp32": "#9dc3e6", "error": "#dddddd"}


def _cell(op: str, out: str, low: str) -> tuple[str, str]:
    if out.startswith("error"):
        return "unsupported here", COLORS["error"]
    if op in LOWERED:
        return (f"{out} (lowered)", COLORS["low"]) if out == low else (out, COLORS["fp32"])
    if out == "float32":
        return "float32 (cast up)", COLORS["fp32"]
    return (f"{out} (kept)", COLORS["low"]) if out == low else (out, COLORS["error"])


def plot(numbers: dict[str, Any]) -> bytes:
    ops, dev = numbers["ops"], numbers["device_type"]
    by_device = numbers.get("by_device") or {dev: numbers["observed"]}
    cols = [(d, c) for d, obs in by_device.items() for c in obs]
    rows, colors = [], []
    for op in ops:
        src = "fp32" if op in LOWERED else "same 16-bit dtype"
        cells = [
            _cell(op, by_device[d][c][op], str(LOW_DTYPES[c]).removeprefix("torch."))
            for d, c in cols
        ]
        rows.append([op, src, *(t for t, _ in cells)])
        colors.append(["white", "white", *(c for _, c in cells)])
    width = 0.6 / len(cols)
    where = " and ".join(by_device)
    apis = numbers["apis"]
    api_rows = [[call, info["status"]] for call, info in apis.items()]
    api_colors = [
        ["white", {"current": "#c5e0b4", "deprecated": "#ff9f9f"}.get(i["status"], "#dddddd")]
        for i in apis.values()
    ]
    with figure(2, 1, figsize=(9, 7.2), gridspec_kw={"height_ratios": [len(ops) + 1, 6]}) as (
        fig,
        (ax, ax2),
    ):
        ax.axis("off")
        ax.table(
            cellText=rows,
            cellColours=colors,
            bbox=[0, 0, 1, 1],
            cellLoc="center",
            colLabels=["op", "input", *(f"{d} autocast {c}" for d, c in cols)],
            colWidths=[0.22, 0.18, *(width for _ in cols)],
        )
        ax.set_title(f"output dtype of each op under autocast on {where} (observed)", fontsize=10)
        ax.legend(
            handles=[
                Patch(color=COLORS["low"], label="runs in 16-bit"),
                Patch(color=COLORS["fp32"], label="runs in fp32"),
                Patch(color=COLORS["error"], label="unsupported / other"),
            ],
            loc="lower center",
            bbox_to_anchor=(0.5, 1.04),
            ncol=3,
            fontsize=8,
            frameon=False,
        )
        ax2.axis("off")
        ax2.table(
            cellText=api_rows,
            cellColours=api_colors,
            bbox=[0, 0, 1, 1],
            colLabels=[f"AMP call (torch {numbers['torch_version']})", "observed"],
            cellLoc="center",
            colWidths=[0.75, 0.25],
        )
        ax2.set_title("which AMP calls warn FutureWarning here", fontsize=10)
        ax2.legend(
            handles=[
                Patch(color="#c5e0b4", label="current: no warning"),
                Patch(color="#ff9f9f", label="deprecated: FutureWarning"),
            ],
            loc="lower center",
            bbox_to_anchor=(0.5, 1.06),
            ncol=2,
            fontsize=8,
            frameon=False,
        )
        return fig_to_png(
            fig,
            title=f"What autocast does on {where}",
            lesson="autocast lowers matmul-like ops to 16-bit and casts some others up to fp32; "
            "use torch.amp.autocast(device, ...)",
            note=device_note(numbers),
            top=0.9,
            bottom=0.12,
            left=0.03,
            right=0.97,
            hspace=0.3,
        )


def device_note(numbers: dict[str, Any]) -> str:
    """What each device did with softmax / log_softmax / sum (where CPU and CUDA differ)."""
    watched = ("softmax", "log_softmax", "sum")
    by_device = numbers.get("by_device") or {numbers["device_type"]: numbers["observed"]}
    said = []
    for device, observed in by_device.items():
        up = [op for op in watched if observed["fp16"][op] == "float32"]
        kept = [op for op in watched if observed["fp16"][op] == "float16"]
        parts = [f"{', '.join(up)} cast up to fp32"] if up else []
        parts += [f"{', '.join(kept)} kept in 16-bit"] if kept else []
        said.append(f"On {device}: {'; '.join(parts) or 'see the table'}.")
    tail = (
        " The op lists differ by device (CUDA casts these up, CPU does not)."
        if len(said) == 1
        else " The op lists differ by device."
    )
    return " ".join(said) + tail


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    by_device = numbers["by_device"]
    rows = [
        (op, "  ".join(f"{d} {c}→{obs[c][op]}" for d, obs in by_device.items() for c in obs))
        for op in numbers["ops"]
    ]
    up = numbers["cast_up_to_fp32"]["fp16"]
    rows.append((f"cast up to fp32 on {numbers['device_type']}", ", ".join(up) or "none"))
    for call, info in numbers["apis"].items():
        rows.append((call, info["status"]))
    return rows


def run(dev: torch.device):
    return timed_run("autocast", dev, {}, lambda: compute(dev), plot, SNIPPET, highlights)
