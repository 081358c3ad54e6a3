"""What a CUDA failure is, the test seam that raises one without a GPU, and the probe
`quiztutor doctor` runs: the parts of `experiments.gpu` that need torch (imported here,
in the worker, the command line's run or the doctor's child process, never in the bot).
"""

from __future__ import annotations

import time
from typing import Any

import torch

from experiments.gpu import (
    CUDA_MARKERS,
    FAULT_MESSAGES,
    STICKY_MARKERS,
    GpuUnavailable,
    capability_claims,
    env_faults,
    parse_faults,
    reason,
)


def inject(spec: str | None, stage: str) -> None:
    """Raise the failure `spec` names for `stage` (as torch raises it), if any."""
    failure = parse_faults(spec).get(stage)
    if failure is None:
        return
    message = FAULT_MESSAGES[failure]
    if failure == "oom":
        raise torch.cuda.OutOfMemoryError(message)
    if failure == "driver":
        raise GpuUnavailable(message)
    raise torch.AcceleratorError(message)


def kind_of(exc: BaseException) -> str | None:
    """``"oom"``, ``"sticky"``, ``"cuda"`` or None (not a GPU failure)."""
    text = str(exc).lower()
    if isinstance(exc, torch.cuda.OutOfMemoryError) or "out of memory" in text:
        return "oom"
    if any(marker in text for marker in STICKY_MARKERS):
        return "sticky"
    if isinstance(exc, GpuUnavailable | torch.AcceleratorError) or any(
        marker in text for marker in CUDA_MARKERS
    ):
        return "cuda"
    return None


def probe(device: str = "auto") -> dict[str, Any]:
    """What a demo worker will find (`quiztutor doctor` runs this in a child process):
    torch's version and import time, whether CUDA is available, and whether the GPU
    `device` names works (a matmul and a cuDNN conv under autocast) or why not.

    Why CUDA is unavailable is what torch warns on stderr (a driver too old, no device):
    the doctor reads it there. The ``probe`` fault makes that warning as torch words it."""
    import warnings

    started = time.perf_counter()
    info: dict[str, Any] = {
        "version": str(torch.__version__),
        "import_s": round(time.perf_counter() - started, 2),
        "cuda": False,
        "gpu": None,
        "reason": None,
    }
    faults = parse_faults(env_faults())
    if "probe" in faults:  # torch warns and reports no CUDA
        warnings.warn(FAULT_MESSAGES[faults["probe"]], UserWarning, stacklevel=1)
        return info
    info["cuda"] = torch.cuda.is_available()
    if device == "cpu" or not (info["cuda"] or "warmup" in faults):
        return info  # no CUDA: the doctor says why from torch's warning
    try:
        dev = torch.device("cuda" if device == "auto" else device)
        inject(env_faults(), "warmup")
        info["gpu"] = torch.cuda.get_device_name(dev)
        info["capability"] = capability_claims(*torch.cuda.get_device_capability(dev))
        a = torch.ones(64, 64, device=dev)
        img, kernel = torch.ones(1, 3, 8, 8, device=dev), torch.ones(4, 3, 3, 3, device=dev)
        with torch.autocast("cuda", dtype=torch.float16):
            (a @ a).sum().item()
            torch.nn.functional.conv2d(img, kernel).sum().item()
    except Exception as exc:
        info["reason"] = reason(exc)
    return info
