"""What each question that links the autocast demo claims, in the demo's own terms, so a
test holds the question and the demo to the same facts on each device's column.

`OP_CLAIMS[question]` lists (device, op, output) under autocast with both 16-bit dtypes:
the op gets the demo's input (fp32 for matmul-like ops, the autocast dtype for the rest),
and output "low" stands for that dtype. `API_CLAIMS[question]` are AMP calls' statuses.
"""

from __future__ import annotations

from typing import Any

LOW_NAMES = {"fp16": "float16", "bf16": "bfloat16"}
LOWERED = [(op, "low") for op in ("matmul", "linear", "conv2d")]

OP_CLAIMS: dict[str, list[tuple[str, str, str]]] = {
    # softmax(x @ w) under CPU bf16 autocast is bfloat16; CUDA would cast it up.
    "ma-01": [("cpu", "softmax", "low"), ("cuda", "softmax", "float32")],
    "mp-06": [],
    # The lists differ by device: what the explanation says of each.
    "mp-08": [
        *((device, op, out) for device in ("cpu", "cuda") for op, out in LOWERED),
        *(("cuda", op, "float32") for op in ("softmax", "log_softmax", "sum", "mse_loss")),
        *(("cpu", op, "low") for op in ("softmax", "log_softmax", "sum")),
        *(("cpu", op, "float32") for op in ("mse_loss", "cross_entropy")),
    ],
}

#: mp-06: the device-generic calls are current, the torch.cuda.amp ones deprecated.
API_CLAIMS: dict[str, dict[str, str]] = {
    "mp-06": {
        'torch.amp.autocast("{device}", dtype=torch.float16)': "current",
        'torch.amp.GradScaler("{device}")': "current",
        "torch.cuda.amp.autocast()": "deprecated",
        "torch.cuda.amp.GradScaler()": "deprecated",
    }
}


def mismatches(numbers: dict[str, Any], device: str) -> list[str]:
    """Every claim about `device` that the demo's column for it contradicts."""
    column = numbers["by_device"][device]
    wrong = []
    for question, claims in OP_CLAIMS.items():
        for where, op, out in claims:
            if where != device:
                continue
            for low, name in LOW_NAMES.items():
                want = name if out == "low" else out
                if column[low][op] != want:
                    wrong.append(
                        f"{question}: {device} {low} {op} -> {column[low][op]}, not {want}"
                    )
    if numbers["device_type"] == device:  # the API table is observed on the worker's device
        for question, apis in API_CLAIMS.items():
            for call, status in apis.items():
                seen = numbers["apis"][call.format(device=device)]["status"]
                if seen != status:
                    wrong.append(f"{question}: {call} is {seen}, not {status}")
    return wrong
