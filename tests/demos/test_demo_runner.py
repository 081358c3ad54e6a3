"""DemoRunner with a real worker process (spawned once per module, warm)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from bot.common.errors import UserError
from bot.demos.runner import (
    DemoCrashed,
    DemoFailed,
    DemoQueueFull,
    DemoRunner,
    DemoRunnerClosed,
    DemoTimeout,
    check_demo,
)
from experiments.catalog import DIAGNOSTICS_ENV

ROOT = Path(__file__).resolve().parents[2]

# One event loop for the whole module so the module-scoped runner can be shared.
# One worker for the module; real subprocesses: left out by -m "not slow".
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.slow]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def runner() -> AsyncIterator[DemoRunner]:
    # Diagnostics (_sleep/_crash/_fail) exist only with the env var; the spawned
    # worker inherits it, and the parent's validation sees it too.
    old = os.environ.get(DIAGNOSTICS_ENV)
    os.environ[DIAGNOSTICS_ENV] = "1"
    r = DemoRunner(timeout=60)
    try:
        await r.start()
        yield r
    finally:
        await r.close()
        if old is None:
            os.environ.pop(DIAGNOSTICS_ENV, None)
        else:
            os.environ[DIAGNOSTICS_ENV] = old


async def test_start_is_warm_and_runs_accumulation(runner: DemoRunner) -> None:
    info = runner.worker_info
    assert info["device"] in ("cpu",) or info["device"].startswith("cuda")
    assert info["pid"] != os.getpid()
    t0 = time.perf_counter()
    res = await runner.run("accumulation", {"micro_batches": 2, "micro_batch_size": 4})
    wall = time.perf_counter() - t0
    assert res.demo == "accumulation"
    assert res.params == {"micro_batches": 2, "micro_batch_size": 4}
    v = res.numbers["variants"]
    assert v["correct"]["grad_rel_error"] < 1e-5
    assert v["no_loss_division"]["norm_ratio"] == pytest.approx(2, rel=1e-5)
    assert res.png.startswith(b"\x89PNG")
    assert "loss.backward()" in res.snippet
    assert wall < 30  # warm worker: no torch import on this path
    json.loads(res.to_json())


def position_recorder(seen: list[int]) -> tuple[Callable[[int], None], dict[int, asyncio.Event]]:
    """A queue-position callback plus one event per position, to wait on instead of sleeping."""
    reached = {position: asyncio.Event() for position in range(4)}

    def record(position: int) -> None:
        seen.append(position)
        reached[position].set()

    return record, reached


async def test_queue_positions_reported_in_fifo_order(runner: DemoRunner) -> None:
    seen: dict[str, list[int]] = {"a": [], "b": [], "c": []}
    record_a, a_at = position_recorder(seen["a"])
    a = asyncio.create_task(runner.run("_sleep", {"seconds": 1}, on_queue_position=record_a))
    await asyncio.wait_for(a_at[0].wait(), 30)  # a holds the worker

    record_c, c_at = position_recorder(seen["c"])

    async def report_c(pos: int) -> None:  # async callbacks are supported too
        record_c(pos)

    b = asyncio.create_task(
        runner.run("_sleep", {"seconds": 0}, on_queue_position=seen["b"].append)
    )
    c = asyncio.create_task(runner.run("_sleep", {"seconds": 0}, on_queue_position=report_c))
    await asyncio.wait_for(c_at[2].wait(), 30)  # c queued behind b
    assert runner.queue_length == 2
    assert runner.busy
    await asyncio.gather(a, b, c)
    await asyncio.wait_for(c_at[0].wait(), 30)  # c's async callback ran to the end
    assert seen == {"a": [0], "b": [1, 0], "c": [2, 1, 0]}
    assert runner.queue_length == 0 and not runner.busy


async def test_queue_full_and_cancelled_waiter(runner: DemoRunner) -> None:
    runner.max_queue = 2
    try:
        seen: list[int] = []
        record_a, a_at = position_recorder([])
        a = asyncio.create_task(runner.run("_sleep", {"seconds": 1}, on_queue_position=record_a))
        await asyncio.wait_for(a_at[0].wait(), 30)
        b = asyncio.create_task(runner.run("_sleep", {"seconds": 0}))
        record_c, c_at = position_recorder(seen)
        c = asyncio.create_task(runner.run("_sleep", {"seconds": 0}, on_queue_position=record_c))
        await asyncio.wait_for(c_at[2].wait(), 30)
        with pytest.raises(DemoQueueFull):
            await runner.run("formats")
        b.cancel()  # a waiter leaving the queue moves the others up
        await asyncio.wait({b})
        assert runner.queue_length == 1
        await asyncio.gather(a, c)
        with pytest.raises(asyncio.CancelledError):
            await b
        assert seen == [2, 1, 0]
    finally:
        runner.max_queue = 10


async def test_params_validated_in_parent(runner: DemoRunner) -> None:
    with pytest.raises(UserError) as too_many:
        await runner.run("accumulation", {"micro_batches": 99})
    assert too_many.value.key == "demo.param_range"
    assert too_many.value.params == {"param": "micro_batches", "value": 99, "min": 1, "max": 16}
    with pytest.raises(UserError) as unknown:
        await runner.run("no-such-demo")
    assert unknown.value.key == "demo.unknown" and unknown.value.params["name"] == "no-such-demo"
    assert check_demo("batchnorm", {"micro_batches": 2}) == {
        "micro_batches": 2,
        "micro_batch_size": 8,
    }


async def test_failure_inside_demo_keeps_worker(runner: DemoRunner) -> None:
    pid, restarts = runner.worker_info["pid"], runner.restarts
    with pytest.raises(DemoFailed, match="diagnostic failure") as exc_info:
        await runner.run("_fail")
    assert exc_info.value.error_type == "RuntimeError"
    assert runner.worker_info["pid"] == pid and runner.restarts == restarts


async def test_timeout_kills_and_restarts(runner: DemoRunner) -> None:
    pid, restarts = runner.worker_info["pid"], runner.restarts
    t0 = time.perf_counter()
    with pytest.raises(DemoTimeout):
        await runner.run("_sleep", {"seconds": 60}, time_limit=0.5)
    assert time.perf_counter() - t0 < 5  # raised promptly; restart happens in background
    assert runner.restarts == restarts + 1
    res = await runner.run("formats")  # waits for the fresh worker
    assert res.numbers["values"]["1e-8"]["fp16"] == 0.0
    assert runner.worker_info["pid"] != pid


async def test_crash_raises_and_restarts(runner: DemoRunner) -> None:
    pid = runner.worker_info["pid"]
    with pytest.raises(DemoCrashed, match="exit code 17"):
        await runner.run("_crash")
    res = await runner.run("master-weights")
    assert res.numbers["stalled"]["fp16"] is True
    assert runner.worker_info["pid"] != pid


async def test_closed_runner_refuses() -> None:
    r = DemoRunner()
    await r.close()
    with pytest.raises(DemoRunnerClosed):
        await r.run("formats")


_PARENT_SCRIPT = """
import asyncio, json, sys
from bot.demos.runner import DemoRunner

