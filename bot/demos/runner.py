"""Run torch demos in ONE dedicated, pre-warmed worker process, one at a time; the
generated-question refills (`generate_batch`) get it only when no demo is waiting.

The bot process never imports torch: it only uses the torch-free catalog (names, bounds),
DemoResult and Instance; the worker (multiprocessing "spawn") imports torch + experiments.

    runner = DemoRunner(max_queue=10, timeout=60)
    await runner.start()                      # worker imported torch and warmed up
    result = await runner.run("accumulation", {"micro_batches": 4},
                              on_queue_position=lambda pos: ...)  # pos 0 == running now
    await runner.close()
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import inspect
import logging
import multiprocessing
import multiprocessing.connection
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from typing import Any

from bot.demos.errors import (
    DemoCrashed,
    DemoError,
    DemoFailed,
    DemoGpuBusy,
    DemoGpuFailed,
    DemoQueueFull,
    DemoRunnerClosed,
    DemoTimeout,
    check_demo,
    gpu_error,
)
from experiments.generators.instance import Instance
from experiments.generators.registry import check_seed, get_template
from experiments.gpu import GpuRetry, env_faults
from experiments.result import DemoResult
from experiments.worker import stop_worker, wait_reply, worker_main

log = logging.getLogger(__name__)

QueueCallback = Callable[[int], Awaitable[None] | None]

__all__ = [
    "DemoCrashed",
    "DemoError",
    "DemoFailed",
    "DemoGpuBusy",
    "DemoGpuFailed",
    "DemoQueueFull",
    "DemoResult",
    "DemoRunner",
    "DemoRunnerClosed",
    "DemoTimeout",
]


@dataclass
class _Worker:
    process: Any  # multiprocessing.process.BaseProcess
    conn: multiprocessing.connection.Connection
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)  # identity comparison: deque.remove must find *this* waiter
class _Waiter:
    future: asyncio.Future[None]
    callback: QueueCallback | None


class DemoRunner:
    """One worker process, one demo at a time, a bounded FIFO queue for the rest (refills
    behind them all)."""

    def __init__(
        self,
        *,
        max_queue: int = 10,
        timeout: float = 60.0,
        start_timeout: float = 180.0,
        device: str = "auto",
        start_method: str = "forkserver",
        torch_threads: int | None = 1,
        warm_up: bool = True,
        generate_timeout: float = 30.0,
        gpu_retry_s: float = 600.0,
        fault: str | None = None,
    ) -> None:
        if start_method not in ("spawn", "forkserver"):
            # fork would copy the bot's event loop/threads into the child: unsafe.
            raise ValueError("start_method must be 'spawn' or 'forkserver'")
        self.max_queue = max_queue
        self.timeout = timeout
        self.generate_timeout = generate_timeout
        self.start_timeout = start_timeout
        self.device = device
        # Demos use tiny tensors: one intra-op thread is as fast and avoids OpenMP
        # spin contention with the bot process on small hosts (None = torch default).
        self.torch_threads = torch_threads
        self.warm_up = warm_up
        # A GPU that failed its warm-up is tried again (in a fresh worker) at most once
        # per gpu_retry_s; meanwhile demos run on the CPU (auto) or are refused (cuda).
        self.gpu = GpuRetry(gpu_retry_s, log)
        self.fault = env_faults() if fault is None else fault  # experiments.cuda.inject
        self._ctx: Any = multiprocessing.get_context(start_method)  # spawn/forkserver
        if start_method == "forkserver":
            # The forkserver (a fresh interpreter, not a copy of the bot) imports torch
            # once; each worker, and each restart after a timeout or crash, forks from it
            # without paying the import again. Takes effect before the server starts.
            self._ctx.set_forkserver_preload(["experiments.preload"])
        # One thread: pipe waits and (re)starts are serialised, never on the event loop.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="demo-runner")
        self._worker: _Worker | None = None
        self._restart_task: asyncio.Task[None] | None = None
        self._spawning: BaseProcess | None = None  # a worker being started (close kills it)
        self._start_lock = asyncio.Lock()
        self._waiters: collections.deque[_Waiter] = collections.deque()  # demos
        self._background: collections.deque[_Waiter] = collections.deque()  # refills
        self._busy = False
        self._closed = False
        self._job_id = 0
        self._callback_tasks: set[asyncio.Task[Any]] = set()
        self.restarts = 0

    # ----------------------------------------------------------------- public API
    @property
    def queue_length(self) -> int:
        """Demos waiting (not counting the one running)."""
        return len(self._waiters)

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def worker_info(self) -> dict[str, Any]:
        """device, torch version, import_s, ready_s and pid of the current worker."""
        return dict(self._worker.info) if self._worker else {}

    async def start(self) -> None:
        """Spawn the worker; returns once it imported torch and ran its warm-up."""
        if self._closed:
            raise DemoRunnerClosed("runner is closed")
        await self._ensure_worker()

    async def run(
        self,
        name: str,
        params: Mapping[str, Any] | None = None,
        *,
        on_queue_position: QueueCallback | None = None,
        time_limit: float | None = None,
    ) -> DemoResult:
        """Run demo ``name``; waits its turn. ``on_queue_position(n)``: n waiting ahead (1 =
        next), then 0 when it starts. ``time_limit`` overrides the timeout (run time only).
        Raises UserError, DemoQueueFull, DemoTimeout, DemoCrashed, DemoFailed, DemoRunnerClosed."""
        if self._closed:
            raise DemoRunnerClosed("runner is closed")
        clean = check_demo(name, params)  # before queueing: instant feedback
        await self._acquire(on_queue_position)
        try:
            self._notify(on_queue_position, 0)
            limit = self.timeout if time_limit is None else time_limit
            payload = await self._execute("run", name, clean, limit, f"demo {name!r}")
            return DemoResult.from_payload(payload)
        finally:
            self._release()

    async def generate_batch(self, name: str, seeds: Sequence[int]) -> list[Instance]:
        """Instances ``seeds`` of template ``name``, made in the worker (the pool's refill,
        `bot.demos.generated`) once no demo waits (one queued later still goes first); never
        queue-full. Raises ParamError, DemoTimeout, DemoCrashed, DemoFailed, DemoRunnerClosed."""
        if self._closed:
            raise DemoRunnerClosed("runner is closed")
        get_template(name)
        clean = [check_seed(seed) for seed in seeds]
        what, limit = f"template {name!r}", self.generate_timeout
        await self._acquire(None, background=True)
        try:
            payload = await self._execute("generate_batch", name, clean, limit, what)
        finally:
            self._release()
        return [Instance.from_dict(item) for item in payload]

    async def close(self) -> None:
        """Stop the worker and fail everyone still waiting."""
        if self._closed:
            return
        self._closed = True
        for queue in (self._waiters, self._background):
            while queue:
                w = queue.popleft()
                if not w.future.done():
                    w.future.set_exception(DemoRunnerClosed("runner closed while waiting"))
        # A worker starting or busy holds the runner's thread: end it, so shutdown is quick.
        for process in (
            self._spawning,
            self._worker.process if self._busy and self._worker else None,
        ):
            if process is not None and process.is_alive():
                process.kill()
        if self._restart_task is not None:
            with contextlib.suppress(Exception):
                await self._restart_task
        worker, self._worker = self._worker, None
        if worker is not None:
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(self._executor, self._stop_worker, worker)
        self._executor.shutdown(wait=False)

    # ------------------------------------------------------------- queue / slot
    async def _acquire(self, callback: QueueCallback | None, background: bool = False) -> None:
        """The worker's turn: demos first come, first served (max_queue); refills after them."""
        if not self._busy and not self._waiters and not self._background:
            self._busy = True
            return
        if not background and len(self._waiters) >= self.max_queue:
            raise DemoQueueFull(f"demo queue is full ({self.max_queue} waiting); try again later")
        queue = self._background if background else self._waiters
        waiter = _Waiter(asyncio.get_running_loop().create_future(), callback)
        queue.append(waiter)
        self._notify(callback, len(queue))
        try:
            await waiter.future
        except asyncio.CancelledError:
            if waiter in queue:
                queue.remove(waiter)
                self._notify_positions()
            elif waiter.future.done() and not waiter.future.cancelled():
                self._release()  # the slot was handed to us just as we were cancelled
            raise

    def _release(self) -> None:
        for queue in (self._waiters, self._background):  # demos first
            while queue:
                waiter = queue.popleft()
                if not waiter.future.done():
                    waiter.future.set_result(None)  # hand the slot over; _busy stays True
                    self._notify_positions()
                    return
        self._busy = False

    def _notify_positions(self) -> None:
        for i, waiter in enumerate(self._waiters, start=1):
            self._notify(waiter.callback, i)

    def _notify(self, callback: QueueCallback | None, position: int) -> None:
        if callback is None:
            return
        try:
            res = callback(position)
            if inspect.isawaitable(res):
                task = asyncio.ensure_future(res)
                self._callback_tasks.add(task)  # keep a reference until done
                task.add_done_callback(self._callback_done)
        except Exception:  # a broken callback must not break the queue
            log.exception("queue-position callback failed")

    def _callback_done(self, task: asyncio.Task[Any]) -> None:
        self._callback_tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("queue-position callback failed", exc_info=task.exception())

    # --------------------------------------------------------- worker lifecycle
    def _spawn_blocking(self) -> _Worker:
        parent_conn, child_conn = self._ctx.Pipe(duplex=True)
        work = (child_conn, self.device, self.torch_threads, self.warm_up, os.getpid())
        process = self._ctx.Process(
            target=worker_main,
            args=(*work, self.fault, self.gpu.skip()),
            name="quiztutor-demo-worker",
            daemon=True,
        )
        process.start()
        self._spawning = process
        child_conn.close()  # only the child holds it now: EOF if the child dies
        try:
            reply = wait_reply(parent_conn, process.sentinel, self.start_timeout)
        finally:
            self._spawning = None
        if reply is not None and reply[0] == "ready":
            info = dict(reply[1], pid=process.pid)
            log.info("demo worker ready: %s", info)
            self.gpu.tried(info)
            return _Worker(process, parent_conn, info)
        self._stop_worker(_Worker(process, parent_conn), graceful=False)
        if reply is None:
            raise DemoTimeout(f"demo worker did not start within {self.start_timeout:.0f} s")
        if reply[0] == "start_failed":
            raise DemoCrashed(f"demo worker failed to start: {reply[1]}")
        raise DemoCrashed(f"demo worker died during start (exit code {process.exitcode})")

    def _stop_worker(self, worker: _Worker, graceful: bool = True) -> None:
        stop_worker(worker.process, worker.conn, graceful)

    async def _ensure_worker(self, retry_gpu: bool = False) -> None:
        # The warm-up at bot start and an early /demo must not both spawn a worker.
        async with self._start_lock:
            await self._ensure_worker_unlocked(retry_gpu)

    async def _ensure_worker_unlocked(self, retry_gpu: bool = False) -> None:
        if self._closed:  # closed while this waited for a start elsewhere (the warm-up)
            raise DemoRunnerClosed("runner closed while a request waited for the worker")
        if self._restart_task is not None:
            task = self._restart_task
            with contextlib.suppress(Exception):
                await asyncio.shield(task)  # a cancelled job must not cancel the restart
            if self._restart_task is task:
                self._restart_task = None
        worker = self._worker
        stale = worker is None or not worker.process.is_alive()
        if worker is not None and not stale and retry_gpu and self.gpu.due(worker.info):
            stale, self.gpu.retries = True, self.gpu.retries + 1  # a fresh worker tries it
        if stale:
            old, self._worker = self._worker, None
            loop = asyncio.get_running_loop()
            if old is not None:
                await loop.run_in_executor(self._executor, self._stop_worker, old, False)
            self._worker = await loop.run_in_executor(self._executor, self._spawn_blocking)

    def _kill_and_restart(self) -> None:
        """Kill now (non-blocking), restart in the background; next job awaits it."""
        worker, self._worker = self._worker, None
        if worker is not None and worker.process.is_alive():
            worker.process.kill()
        self.restarts += 1
        if self._closed:
            return

        async def restart() -> None:
            loop = asyncio.get_running_loop()
            if worker is not None:
                await loop.run_in_executor(self._executor, self._stop_worker, worker, False)
            try:
                self._worker = await loop.run_in_executor(self._executor, self._spawn_blocking)
            except DemoError:
                log.exception("demo worker restart failed; will retry on next demo")

        self._restart_task = asyncio.get_running_loop().create_task(restart())

    # ---------------------------------------------------------------- execution
    async def _execute(self, kind: str, name: str, arg: Any, limit: float, what: str) -> Any:
        """One request to the worker (``run``, ``generate_batch``): its payload. Before a
        demo, a worker running without its GPU is replaced once `gpu_retry_s` has passed."""
        await self._ensure_worker(retry_gpu=kind == "run")
        worker = self._worker
        assert worker is not None
        self._job_id += 1
        job_id = self._job_id
        try:
            worker.conn.send((kind, job_id, name, arg))
        except (OSError, ValueError) as exc:
            self._kill_and_restart()
            raise DemoCrashed(f"demo worker unreachable ({exc}); restarting it") from exc
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limit  # run time only: queueing/restarts don't count
        while True:
            remaining = max(0.0, deadline - loop.time())
            try:
                reply = await loop.run_in_executor(
                    self._executor, wait_reply, worker.conn, worker.process.sentinel, remaining
                )
            except asyncio.CancelledError:
                self._kill_and_restart()  # the worker is mid-demo for nobody: start fresh
                raise
            if reply is None:
                self._kill_and_restart()
                raise DemoTimeout(
                    f"{what} ran longer than {limit:g} s; worker killed and restarted"
                )
            if reply[0] == "died":
                worker.process.join(1)
                code = worker.process.exitcode
                self._kill_and_restart()
                if self._closed:
                    raise DemoRunnerClosed(f"demo {name!r} stopped: the bot is shutting down")
                raise DemoCrashed(
                    f"demo worker died (exit code {code}) while running {what}; restarted"
                )
            if reply[1] != job_id:  # stale reply of an abandoned job; keep waiting
                log.warning("discarding stale demo reply for job %s", reply[1])
                continue
            if reply[0] == "ok":
                return reply[2]
            if str(reply[2]).startswith("gpu:"):  # experiments.cuda.kind_of's kinds
                error = gpu_error(reply[2].removeprefix("gpu:"), what, reply[3])
                if isinstance(error, DemoGpuFailed) and error.restarted:
                    self._kill_and_restart()  # it ended itself: its CUDA context is unusable
                log.warning("%s", error)
                raise error
            raise DemoFailed(f"{what} failed: {reply[3]}", reply[2], reply[4])
