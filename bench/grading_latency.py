"""Budget 2: grading latency under a steady reaction load (payload -> committed row).

Frames are paced at `rate`/s into discord.py's websocket parser (same path as
`bench.reactions`). Latency per reaction: from just before its frame is handed to
discord.py until its answer is committed by the AnswerWriter (the fast path's queued future
resolves). Baseline (same run): the same latency for single reactions on an idle bot.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import datetime

from bench.common import (
    WAIT_S,
    Row,
    count_rows,
    gateway_ws,
    jobs_of,
    median,
    ms,
    open_daily_post,
    percentile,
    reaction_frame,
    running_bot,
    stand_in,
    summary,
    workdir,
)
from bot.app import QuizTutorBot
from bot.daily import ANSWER_EMOJI, DailyAnswerOutcome, OpenPost

NAME = "grading_latency"


class Load:
    """Offers `rate` reactions/s for `seconds` on `post`; records per-reaction latency."""

    def __init__(self, bot: QuizTutorBot, post: OpenPost, n_choices: int, user_base: int) -> None:
        self.bot = bot
        self.post = post
        self.n_choices = n_choices
        self.user_base = user_base
        self.fed: dict[int, float] = {}
        self.done: dict[int, float] = {}
        self.offered = 0
        self._caught_up = asyncio.Event()
        daily = bot.services.daily
        self._real = daily.record_answer_nowait

        # The listener queues each answer synchronously; it counts as done once committed.
        def timed(
            post: OpenPost, user_id: int, choice: int, now: datetime | None = None
        ) -> DailyAnswerOutcome | tuple[bool, asyncio.Future[bool]]:
            queued = self._real(post, user_id, choice, now)
            if isinstance(queued, tuple):
                queued[1].add_done_callback(lambda _: self._finished(user_id))
            else:
                self._finished(user_id)
            return queued

        daily.record_answer_nowait = timed  # type: ignore[method-assign]

    def _finished(self, user_id: int) -> None:
        self.done[user_id] = time.perf_counter()
        if len(self.done) >= len(self.fed):
            self._caught_up.set()

    def restore(self) -> None:
        self.bot.services.daily.record_answer_nowait = self._real  # type: ignore[method-assign]

    async def offer(
        self,
        rate: float,
        seconds: float,
        *,
        paced: bool = False,
        on_start: Callable[[], None] | None = None,
    ) -> None:
        """Feed `rate`/s for `seconds`. `paced`: sleep until the next frame is due (one
        wake-up per frame) instead of polling every millisecond; `on_start` runs once the
        frames are built, just before the first is fed."""
        ws = gateway_ws(self.bot)
        total = int(rate * seconds)
        frames = [
            reaction_frame(
                2 * 10**8 + self.offered + i,
                self.post,
                self.user_base + self.offered + i,
                ANSWER_EMOJI[i % self.n_choices],
            )
            for i in range(total)
        ]
        loop = asyncio.get_running_loop()
        if on_start is not None:
            on_start()
        start = loop.time()
        i = 0
        while i < total:
            due = min(total, int((loop.time() - start) * rate) + 1)
            while i < due:
                self.fed[self.user_base + self.offered + i] = time.perf_counter()
                await ws.received_message(frames[i])
                i += 1
            await asyncio.sleep(max(0.0, start + i / rate - loop.time()) if paced else 0.001)
        self.offered += total

    async def settle(self) -> None:
        while len(self.done) < len(self.fed):
            self._caught_up.clear()
            await asyncio.wait_for(self._caught_up.wait(), WAIT_S)

    def latencies_ms(self) -> list[float]:
        return [ms(self.done[u] - t) for u, t in self.fed.items() if u in self.done]


async def idle_latency_ms(bot: QuizTutorBot, post: OpenPost, n: int, samples: int) -> list[float]:
    load = Load(bot, post, n, 5 * 10**15)
    try:
        for _ in range(samples):
            await load.offer(1000, 0.001)  # one reaction
            await load.settle()
            await asyncio.sleep(0.01)
    finally:
        load.restore()
    return load.latencies_ms()


REPEATS = 3


async def run(quick: bool) -> list[Row]:
    rate, seconds = (200.0, 1.0) if quick else (2000.0, 10.0)
    p99s: list[float] = []
    p50s: list[float] = []
    worst = 0.0
    fed = committed = 0
    async with stand_in() as fake:
        with workdir() as tmp:
            async with running_bot(fake, tmp) as bot:
                post, n = await open_daily_post(bot, fake.guild.id, fake.channel2.id)
                idle = await idle_latency_ms(bot, post, n, 20 if quick else 100)
                for rep in range(REPEATS):
                    base = 10**15 + rep * 10**7  # fresh members in every repeat
                    load = Load(bot, post, n, base)
                    try:
                        await load.offer(rate, seconds)
                        await load.settle()
                    finally:
                        load.restore()
                    lat = load.latencies_ms()
                    p99s.append(percentile(lat, 99))
                    p50s.append(percentile(lat, 50))
                    worst = max(worst, max(lat))
                    fed += len(load.fed)
                    committed += count_rows(
                        tmp,
                        "SELECT COUNT(*) FROM daily_answer WHERE post_id = ?"
                        " AND user_id BETWEEN ? AND ?",
                        (post.post_id, base, base + len(load.fed)),
                    )
                assert jobs_of(bot).reactions_seen >= fed
    p99, reps, spread = summary(p99s)
    return [
        Row(
            NAME,
            f"p99 at {rate:,.0f}/s for {seconds:g} s",
            p99,
            "ms",
            "<=25 ms in each run",
            max(p99s) <= 25 and committed == fed,
            baseline=median(idle),
            baseline_what=f"idle median of {len(idle)}",
            n=reps,
            spread=spread,
            note=f"{fed // reps:,} samples per run; p50 {median(p50s):.1f} ms"
            f" ({min(p50s):.1f}\u2013{max(p50s):.1f}), max {worst:.1f} ms; "
            f"{committed:,}/{fed:,} rows committed",
        )
    ]
