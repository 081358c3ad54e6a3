"""A counter that can be awaited until it reaches a value (tests and benchmarks wait on it
instead of sleeping)."""

from __future__ import annotations

import asyncio


class AwaitableCount:
    """A counter that can be awaited until it reaches a value (no polling, no sleeps)."""

    def __init__(self) -> None:
        self.count = 0
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []

    def bump(self) -> None:
        self.count += 1
        if self._waiters:
            still = []
            for target, future in self._waiters:
                if self.count >= target:
                    if not future.done():
                        future.set_result(None)
                else:
                    still.append((target, future))
            self._waiters = still

    async def reached(self, target: int) -> None:
        if self.count >= target:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((target, future))
        await future
