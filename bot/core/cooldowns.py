"""Per-member cooldowns with bounded memory (abuse limits for /quiz start and /demo)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable


class Cooldown:
    """Allows one use per `seconds` per key; remembers at most `max_keys` recent users."""

    def __init__(
        self, seconds: float, *, max_keys: int = 10_000, clock: Callable[[], float] = time.monotonic
    ):
        self.seconds = seconds
        self.max_keys = max_keys
        self._clock = clock
        self._last_use: OrderedDict[int, float] = OrderedDict()

    def use(self, key: int) -> float:
        """0 if `key` may go now (and records the use), else the seconds left to wait."""
        now = self._clock()
        last = self._last_use.get(key)
        if last is not None and now - last < self.seconds:
            return self.seconds - (now - last)
        self._last_use[key] = now
        self._last_use.move_to_end(key)
        # Entries older than the cooldown carry no information: drop them, oldest first.
        while self._last_use and (
            len(self._last_use) > self.max_keys
            or now - next(iter(self._last_use.values())) >= self.seconds
        ):
            self._last_use.popitem(last=False)
        return 0.0

    def reset(self, key: int) -> None:
        self._last_use.pop(key, None)

    def __len__(self) -> int:
        return len(self._last_use)
