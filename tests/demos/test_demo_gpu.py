"""A GPU that fails costs only the demos that need it: the DemoRunner with a real worker,
the failures injected at the worker's warm-up and run (`experiments.cuda.inject`, the
exceptions torch raises for each), so every path runs on a host without a GPU too."""

from __future__ import annotations

import pytest

from bot.common.i18n import t
from bot.demos.runner import DemoGpuBusy, DemoGpuFailed, DemoRunner
from experiments.cuda import kind_of
from experiments.gpu import FAULT_MESSAGES, GpuRetry, capability_claims, parse_faults

# Real worker processes: left out by -m "not slow". Spawned, not forked from the shared
# forkserver: the first runner to start it fixes its environment for the whole session.
pytestmark = pytest.mark.slow

BUSY = FAULT_MESSAGES["busy"]
SMALL = {"micro_batches": 1, "micro_batch_size": 1}


async def test_warmup_failure_with_auto_falls_back_to_cpu_and_says_why() -> None:
    runner = DemoRunner(start_method="spawn", device="auto", fault="warmup:busy", gpu_retry_s=3600)
    try:
        await runner.start()
        info = runner.worker_info
        assert info["device"] == "cpu" and info["fallback"] == BUSY
        result = await runner.run("accumulation", SMALL)
        # The demo's device line says where it ran and why not on the GPU.
        assert result.device == f"cpu (GPU not used: {BUSY})"
        # Generated questions are served: the generators never needed the GPU.
        made = await runner.generate_batch("autocast-dtype", [1, 2])
        assert [i.seed for i in made] == [1, 2]
        # Within the interval the GPU is not tried again: the same worker serves.
        await runner.run("accumulation", SMALL)
        assert runner.worker_info["pid"] == info["pid"] and runner.gpu.retries == 0
    finally:
        await runner.close()


async def test_the_gpu_is_tried_again_once_the_interval_has_passed() -> None:
    runner = DemoRunner(
        start_method="spawn", device="auto", fault="warmup:busy", gpu_retry_s=0, warm_up=False
    )
    try:
        await runner.start()
        first = runner.worker_info["pid"]
        result = await runner.run("accumulation", SMALL)
        # A fresh worker tried the GPU (it failed again) before this demo: still the CPU.
        assert runner.gpu.retries == 1 and runner.worker_info["pid"] != first
        assert runner.worker_info["gpu_tried"] is True
        assert result.device == f"cpu (GPU not used: {BUSY})"
        made = await runner.generate_batch("autocast-dtype", [3])
        assert runner.gpu.retries == 1 and len(made) == 1  # questions never retry the GPU
    finally:
        await runner.close()


async def test_out_of_memory_says_the_gpu_is_busy_and_keeps_the_worker() -> None:
    runner = DemoRunner(start_method="spawn", device="cpu", fault="run:oom", warm_up=False)
    try:
        await runner.start()
        pid = runner.worker_info["pid"]
        with pytest.raises(DemoGpuBusy) as caught:
            await runner.run("speed-memory")
        assert caught.value.key == "demo.gpu_busy"
        assert "out of memory" in str(caught.value)
        assert t(caught.value.key, "en") == (
            "The GPU is busy; try again, or run demos on the CPU with `DEMO_DEVICE=cpu`."
        )
        # Not restarted (nor said to be): the same worker makes the next questions.
        assert runner.restarts == 0 and runner.worker_info["pid"] == pid
        assert len(await runner.generate_batch("autocast-dtype", [4])) == 1
    finally:
        await runner.close()


async def test_a_sticky_cuda_error_ends_the_worker_and_it_is_restarted() -> None:
    # The GPU failed at start too: the restarted worker does not try it again early.
    runner = DemoRunner(
        start_method="spawn", device="auto", fault="warmup:busy,run:illegal", warm_up=False
    )
    try:
        await runner.start()
        old = runner.worker_info["pid"]
        with pytest.raises(DemoGpuFailed) as caught:
            await runner.run("accumulation", SMALL)
        error = caught.value
        assert error.restarted and error.key == "demo.gpu_restarted"
        assert error.params["reason"] == FAULT_MESSAGES["illegal"]
        assert "being restarted" in t(error.key, "en", **error.params)
        made = await runner.generate_batch("autocast-dtype", [5])  # the fresh worker
        assert len(made) == 1 and runner.restarts == 1
        info = runner.worker_info
        assert info["pid"] != old
        assert info["gpu_tried"] is False and info["fallback"] == BUSY
    finally:
        await runner.close()


async def test_a_named_gpu_that_fails_refuses_demos_but_serves_questions() -> None:
    runner = DemoRunner(
        start_method="spawn", device="cuda:0", fault="warmup:nokernel", warm_up=False
    )
    try:
        await runner.start()
        info = runner.worker_info
        assert info["device"] == "none" and info["fallback"]
        with pytest.raises(DemoGpuFailed) as caught:
            await runner.run("formats")
        assert not caught.value.restarted and caught.value.key == "demo.gpu_failed"
        assert "restarted" not in t(caught.value.key, "en", **caught.value.params)
        assert len(await runner.generate_batch("autocast-dtype", [6])) == 1
        assert runner.restarts == 0
    finally:
        await runner.close()


# ------------------------------------------------------------------ without a worker
def test_each_injected_failure_is_classified_as_torch_raises_it() -> None:
    import torch

    from experiments.cuda import inject

    kinds = {}
    for failure in ("oom", "illegal", "busy", "nokernel", "driver"):
        with pytest.raises(RuntimeError) as caught:
            inject(f"run:{failure}", "run")
        kinds[failure] = kind_of(caught.value)
    assert kinds == {
        "oom": "oom",
        "illegal": "sticky",
        "busy": "cuda",
        "nokernel": "cuda",
        "driver": "cuda",
    }
    assert kind_of(RuntimeError("mat1 and mat2 shapes cannot be multiplied")) is None
    assert kind_of(torch.cuda.OutOfMemoryError("CUDA out of memory.")) == "oom"
    inject("warmup:busy", "run")  # another stage: nothing raised
    with pytest.raises(ValueError, match="unknown fault"):
        parse_faults("run:segfault")


def test_gpu_retry_waits_its_interval() -> None:
    import logging

    now = [100.0]
    retry = GpuRetry(600, logging.getLogger("test"))
    retry.clock = lambda: now[0]
    failed = {"gpu_tried": True, "fallback": BUSY, "device": "cpu"}
    assert retry.skip() is None
    retry.tried(failed)
    assert retry.skip() == BUSY and not retry.due(failed)
    now[0] += 599
    assert retry.skip() == BUSY
    now[0] += 1
    assert retry.skip() is None and retry.due(failed)
    retry.tried({"gpu_tried": True, "fallback": None, "device": "cuda (H100)"})
    assert retry.failed is None and not retry.due({"fallback": None})


@pytest.mark.parametrize(
    ("capability", "fp16", "bf16", "tf32"),
    [((6, 1), False, False, False), ((7, 5), True, False, False), ((8, 0), True, True, True)],
)
def test_capability_claims(capability: tuple[int, int], fp16: bool, bf16: bool, tf32: bool) -> None:
    claims = capability_claims(*capability)
    assert (claims["tensor_cores_fp16"], claims["tensor_cores_bf16"], claims["tf32"]) == (
        fp16,
        bf16,
        tf32,
    )
