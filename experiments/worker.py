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


def worker_main(conn: Connection, device: str, torch_threads: int | None, warm: bool) -> None:
    """Import torch, warm up, report ``ready``, then serve ``run`` requests until ``stop``."""
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
        _, job_id, name, params = msg
        try:
            result = run_experiment(name, device=device, **params)
            reply: tuple[Any, ...] = ("ok", job_id, result.to_payload())
        except Exception as exc:
            reply = ("error", job_id, type(exc).__name__, str(exc), traceback.format_exc())
        conn.send(reply)
