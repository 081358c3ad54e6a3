"""The worker's ``generate`` requests through a real, warm worker process.

The worker is started the way the DemoRunner starts it (``experiments.worker.worker_main``
as the target of a spawned process, talking over a duplex pipe), without the bot.
"""

from __future__ import annotations

import multiprocessing
import statistics
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

import pytest

from experiments.generators import TEMPLATES, Instance, generate
from experiments.worker import worker_main

pytestmark = pytest.mark.slow  # spawns a torch process


@pytest.fixture(scope="module")
def worker() -> Iterator[Connection]:
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=True)
    process = ctx.Process(target=worker_main, args=(child, "cpu", 1, True), daemon=True)
    process.start()
    try:
        assert parent.poll(120), "the worker did not start within 120 s"
        hello = parent.recv()
        assert hello[0] == "ready", hello
        yield parent
    finally:
        parent.send(("stop",))
        process.join(10)
        if process.is_alive():
            process.kill()


def ask(conn: Connection, *msg: Any) -> tuple[Any, ...]:
    conn.send(msg)
    assert conn.poll(60)
    reply: tuple[Any, ...] = conn.recv()
    assert reply[1] == msg[1]
    return reply


def only_builtins(obj: Any) -> bool:
    """What the bot unpickles must not drag torch in: plain JSON types only."""
    if isinstance(obj, dict):
        return all(type(k) is str and only_builtins(v) for k, v in obj.items())
    if isinstance(obj, list):
        return all(only_builtins(v) for v in obj)
    return type(obj) in (str, int, float, bool, type(None))


def test_generate_in_the_worker_matches_in_process(worker: Connection) -> None:
    for job, name in enumerate(TEMPLATES, start=1):
        status, _, payload = ask(worker, "generate", job, name, 31)
        assert status == "ok", payload
        assert only_builtins(payload)
        assert Instance.from_dict(payload) == generate(name, 31)


def test_generate_batch_and_errors(worker: Connection) -> None:
    status, _, payload = ask(worker, "generate_batch", 100, "fp16-round", [1, 2, 3])
    assert status == "ok"
    assert [Instance.from_dict(p).seed for p in payload] == [1, 2, 3]
    status, _, kind, message, _tb = ask(worker, "generate", 101, "nope", 1)
    assert (status, kind) == ("error", "UnknownTemplate") and "fp16-round" in message
    status, _, kind, _message, _tb = ask(worker, "generate", 102, "fp16-round", -5)
    assert (status, kind) == ("error", "ParamError")


def test_demos_still_run_beside_generation(worker: Connection) -> None:
    status, _, payload = ask(
        worker, "run", 200, "accumulation", {"micro_batches": 1, "micro_batch_size": 2}
    )
    assert status == "ok" and payload["demo"] == "accumulation"


def test_a_warm_worker_answers_within_100_ms(worker: Connection) -> None:
    for name in TEMPLATES:
        times = []
        for seed in range(500, 505):
            t0 = time.perf_counter()
            status, *_ = ask(worker, "generate", seed, name, seed)
            times.append(time.perf_counter() - t0)
            assert status == "ok"
        assert statistics.median(times) < 0.1, (name, times)
