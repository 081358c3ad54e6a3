"""How the demos time their work: `elapsed_ms` and the worker's warm-up (issue 14.6).

On a GPU a kernel runs after its launch returns, so a host clock read without a
synchronise times the launches only; `elapsed_ms` uses CUDA events there. The CPU path
is tested everywhere, the CUDA path where a GPU is present.
"""

from __future__ import annotations

import time

import pytest
import torch

from experiments._common import elapsed_ms, warm_up


def matmuls(dev: torch.device, count: int, n: int = 256) -> None:
    a = torch.ones(n, n, device=dev)
    for _ in range(count):
        a = (a @ a) / n


def fastest(dev: torch.device, count: int) -> float:
    return min(elapsed_ms(dev, lambda: matmuls(dev, count)) for _ in range(3))


def test_elapsed_ms_grows_with_the_work_on_cpu() -> None:
    cpu = torch.device("cpu")
    matmuls(cpu, 1)
    one, forty = fastest(cpu, 1), fastest(cpu, 40)
    assert one > 0
    assert forty > 10 * one, (one, forty)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_elapsed_ms_times_the_gpu_work_not_the_launches() -> None:
    cuda = torch.device("cuda")
    warm_up(cuda)
    assert torch.cuda.is_initialized()
    work = lambda: matmuls(cuda, 200, n=2048)  # noqa: E731
    work()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    work()
    launches_ms = (time.perf_counter() - t0) * 1e3  # no synchronise: the launches only
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    work()
    torch.cuda.synchronize()
    synced_ms = (time.perf_counter() - t0) * 1e3
    timed = elapsed_ms(cuda, work)
    # 200 matmuls of 2048^2 take milliseconds of device time; their launches far less.
    assert timed > 2 * launches_ms, (timed, launches_ms)
    assert 0.5 * synced_ms < timed < 1.5 * synced_ms, (timed, synced_ms)
