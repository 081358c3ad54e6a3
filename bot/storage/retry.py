"""Transient database errors ("database is locked", a dropped connection) are retried.

A daily job that meets a busy database must not lose what it was doing (a message may
already be in the channel): `retry_transient` runs the step again with backoff, and
only gives up after about half a minute, when the error is no longer passing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sqlalchemy.exc import DBAPIError, OperationalError

log = logging.getLogger("quiztutor.storage")

T = TypeVar("T")

# 0.05, 0.1, 0.2 ... capped at 2 s: 20 tries span about 30 s.
FIRST_DELAY_S = 0.05
MAX_DELAY_S = 2.0
TRIES = 20


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, OperationalError):
        return True  # SQLite: locked or busy; PostgreSQL: connection lost, server shutting down
    return isinstance(exc, DBAPIError) and bool(exc.connection_invalidated)


async def retry_transient(
    step: Callable[[], Awaitable[T]],
    what: str,
    *,
    tries: int = TRIES,
    first_delay_s: float = FIRST_DELAY_S,
) -> T:
    delay = first_delay_s
    for attempt in range(1, tries + 1):
        try:
            return await step()
        except Exception as exc:
            if attempt == tries or not is_transient(exc):
                raise
            log.warning(
                "%s: transient database error (try %d of %d): %s", what, attempt, tries, exc
            )
        await asyncio.sleep(delay)
        delay = min(delay * 2, MAX_DELAY_S)
    raise AssertionError("unreachable")
