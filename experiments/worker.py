"""Entry point of the DemoRunner's worker process.

This module is imported by the bot process too (as the Process target), so torch is
imported only inside :func:`worker_main`, which runs in the child.
"""

from __future__ import annotations

import contextlib
import multiprocessing.connection
import os
import signal
import time
import traceback
from multiprocessing.connection import Connection
from typing import Any

from experiments.lifeline import die_with


def worker_main(
    conn: Connection,
    device: str,
    torch_threads: int | None,
    warm: bool,
    bot_pid: int | None = None,
    fault: str | None = None,
    gpu_skip: str | None = None,
) -> None:
    """Import torch, warm up, report ``ready``, then serve requests until ``stop``.

    Requests, each answered ``("ok", job_id, payload)`` or ``("error", job_id, type,
    message, traceback)``:

    * ``("run", job_id, name, params)``: a demo; payload ``DemoResult.to_payload()``.
    * ``("generate", job_id, name, seed)``: one generated question; payload
      ``Instance.to_dict()`` (plain JSON types: ``Instance.from_dict`` needs no torch).
    * ``("generate_batch", job_id, name, seeds)``: several at once (pre-generation);
      payload a list of ``Instance.to_dict()``.

    The generators never touch the GPU, so they are warmed and served whatever it does.
    A GPU that fails its warm-up costs only the demos: with ``device="auto"`` they run on
    the CPU, and the ready message's ``fallback`` says why (the runner tries the GPU again
    later, in a fresh worker); with ``cuda``/``cuda:N`` they are refused with that reason.
    A demo's GPU failure is answered with its kind (`experiments.cuda.kind_of`) as the
    error type; after a sticky one the worker ends, so that it is restarted.
    ``gpu_skip``: why not to try the GPU this time (it failed a short while ago).
    ``fault`` injects failures (`experiments.cuda.inject`): the test seam.
    """
    if bot_pid is not None:
        die_with(bot_pid)  # before anything slow: a bot killed while we start ends us too
    # Ctrl-C in the bot's terminal reaches the whole process group; the parent decides.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    t0 = time.perf_counter()
    try:
        import torch

        from experiments._common import device_name, warm_up
        from experiments.gpu import parse_faults

        parse_faults(fault)  # a mistyped seam fails the start, loudly
        if torch_threads:
            torch.set_num_threads(torch_threads)
        import_s = time.perf_counter() - t0
        if warm:
            warm_up()  # torch.optim/_dynamo import, first figure: no GPU involved
            _warm_generators()  # CPU only: before, and whatever, the GPU's warm-up
        dev, fallback, tried = _choose_device(device, warm, fault, gpu_skip)
        info: dict[str, Any] = {
            "device": device_name(dev) if dev is not None else "none",
            "fallback": fallback,  # why demos do not run on the GPU asked for (or None)
            "gpu_tried": tried,
            "torch": str(torch.__version__),  # TorchVersion would unpickle via torch
            "import_s": round(import_s, 3),
            "ready_s": round(time.perf_counter() - t0, 3),
        }
    except BaseException as exc:  # report instead of dying silently
        conn.send(("start_failed", f"{type(exc).__name__}: {exc}", traceback.format_exc()))
        return
    conn.send(("ready", info))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):  # parent went away
            return
        if msg[0] == "stop":
            return
        kind, job_id, name, arg = msg
        sticky = False
        try:
            reply: tuple[Any, ...] = ("ok", job_id, _serve(kind, name, arg, dev, fallback, fault))
        except Exception as exc:
            gpu = _gpu_kind(exc) if kind == "run" else None
            sticky = gpu == "sticky"
            error_type = f"gpu:{gpu}" if gpu else type(exc).__name__
            reply = ("error", job_id, error_type, str(exc), traceback.format_exc())
            if gpu == "oom":
                _free_cached(dev)
        conn.send(reply)
        if sticky:  # the CUDA context is unusable: end, so the runner starts a fresh one
            conn.close()
            os._exit(STICKY_EXIT)


#: The worker's exit code after a sticky CUDA error (the runner restarts it).
STICKY_EXIT = 3


