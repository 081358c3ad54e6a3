"""Generated-question refills never starve `/demo`: on the real worker, a demo queued
after a refill batch still runs first (the refill waits until no demo is waiting)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from bot.demos.runner import DemoRunner
from experiments.catalog import DIAGNOSTICS_ENV

pytestmark = pytest.mark.slow  # a real worker process (torch)


@pytest_asyncio.fixture
async def runner(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[DemoRunner]:
    # `_sleep` (a demo that holds the worker) exists only with the diagnostics on; the
    # spawned worker inherits the variable.
    monkeypatch.setenv(DIAGNOSTICS_ENV, "1")
    r = DemoRunner(timeout=60)
    try:
        await r.start()
        yield r
    finally:
        await r.close()


async def test_demos_go_before_refills_queued_earlier(runner: DemoRunner) -> None:
    order: list[str] = []
    running = asyncio.Event()

    def at(position: int) -> None:
        if position == 0:
            running.set()

    async def demo(name: str, seconds: float) -> None:
        await runner.run("_sleep", {"seconds": seconds}, on_queue_position=at)
        order.append(name)

    async def refill(name: str) -> None:
        await runner.generate_batch("fp16-round", [1, 2])
        order.append(name)

    holding = asyncio.create_task(demo("holding", 1))
    await asyncio.wait_for(running.wait(), 30)  # the worker is busy
    # Tasks start in the order they were made: the refills queue up before the demos.
    refills = [asyncio.create_task(refill(f"refill {i}")) for i in (1, 2)]
    demos = [asyncio.create_task(demo(f"demo {i}", 0)) for i in (1, 2)]
    await asyncio.wait_for(asyncio.gather(holding, *refills, *demos), 60)
    assert order == ["holding", "demo 1", "demo 2", "refill 1", "refill 2"]
    assert runner.queue_length == 0 and not runner.busy
