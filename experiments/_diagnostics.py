"""Diagnostic 'experiments' for testing the DemoRunner (registered only with an env var)."""

from __future__ import annotations

import os
import time

import torch

from experiments._common import device_name
from experiments.result import DemoResult


def run(dev: torch.device, *, name: str, seconds: int = 1) -> DemoResult:
    t0 = time.perf_counter()
    if name == "_crash":
        os._exit(17)  # simulates a segfault / OOM kill: no exception, process just dies
    if name == "_fail":
        raise RuntimeError("diagnostic failure requested")
    time.sleep(seconds)
    return DemoResult(
        demo=name,
        params={"seconds": seconds},
        device=device_name(dev),
        numbers={"slept": seconds},
        snippet="time.sleep(seconds)",
        png=b"",
        elapsed_s=time.perf_counter() - t0,
    )