def _choose_device(
    device: str, warm: bool, fault: str | None, gpu_skip: str | None
) -> tuple[Any, str | None, bool]:
    """(the device demos run on, why not on the GPU, whether the GPU was tried);
    device None: demos are refused (DEMO_DEVICE names a GPU that cannot be used)."""
    import torch

    from experiments._common import resolve_device, warm_up
    from experiments.cuda import inject
    from experiments.gpu import is_cuda, parse_faults, reason

    injected = "warmup" in parse_faults(fault)  # as if CUDA were seen, then failed
    if not (is_cuda(device) or injected or (device == "auto" and torch.cuda.is_available())):
        dev = resolve_device(device)
        _warm_demo(dev, warm)  # a CPU that fails here is a real start failure
        return dev, None, False
    why = gpu_skip
    if why is None:
        try:
            dev = torch.device("cuda") if device == "auto" else resolve_device(device)
            inject(fault, "warmup")
            warm_up(dev)  # the GPU's first use: context, cuBLAS, cuDNN, autocast
            _warm_demo(dev, warm)
            return dev, None, True
        except Exception as exc:
            why = reason(exc)
    if device != "auto":
        return None, why, gpu_skip is None
    cpu = torch.device("cpu")
    _warm_demo(cpu, warm)
    return cpu, why, gpu_skip is None


def _warm_demo(dev: Any, warm: bool) -> None:
    """The full tiny demo path: autograd, optimizer steps, plotting, PNG encoding."""
    if warm:
        from experiments import run_experiment

        run_experiment("accumulation", device=str(dev), micro_batches=1, micro_batch_size=1)


def _gpu_kind(exc: BaseException) -> str | None:
    from experiments.cuda import kind_of

    return kind_of(exc)


def _free_cached(dev: Any) -> None:
    """After an out-of-memory: give the cached blocks back, for the other jobs' sake."""
    import torch

    if dev is not None and dev.type == "cuda":
        with contextlib.suppress(Exception):
            torch.cuda.empty_cache()


def _serve(
    kind: str, name: str, arg: Any, dev: Any, fallback: str | None, fault: str | None
) -> Any:
    """The payload for one request (runs in the worker, where torch is imported)."""
    if kind == "run":
        from experiments import run_experiment
        from experiments.cuda import inject
        from experiments.gpu import GpuUnavailable, device_line

        if dev is None:
            raise GpuUnavailable(f"the GPU could not be used: {fallback}")
        inject(fault, "run")
        payload = run_experiment(name, device=str(dev), **arg).to_payload()
        payload["device"] = device_line(payload["device"], fallback)
        return payload
    if kind == "generate":
        from experiments.generators import generate

        return generate(name, arg).to_dict()
    if kind == "generate_batch":
        from experiments.generators import generate_batch

        return [inst.to_dict() for inst in generate_batch(name, arg)]
    raise ValueError(f"unknown request {kind!r}")


def _warm_generators() -> None:
    """One instance of every template: imports their modules and takes each torch path
    once, so the first question a member asks for is not the slow one."""
    from experiments.generators import TEMPLATES, generate

    for name in TEMPLATES:
        try:
            generate(name, 0)
        except Exception:  # a broken template must not keep the demos from starting
            pass


def wait_reply(
    conn: multiprocessing.connection.Connection, sentinel: int, timeout: float | None
) -> tuple[Any, ...] | None:
    """The parent's side (blocking, in a thread): a message, ("died",) or None on timeout."""
    ready = multiprocessing.connection.wait([conn, sentinel], timeout)
    if conn in ready:  # check the pipe first: a reply may arrive just before exit
        try:
            return tuple(conn.recv())
        except (EOFError, OSError):
            return ("died",)
    if sentinel in ready:
        return ("died",)
    return None


def stop_worker(process: Any, conn: Connection, graceful: bool = True) -> None:
    """The parent's side (blocking): ask to stop, then kill; always reap the process and
    close the pipe."""
    if graceful and process.is_alive():
        with contextlib.suppress(OSError, ValueError):
            conn.send(("stop",))
        process.join(5)
    if process.is_alive():
        process.kill()
    process.join(5)
    with contextlib.suppress(OSError):
        conn.close()
