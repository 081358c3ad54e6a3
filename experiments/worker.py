"""Entry point of the DemoRunner's worker process.

This module is imported by the bot process too (as the Process target), so torch is
imported only inside :func:`worker_main`, which runs in the child.
"""

from __future__ import annotations

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
) -> None:
    """Import torch, warm up, report ``ready``, then serve requests until ``stop``.

    Requests, each answered ``("ok", job_id, payload)`` or ``("error", job_id, type,
    message, traceback)``:

    * ``("run", job_id, name, params)``: a demo; payload ``DemoResult.to_payload()``.
    * ``("generate", job_id, name, seed)``: one generated question; payload
      ``Instance.to_dict()`` (plain JSON types: ``Instance.from_dict`` needs no torch).
    * ``("generate_batch", job_id, name, seeds)``: several at once (pre-generation);
      payload a list of ``Instance.to_dict()``.
    """
    if bot_pid is not None:
        die_with(bot_pid)  # before anything slow: a bot killed while we start ends us too
    # Ctrl-C in the bot's terminal reaches the whole process group; the parent decides.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    t0 = time.perf_counter()
    try:
        import torch

        from experiments import run_experiment
        from experiments._common import device_name, resolve_device, warm_up

        if torch_threads:
            torch.set_num_threads(torch_threads)
        dev = resolve_device(device)
        import_s = time.perf_counter() - t0
        if warm:
            warm_up(dev)  # torch.optim/_dynamo import, first figure, a GPU's first use
            # Full tiny demo path: autograd, optimizer steps, plotting, PNG encoding.
            run_experiment("accumulation", device=device, micro_batches=1, micro_batch_size=1)
            _warm_generators()
        info: dict[str, Any] = {
            "device": device_name(dev),
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
        try:
            reply: tuple[Any, ...] = ("ok", job_id, _serve(kind, name, arg, device))
        except Exception as exc:
            reply = ("error", job_id, type(exc).__name__, str(exc), traceback.format_exc())
        conn.send(reply)


def _serve(kind: str, name: str, arg: Any, device: str) -> Any:
    """The payload for one request (runs in the worker, where torch is imported)."""
    if kind == "run":
        from experiments import run_experiment

        return run_experiment(name, device=device, **arg).to_payload()
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
