"""A demo request's check against the torch-free catalog, and what it can fail with in
`bot.demos.runner.DemoRunner`: the queue is full, the demo timed out or raised,
the worker died, the GPU failed, or the runner was closed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.common.errors import UserError
from experiments.catalog import ParamError, validate_params


def check_demo(name: str, params: Mapping[str, Any] | None = None) -> dict[str, int]:
    """The one check of a demo request against the torch-free catalog: its parameters with
    defaults filled in, or a UserError whose message names the allowed range."""
    try:
        return validate_params(name, params)
    except ParamError as exc:
        raise UserError(exc.key, **exc.params) from None


class DemoError(Exception):
    """Base class of DemoRunner errors (parameter errors are plain ValueError)."""


class DemoQueueFull(DemoError):
    """Too many demos waiting; try again later."""


class DemoTimeout(DemoError):
    """The demo ran past the timeout; the worker was killed and is being restarted."""


class DemoCrashed(DemoError):
    """The worker process died (segfault, OOM kill, os._exit); it is being restarted."""


class DemoFailed(DemoError):
    """The demo raised an exception inside the worker (the worker itself is fine)."""

    def __init__(self, message: str, error_type: str = "", remote_traceback: str = "") -> None:
        super().__init__(message)
        self.error_type = error_type
        self.remote_traceback = remote_traceback


class DemoRunnerClosed(DemoError):
    """The runner was closed."""


class DemoGpuBusy(DemoError, UserError):
    """The GPU ran out of memory (often another job's): the worker is fine and was not
    restarted; the member may try again, or the host may run demos on the CPU."""

    def __init__(self, message: str) -> None:
        UserError.__init__(self, "demo.gpu_busy")
        self.args = (message,)


class DemoGpuFailed(DemoError, UserError):
    """The GPU could not run the demo; ``restarted``: the error was one that leaves the
    CUDA context unusable, so the worker ended and a fresh one is being started."""

    def __init__(self, message: str, reason: str, *, restarted: bool) -> None:
        key = "demo.gpu_restarted" if restarted else "demo.gpu_failed"
        UserError.__init__(self, key, reason=reason)
        self.args = (message,)
        self.restarted = restarted


def gpu_error(kind: str, what: str, message: str) -> DemoError:
    """The error for a demo's GPU failure of `kind` (`experiments.cuda.kind_of`): out of
    memory, a sticky error (the worker ended and is restarted) or another CUDA error."""
    why = message.strip().splitlines()[0] if message.strip() else kind
    if kind == "oom":
        return DemoGpuBusy(f"{what}: the GPU ran out of memory: {why}")
    if kind == "sticky":
        return DemoGpuFailed(
            f"{what}: {why}; the worker ended and is restarted", why, restarted=True
        )
    return DemoGpuFailed(f"{what}: the GPU failed: {why}", why, restarted=False)
