"""Live rounds, what members and hosts do: open a round, join, start, answer, skip,
stop, see their result. Discord-free.

The round's progress (questions, reveals, the scoreboard) is the driver's
(`bot.live.driver`); this service tells it when something changed here through
`RoundChanges`, which the driver is given at construction. Answers go through the
batched writer (`bot.live.answers_store.answer_writer`). What is only a read or a write
of a round's row (its place, the server's language for rounds) the callers take from
`bot.live.store` directly.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass, field
from typing import Any

from cachetools import LRUCache

from bot.common.errors import UserError
from bot.common.settings import DEFAULT_MAX_ROUNDS
from bot.db.database import Database
from bot.db.retry import retry_transient
from bot.db.tables.live import LiveRound
from bot.demos.generated import InstancePool
from bot.live import results_store, steps_store, store
from bot.live.answers_store import LivePending, Recorded, answer_writer
from bot.live.rules import (
    DEFAULT_QUESTIONS,
    DEFAULT_SECONDS,
    EndReason,
    Standing,
    Status,
    Tally,
    check_bounds,
    rank,
)
from bot.quizbank import Question, QuizBank, display_order
from bot.quizbank.generated import GeneratedQuestion, asked_question, generated_question
from bot.quizbank.schema import Generated

log = logging.getLogger("quiztutor.live")


@dataclass(frozen=True)
class RoundInfo:
    """The parts of a round that never change once it plays (cached per process)."""

    round_id: int
    guild_id: int
    thread_id: int
    host_id: int
    question_ids: list[str]
    choice_orders: list[list[int]]
    seconds: int
    # Generated questions' instances by str(number - 1) (`LiveRound.instances`).
    instances: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MyResult:
    standing: Standing | None  # None: the member did not answer
    players: int
    wrong: list[Question]  # the questions answered wrong (now in their /quiz review)


class RoundChanges:
    """What happened to a round in this process, for its driver, which waits on `watch`
    between two looks at the round and looks at once when woken. `changed`: a join,
    Start, Skip, stop (the driver reads the round again); `counted`: the answer writer
    committed answers to a question, and its tally (`Tally`) is all the driver needs to
    show the count and see whether everyone answered, without reading it back."""

    def __init__(self) -> None:
        self._events: dict[int, asyncio.Event] = {}
        self._stale: set[int] = set()
        self._tallies: dict[int, Tally] = {}

    def changed(self, round_id: int) -> None:
        event = self._events.get(round_id)
        if event is not None:
            self._stale.add(round_id)
            event.set()

    def counted(self, round_id: int, tally: Tally) -> None:
        event = self._events.get(round_id)
        if event is not None:
            held = self._tallies.get(round_id)
            if held is None or (tally.number, tally.answered) > (held.number, held.answered):
                self._tallies[round_id] = tally
            event.set()

    def watch(self, round_id: int) -> asyncio.Event:
        """The event a round's driver waits on (set by `changed` and `counted`; the driver
        clears it)."""
        return self._events.setdefault(round_id, asyncio.Event())

    def news(self, round_id: int) -> tuple[bool, Tally | None]:
        """Since the last call: whether the round changed otherwise than by answers (to be
        read again), and the newest tally of its answers."""
        stale = round_id in self._stale
        self._stale.discard(round_id)
        return stale, self._tallies.pop(round_id, None)

    def forget(self, round_id: int) -> None:
        self._events.pop(round_id, None)
        self._stale.discard(round_id)
        self._tallies.pop(round_id, None)


class LiveRounds:
    def __init__(
        self,
        db: Database,
        bank: QuizBank,
        *,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        pool: InstancePool | None = None,
    ):
        self.db = db
        self.bank = bank
        self.max_rounds = max_rounds
        self.pool = pool  # ready generated instances; None: written questions only
        self.changes = RoundChanges()  # watched by this process's driver, if any
        # Started and closed by the owner of this service (`bot.container`).
        self.writer = answer_writer(db, on_count=self.changes.counted)
        self._info: LRUCache[int, RoundInfo] = LRUCache(maxsize=1024)

    # -- opening a round -------------------------------------------------------------

    async def open(
        self,
        guild_id: int,
        channel_id: int,
        host_id: int,
        host_locale: str,
        topic: str | None,
        questions: int | None,
        seconds: int | None,
        seed: int | None = None,
    ) -> LiveRound:
        """Claim the channel and a server slot for a new round (status setup)."""
        seconds = DEFAULT_SECONDS if seconds is None else seconds
        check_bounds(DEFAULT_QUESTIONS if questions is None else questions, seconds)
        running = await store.running_in(self.db, channel_id)
        if running is not None:
            raise self.busy(running)
        rng = random.Random(seed)
        ready = self.pool.ready if self.pool is not None else None
        if questions is None:
            available = len(self.bank.visible_questions(guild_id, topic))
            if ready is not None:
                templates = self.bank.visible_generated(guild_id, topic)
                available += sum(1 for e in templates if ready(e.template))
            questions = max(1, min(DEFAULT_QUESTIONS, available))
        items = self.bank.pick_items(guild_id, topic, questions, rng, generated=ready)
        picked = [q for q in map(self._ask, items) if q is not None]
        if not picked:  # only templates, their instances taken meanwhile
            raise UserError("quiz.no_questions")
        locale = await store.config_locale(self.db, guild_id) or host_locale
        row = LiveRound(
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            locale=locale,
            topic=topic,
            question_ids=[q.id for q in picked],
            choice_orders=[display_order(q, rng) for q in picked],
            # Each generated question's instance, fixed for the round (and a restart).
            instances={
                str(i): q.stored() for i, q in enumerate(picked) if isinstance(q, GeneratedQuestion)
            }
            or None,
            seconds=seconds,
            slot=0,
        )
        created = await store.create(self.db, row, self.max_rounds)
        if created is None:
            running = await store.running_in(self.db, channel_id)
            if running is not None:
                raise self.busy(running)
            raise UserError("live.server_full", limit=self.max_rounds)
        return created

    def _ask(self, item: Question | Generated) -> Question | None:
        """A written question, or a ready instance of a template (None if there is none
        after all: the round has one question fewer)."""
        if isinstance(item, Question):
            return item
        instance = self.pool.take(item.template) if self.pool is not None else None
        return None if instance is None else generated_question(instance, item)

    def question(self, info: RoundInfo, number: int) -> Question:
        """Question `number` of a round: its stored instance, or the bank's (KeyError
        when a written question has left the bank since)."""
        return asked_question(
            self.bank, info.question_ids[number - 1], info.instances.get(str(number - 1))
        )

    @staticmethod
    def busy(running: LiveRound) -> UserError:
        where = running.thread_id or running.channel_id
        return UserError("live.already_running", link=f"<#{where}>")

    async def set_up(self, round_id: int, lobby_message_id: int) -> LiveRound | None:
        """The lobby is out: its minute runs."""
        row = await store.set_up(self.db, round_id, lobby_message_id)
        if row is not None:
            self.changes.changed(round_id)
        return row

    # -- presses -------------------------------------------------------------------------

    async def info(self, round_id: int) -> RoundInfo:
        """The round behind a button; a round that does not exist (a forged or stale
        custom id) is refused."""
        cached = self._info.get(round_id)
        if cached is not None:
            return cached
        row = await retry_transient(lambda: store.get(self.db, round_id), "reading a live round")
        if row is None or row.id is None or row.thread_id is None:
            raise UserError("live.unknown_round")
        info = RoundInfo(
            row.id,
            row.guild_id,
            row.thread_id,
            row.host_id,
            list(row.question_ids),
            [list(o) for o in row.choice_orders],
            row.seconds,
            dict(row.instances or {}),
        )
        self._info[round_id] = info
        return info

    async def _in_place(self, round_id: int, channel_id: int | None) -> RoundInfo:
        info = await self.info(round_id)
        if channel_id != info.thread_id:
            raise UserError("live.other_round")
        return info

    async def answer(
        self, round_id: int, number: int, position: int, user_id: int, channel_id: int | None
    ) -> Recorded:
        """The press's outcome, once the writer has committed or refused it (its
        `position` is the member's answer that counts, as displayed)."""
        arrived = time.monotonic()  # the press's moment, whenever the database takes it
        info = await self._in_place(round_id, channel_id)
        if not 1 <= number <= len(info.question_ids):
            raise UserError("live.unknown_round")
        try:
            question = self.question(info, number)
        except KeyError:  # its quiz was removed meanwhile
            raise UserError("live.question_gone") from None
        order = info.choice_orders[number - 1]
        if not 0 <= position < len(order):
            raise UserError("live.unknown_round")
        correct = order[position] == question.answer
        press = LivePending(
            round_id, number, user_id, position, order[position], correct, info.seconds, arrived
        )
        return await self.writer.submit(press)

    async def join(self, round_id: int, user_id: int, channel_id: int | None) -> bool:
        await self._in_place(round_id, channel_id)

        async def join() -> bool:  # retried while the database is away; joining twice is once
            row = await self._running(round_id)
            return await store.join(self.db, row.id or round_id, user_id)

        joined = await retry_transient(join, "joining a live round")
        if joined:
            self.changes.changed(round_id)
        return joined

    async def _running(self, round_id: int) -> LiveRound:
        row = await store.get(self.db, round_id)
        if row is None or row.status == Status.ENDED:
            raise UserError("live.round_over")
        return row

    @staticmethod
    def _require_host(row: LiveRound, user_id: int, manages_server: bool) -> None:
        if user_id != row.host_id and not manages_server:
            raise UserError("live.host_only", host=f"<@{row.host_id}>")

    async def start_now(
        self, round_id: int, user_id: int, manages_server: bool, channel_id: int | None
    ) -> bool:
        """Start: False when the round had started already."""
        await self._in_place(round_id, channel_id)
        row = await self._running(round_id)
        self._require_host(row, user_id, manages_server)
        started = await store.start_now(self.db, round_id)
        self.changes.changed(round_id)
        return started

    async def skip(
        self, round_id: int, number: int, user_id: int, manages_server: bool, channel_id: int | None
    ) -> bool:
        """Skip: reveal question `number` now; False when it had closed already."""
        await self._in_place(round_id, channel_id)
        row = await self._running(round_id)
        self._require_host(row, user_id, manages_server)
        skipped = await store.skip(self.db, round_id, number)
        self.changes.changed(round_id)
        return skipped

    async def stop(self, channel_id: int, user_id: int, manages_server: bool) -> LiveRound:
        """/quiz live stop in the round's channel or thread: the round ends with the
        scoreboard so far (a question still open is revealed first)."""
        row = await store.running_in(self.db, channel_id)
        if row is None or row.id is None:
            raise UserError("live.none_here")
        self._require_host(row, user_id, manages_server)
        await store.request_stop(self.db, row.id)
        self.changes.changed(row.id)
        return row

    async def thread_deleted(self, thread_id: int) -> None:
        """Discord said a thread was deleted: a round playing there ends (scores kept; its
        driver sends the scoreboard to the channel)."""
        row = await store.running_in(self.db, thread_id)
        if row is None or row.id is None or row.thread_id != thread_id or not row.in_thread:
            return
        if await steps_store.end(self.db, row.id, EndReason.GONE):
            log.info(
                "a live round's thread was deleted; the round ends", extra={"round_id": row.id}
            )
        self.changes.changed(row.id)

    async def result(self, round_id: int, user_id: int) -> MyResult:
        standings = rank(await results_store.standings(self.db, round_id))
        mine = next((s for s in standings if s.user_id == user_id), None)
        wrong: list[Question] = []
        if mine is not None:
            info = await self.info(round_id)
            for number in await results_store.wrong_numbers(self.db, round_id, user_id):
                try:
                    wrong.append(self.question(info, number))
                except (KeyError, IndexError):
                    continue
        return MyResult(mine, len(standings), wrong)
