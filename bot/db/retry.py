"""Transient database errors ("database is locked", a dropped connection, a server
restarting) are retried.

A daily job that meets a busy database must not lose what it was doing (a message may
already be in the channel): `retry_transient` runs the step again with backoff, and
only gives up after about half a minute, when the error is no longer passing. The one
policy (which errors, the backoff, the once-logged outage) is `holding`, on tenacity;
the batch writer (`bot.db.batch_writer`) holds its batches with it too, and a loop that
goes on by itself after a failure (the live driver's steps) waits `pause` between tries.

An outage is logged once (`outage`): the first failure as a warning, the retries that
follow at debug level, and the first success after it with how long it lasted.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError, OperationalError
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

log = logging.getLogger("quiztutor.storage")

T = TypeVar("T")

# 0.05, 0.1, 0.2 ... capped at 2 s: 20 tries span about 30 s.
FIRST_DELAY_S = 0.05
MAX_DELAY_S = 2.0
TRIES = 20


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, OperationalError):
        return True  # SQLite: locked or busy; PostgreSQL: connection lost, server shutting down
    if isinstance(exc, ConnectionError):
        return True  # a new connection refused (the server is restarting)
    if isinstance(exc, DBAPIError):
        return bool(exc.connection_invalidated) or _server_starting(exc.orig)
    return _server_starting(exc)


def _server_starting(exc: BaseException | None) -> bool:
    # asyncpg's CannotConnectNowError: "the database system is starting up" (57P03).
    return getattr(exc, "sqlstate", None) in ("57P01", "57P02", "57P03")


class Outage:
    """Logs a database outage once: its start, and its end with its length."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.failures = 0  # statistics (tests): failed tries during outages

    def failed(self, what: str, exc: BaseException) -> None:
        self.failures += 1
        if self.since is None:
            self.since = time.monotonic()
            log.warning("%s: transient database error, retrying: %s", what, exc)
        else:
            log.debug("%s: the database is still unavailable: %s", what, exc)

    def recovered(self) -> None:
        if self.since is not None:
            log.warning(
                "the database is available again after %.1f s", time.monotonic() - self.since
            )
            self.since = None


outage = Outage()


def log_failure(logger: logging.Logger, what: str, exc: BaseException, **extra: Any) -> None:
    """A background step (`what`) that failed. During a database outage it is noted once
    (`outage`: a warning when it starts, one when it ends) instead of a traceback every
    few seconds; anything else is logged with its traceback."""
    if is_transient(exc):
        outage.failed(what, exc)
    else:
        logger.error("%s failed", what, exc_info=exc, extra=extra or None)


def backoff(first: float | None = None, most: float | None = None) -> wait_exponential:
    """The one backoff between tries: `first`, doubling, capped at `most` (by default a
    database step's: 0.05, 0.1, 0.2 ... 2 s)."""
    return wait_exponential(
        multiplier=FIRST_DELAY_S if first is None else first,
        max=MAX_DELAY_S if most is None else most,
    )


def pause(failures: int, first: float | None = None, most: float | None = None) -> float:
    """`backoff`'s wait after `failures` failed tries in a row, for a loop that never gives
    up (the live driver's next step, whatever failed; the generated-question pool's
    refill while its worker is down)."""
    state = RetryCallState(AsyncRetrying(), None, (), {})
    state.attempt_number = failures
    return backoff(first, most)(state)


def holding(
    what: str,
    stop: Callable[[RetryCallState], bool],
    before_retry: Callable[[], Awaitable[None]] | None = None,
) -> AsyncRetrying:
    """Tries of a database step while its errors are transient, with `backoff`, until
    `stop` says so; the outage is logged once (`outage`). `before_retry` runs before each
    new try (e.g. to drop a broken connection)."""

    async def before_sleep(state: RetryCallState) -> None:
        assert state.outcome is not None
        exc = state.outcome.exception()
        assert exc is not None
        outage.failed(what, exc)
        if before_retry is not None:
            await before_retry()

    return AsyncRetrying(
        retry=retry_if_exception(is_transient),
        wait=backoff(),
        stop=stop,
        before_sleep=before_sleep,
        reraise=True,
    )


async def retry_transient(
    step: Callable[[], Awaitable[T]],
    what: str,
    *,
    tries: int = TRIES,
) -> T:
    """`step()`, tried again while its error is transient: `tries` tries (~30 s)."""
    async for attempt in holding(what, stop_after_attempt(tries)):
        with attempt:
            result = await step()
    outage.recovered()
    return result
