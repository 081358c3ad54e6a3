"""Per-member cooldowns with bounded memory (abuse limits for /quiz start and /demo).

A `cachetools.TTLCache` holds each member's last use for `seconds`: expired entries drop
out by themselves, and at most `max_keys` members are remembered (the oldest go first).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from cachetools import TTLCache


class Cooldown:
    """Allows one use per `seconds` per key; remembers at most `max_keys` recent users."""

    def __init__(
        self, seconds: float, *, max_keys: int = 10_000, clock: Callable[[], float] = time.monotonic
    ):
        self.seconds = seconds
        self._clock = clock
        self._last_use: TTLCache[int, float] = TTLCache(
            maxsize=max_keys, ttl=max(seconds, 1e-9), timer=clock
        )

    def use(self, key: int) -> float:
        """0 if `key` may go now (and records the use), else the seconds left to wait."""
        now = self._clock()
        last = self._last_use.get(key)
        if last is not None and now - last < self.seconds:
            return self.seconds - (now - last)
        self._last_use[key] = now
        return 0.0

    def reset(self, key: int) -> None:
        self._last_use.pop(key, None)

    def __len__(self) -> int:
        self._last_use.expire()
        return len(self._last_use)
