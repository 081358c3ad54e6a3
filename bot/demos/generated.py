"""Generated questions for the bot: a few ready instances per template, made ahead of time.

The bot process never imports torch: instances are made in the demo worker
(`DemoRunner.generate_batch`) and arrive as plain data (`experiments.generators.Instance`).
A button press never waits on torch: `take` hands out an instance made before (no worker
round trip) and one background task refills the pool, one template's batch at a time.
The refill never starves `/demo`: the worker runs a batch only when no demo is waiting
(`DemoRunner.generate_batch`), and the refill is paced, resting after each batch as long as
it took and at least `REFILL_GAP_S`, so it takes at most half the worker's time.

When no instance of a template is ready (the worker is down, starting, busy with a long
demo, or DEMO_WORKER=false) `ready` says False and quizzes ask their written questions
instead. The log says so once when that starts (and once when instances flow again),
never once per question.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable, Sequence

from bot.db.retry import pause
from bot.demos.runner import DemoFailed, DemoRunnerClosed
from experiments.catalog import ParamError
from experiments.generators.instance import Instance

log = logging.getLogger("quiztutor.generated")

#: Makes instances of one template for the given seeds (the worker's `generate_batch`).
Source = Callable[[str, Sequence[int]], Awaitable[list[Instance]]]

DEFAULT_SIZE = 4
#: Seeds are drawn below this, short enough to type into `quiztutor generate --seed`.
SEED_LIMIT = 10**9
#: After a failure the refill waits this long, doubling up to MAX_RETRY_S (a worker that
#: cannot start is not respawned every few seconds).
RETRY_S, MAX_RETRY_S = 30.0, 600.0
#: The least rest between two refill batches (seconds).
REFILL_GAP_S = 0.1


class InstancePool:
    """Up to `size` ready instances of every template that `templates()` names."""

    def __init__(
        self,
        source: Source | None,
        templates: Callable[[], Iterable[str]],
        *,
        size: int = DEFAULT_SIZE,
        retry_s: float = RETRY_S,
        gap_s: float = REFILL_GAP_S,
    ) -> None:
        self.source = source if size > 0 else None
        self.templates = templates
        self.size = size
        self.retry_s = retry_s
        self.gap_s = gap_s
        self._rest_until = 0.0  # loop time of the next batch at the earliest
        self._ready: dict[str, collections.deque[Instance]] = {}
        self._wake = asyncio.Event()
        self._changed = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None
        self._available: bool | None = None  # None: not known yet
        self._set_aside: dict[str, float] = {}  # broken template -> retry at (loop time)
        self._failures = 0
        self.made = 0  # instances made so far (tests, the bench)

    # ------------------------------------------------------------------- the bot's side
    @property
    def enabled(self) -> bool:
        return self.source is not None

    def count(self, template: str) -> int:
        """Instances of `template` ready now."""
        return len(self._ready.get(template, ()))

    def ready(self, template: str) -> bool:
        """Whether `take(template)` gives an instance now (never waits)."""
        return self.count(template) > 0

    def take(self, template: str) -> Instance | None:
        """A ready instance of `template`, removed from the pool (a refill is started);
        None when there is none: ask a written question instead."""
        queue = self._ready.get(template)
        self._wake.set()
        if not queue:
            return None
        return queue.popleft()

    # ------------------------------------------------------------------- the refill
    def start(self) -> None:
        """Start the background refill (in the running event loop)."""
        if self.source is None:
            log.info(
                "generated questions off (DEMO_WORKER=false or GENERATED_POOL_SIZE=0): "
                "quizzes ask their written questions"
            )
            return
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._refill_forever(), name="generated-refill"
            )

    async def close(self) -> None:
        """Stop the refill. Close the DemoRunner first: a request it is running when
        cancelled makes it kill and restart its worker; closed, it refuses the next one."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def full(self, templates: Iterable[str] | None = None) -> None:
        """Wait until every template (or each of `templates`) holds `size` instances."""
        names = list(self.templates() if templates is None else templates)
        async with self._changed:
            await self._changed.wait_for(lambda: all(self.count(n) >= self.size for n in names))

    def _missing(self, now: float | None = None) -> list[tuple[str, int]]:
        """(template, instances short) of the templates to refill (not those set aside)."""
        return [
            (name, self.size - self.count(name))
            for name in self.templates()
            if self.count(name) < self.size
            and (now is None or self._set_aside.get(name, 0.0) <= now)
        ]

    async def _idle(self, loop: asyncio.AbstractEventLoop) -> None:
        """Wait for a `take`, or for a template set aside to be tried again."""
        self._wake.clear()
        if self._missing(loop.time()):
            return
        waiting = [t for t in self._set_aside.values() if t > loop.time()]
        with contextlib.suppress(TimeoutError):
            timeout = min(waiting) - loop.time() if waiting else None
            await asyncio.wait_for(self._wake.wait(), timeout)

    async def _refill_forever(self) -> None:
        assert self.source is not None
        loop = asyncio.get_running_loop()
        while True:
            missing = self._missing(loop.time())
            if not missing:
                await self._idle(loop)
                continue
            for name, n in missing:
                try:
                    made = await self._batch(loop, name, n)
                except DemoRunnerClosed:
                    return
                except (DemoFailed, ParamError) as exc:  # this template is broken (a bug)
                    if name not in self._set_aside:
                        log.error("generated question %r failed, set aside: %s", name, exc)
                    self._set_aside[name] = loop.time() + MAX_RETRY_S
                    continue
                except Exception as exc:  # the worker is down, timed out or crashed
                    await self._failed(f"{type(exc).__name__}: {exc}")
                    break
                self._flowing()
                self._ready.setdefault(name, collections.deque()).extend(made)
                self.made += len(made)
                async with self._changed:
                    self._changed.notify_all()

    async def _batch(self, loop: asyncio.AbstractEventLoop, name: str, n: int) -> list[Instance]:
        """`n` new instances of `name`, at the refill's pace: after each batch, a rest as
        long as it took and at least `gap_s` (a pace, not synchronisation)."""
        assert self.source is not None
        if (rest := self._rest_until - loop.time()) > 0:
            await asyncio.sleep(rest)
        started = loop.time()
        try:
            return await self.source(name, [secrets.randbelow(SEED_LIMIT) for _ in range(n)])
        finally:
            now = loop.time()
            self._rest_until = now + max(self.gap_s, now - started)

    async def _failed(self, why: str) -> None:
        if self._available is not False:
            log.warning(
                "generated questions unavailable (%s): quizzes ask their written questions "
                "until the demo worker makes them again",
                why,
            )
        self._available = False
        self._failures += 1
        await asyncio.sleep(
            pause(self._failures, self.retry_s, MAX_RETRY_S)
        )  # a back-off, not synchronisation: nobody waits on it

    def _flowing(self) -> None:
        if self._available is False:
            log.info("generated questions available again")
        self._available = True
        self._failures = 0
