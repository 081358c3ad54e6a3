"""The host's GPU: which device a setting names, what a CUDA failure is, what a card can do.

Torch-free: the bot process (the demo runner, the doctor) and the command line's parser
use it; `experiments.cuda` holds the parts that need torch (classifying an exception,
the test seam that raises one, the doctor's probe).

A CUDA failure is one of three kinds, each handled its own way:

* ``oom``: the GPU's memory is used up (often by another job): the demo fails with
  "the GPU is busy"; the worker is fine and keeps serving.
* ``sticky``: an error after which the CUDA context is unusable until the process ends
  (an illegal memory access, a device-side assert, a GPU reset): the worker ends so that
  it is restarted.
* ``cuda``: any other CUDA error (no kernel image for this card, the device busy in
  Exclusive_Process mode, a driver too old for this torch).

The test seam (`FAULT_ENV`, or the DemoRunner's ``fault``) names failures to raise at a
stage, as torch raises them, so the fallback and the messages are tested on any host.
"""

from __future__ import annotations

import logging
import os
import re
import time
from typing import Any

#: What DEMO_DEVICE and ``--device`` accept.
DEVICE_PATTERN = r"^(auto|cpu|cuda(:[0-9]+)?)$"
DEVICE_HELP = "auto (cuda if usable, else cpu), cpu, cuda or cuda:N"

#: The test seam: ``stage:failure`` pairs, comma-separated, e.g. ``warmup:busy,run:oom``.
FAULT_ENV = "QUIZTUTOR_DEMO_FAULT"
STAGES = ("warmup", "run", "probe")
#: Each failure as torch words it (the CUDA runtime's own messages).
FAULT_MESSAGES = {
    "oom": "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "79.19 GiB of which 18.00 MiB is free (injected)",
    "illegal": "CUDA error: an illegal memory access was encountered (injected)",
    "busy": "CUDA error: CUDA-capable device(s) is/are busy or unavailable (injected)",
    "nokernel": "CUDA error: no kernel image is available for execution on the device (injected)",
    "driver": "CUDA initialization: The NVIDIA driver on your system is too old "
    "(found version 11040) (injected)",
}

#: Errors after which the process's CUDA context is unusable (CUDA runtime messages).
STICKY_MARKERS = (
    "illegal memory access",
    "illegal instruction",
    "misaligned address",
    "device-side assert",
    "unspecified launch failure",
    "uncorrectable ecc",
    "fallen off the bus",
    "gpu reset",
    "context is destroyed",
    "launch timed out",
)
CUDA_MARKERS = ("cuda", "cublas", "cudnn", "nccl", "nvrtc", "nvidia driver")
REASON_CHARS = 160


class GpuUnavailable(RuntimeError):
    """DEMO_DEVICE names a GPU that could not be used (the reason is the message)."""


def parse_faults(spec: str | None) -> dict[str, str]:
    """``"warmup:busy,run:oom"`` -> ``{"warmup": "busy", "run": "oom"}``; unknown parts
    are an error (a seam that silently does nothing would test nothing)."""
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in (spec or "").split(","))):
        stage, _, failure = part.partition(":")
        if stage not in STAGES or failure not in FAULT_MESSAGES:
            raise ValueError(f"{FAULT_ENV}: unknown fault {part!r}")
        out[stage] = failure
    return out


def env_faults() -> str | None:
    return os.environ.get(FAULT_ENV) or None


def reason(exc: BaseException) -> str:
    """The first line of an error, short enough for a device line."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1] + "…"


def is_cuda(device: str) -> bool:
    return device == "cuda" or device.startswith("cuda:")


def capability_claims(major: int, minor: int) -> dict[str, Any]:
    """What a card of compute capability major.minor has: tensor cores for fp16 from
    Volta (sm_70), for bf16 and TF32 from Ampere (sm_80) (CUDA C Programming Guide,
    "Compute Capabilities": bf16 and tf32 wmma need 8.0)."""
    return {
        "compute_capability": f"{major}.{minor}",
        "tensor_cores_fp16": major >= 7,
        "tensor_cores_bf16": major >= 8,
        "tf32": major >= 8,
    }


def device_line(device: str, fallback: str | None) -> str:
    """A demo's device line: where it ran and, after a fallback, why not on the GPU."""
    return f"{device} (GPU not used: {fallback})" if fallback else device


def is_device(spec: str) -> bool:
    return re.fullmatch(DEVICE_PATTERN, spec) is not None


class GpuRetry:
    """When the demo runner tries a failed GPU again: at most once per `interval_s`.

    Torch-free (it lives in the bot process). Each fresh worker tries the GPU at start
    unless `skip` gives a reason (it failed less than `interval_s` ago): then the worker
    runs without it at once, so a restart after a crash does not try it again early.
    """

    def __init__(self, interval_s: float, log: logging.Logger) -> None:
        self.interval_s = interval_s
        self.log = log
        self.clock = time.monotonic
        self.failed: tuple[float, str] | None = None  # (when, why)
        self.retries = 0

    def skip(self) -> str | None:
        """Why the next worker must not try the GPU; None: it may."""
        if self.failed is None:
            return None
        when, why = self.failed
        return why if self.clock() < when + self.interval_s else None

    def tried(self, info: dict[str, Any]) -> str | None:
        """Record a fresh worker's ready info; the reason when its GPU attempt failed."""
        if not info.get("gpu_tried"):
            return None
        why, was_failed = info.get("fallback"), self.failed is not None
        self.failed = (self.clock(), str(why)) if why else None
        if why:
            off = "run on the CPU" if info.get("device") != "none" else "are refused"
            self.log.warning(
                "demo GPU unusable (%s): demos %s; tried again in %.0f s at the earliest",
                why,
                off,
                self.interval_s,
            )
        elif was_failed:
            self.log.info("demo GPU usable again: %s", info.get("device"))
        return str(why) if why else None

    def due(self, info: dict[str, Any]) -> bool:
        """Whether a worker with this info should be replaced to try the GPU again."""
        return bool(info.get("fallback")) and self.skip() is None


def stderr_reason(stderr: str) -> str | None:
    """The reason torch gave on stderr: its last warning's or error's text."""
    found = None
    for line in stderr.splitlines():
        match = re.search(r"(?:Warning|Error): (.+)", line)
        if match:
            found = re.sub(r"\s*\(Triggered internally at [^)]*\)\.?", "", match.group(1))
    if found is None:
        return None
    return found if len(found) <= REASON_CHARS else found[: REASON_CHARS - 1] + "…"
