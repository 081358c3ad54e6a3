"""A demo request's check against the torch-free catalog, and what it can fail with in
`bot.demos.runner.DemoRunner`: the queue is full, the demo timed out or raised,
the worker died, or the runner was closed."""

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