async def main():
    r = DemoRunner(warm_up=False)
    await r.start()
    res = await r.run("accumulation", {"micro_batches": 2})
    await r.run("autocast")  # its numbers once carried a torch str subclass
    await r.close()
    print(json.dumps({"torch": "torch" in sys.modules, "png": res.png[:4].hex(),
                      "ratio": res.numbers["variants"]["no_loss_division"]["norm_ratio"]}))

asyncio.run(main())
"""


async def test_parent_process_never_imports_torch() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _PARENT_SCRIPT,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(proc.communicate(), 180)
    assert proc.returncode == 0, stderr.decode()
    data = json.loads(stdout.decode().strip().splitlines()[-1])
    assert data == {"torch": False, "png": b"\x89PNG".hex(), "ratio": pytest.approx(2.0)}


async def test_concurrent_starts_spawn_one_worker() -> None:
    """The bot's warm-up and an early /demo both ask for the worker: one start only."""
    runner = DemoRunner(warm_up=False)
    spawn = runner._spawn_blocking
    spawned: list[int] = []

    def counting_spawn() -> Any:
        worker = spawn()
        spawned.append(worker.process.pid)
        return worker

    runner._spawn_blocking = counting_spawn  # type: ignore[method-assign]
    try:
        await asyncio.gather(runner.start(), runner.start(), runner.run("formats"))
        assert spawned == [runner.worker_info["pid"]]
    finally:
        await runner.close()


async def test_a_request_waiting_for_the_worker_start_ends_quietly_when_closed() -> None:
    # The warm-up is starting the worker (it holds the start lock) when the bot stops: a
    # refill of generated questions waiting behind it is told the runner closed, instead
    # of asking the closed runner's thread pool for a worker (RuntimeError).
    runner = DemoRunner(warm_up=False)
    async with runner._start_lock:
        batch = asyncio.create_task(runner.generate_batch("fp16-round", [1]))
        await asyncio.sleep(0)  # one turn of the loop: the batch runs until the lock stops it
        assert runner._busy  # it holds the slot and waits for the worker
        await runner.close()
    with pytest.raises(DemoRunnerClosed):
        await batch
