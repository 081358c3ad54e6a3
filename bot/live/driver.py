"""The driver of live rounds: one task per round this process holds, a sweep for rounds
nobody holds, and what each step sends to Discord.

Discord-free: messages go through a `LivePublisher` (the live cog implements it). The
round's state is in the database and the rule of its progress is
`bot.live.rules.next_step`, so a round taken over after a crash or a restart goes on
where it was: an open question keeps its deadline, an overdue one is revealed, the
next follows. A process holds a round under a lease in the database, which one
heartbeat renews for all the rounds it drives (every third of the lease, however long
a step waits for Discord); when the holder dies the lease lapses, and the sweep of any
other process, timed to look again when the first lease lapses, takes the round over.
Reveals and scoreboards go through the outbox (owed in the transaction that closes a
question), each with its nonce; a question's message carries a nonce of its own.
A round's task reads the round when it takes it (a start, a takeover, a failed step),
after a step that changed it, a change here other than answers, or a look (`TICK_S`); a
step woken by presses reads nothing: it has the writer's tally (`bot.live.states.Known`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import timedelta

from bot.common.errors import PublishRefused
from bot.db.retry import log_failure, pause, retry_transient
from bot.db.tables.live import LiveQuestion, LiveRound
from bot.live import steps_store, store
from bot.live.announcements import LiveAnnouncements, refusal_reason
from bot.live.editor import ThrottledEdits
from bot.live.publisher import LivePublisher, RoundView
from bot.live.rounds import LiveRounds
from bot.live.rules import (
    EDIT_EVERY_S,
    LEASE,
    PAUSE_S,
    EndReason,
    QuestionStatus,
    Status,
    Step,
    next_step,
)
from bot.live.states import Known, question_view
from bot.outbox.rules import Owed, question_nonce
from bot.outbox.service import OutboxService
from bot.outbox.store import item_of_round

log = logging.getLogger("quiztutor.live")

TICK_S = 1.0  # a round is read at least this often while nothing wakes its task
SWEEP_S = 5.0  # how often each process looks for rounds nobody holds (sooner: a lapse)
# After the first lease of another process is due to lapse, the sweep looks this much
# later (the database's clock must have passed it).
LAPSE_MARGIN_S = 0.1
CLOSE_GRACE_S = 5.0  # at shutdown, for a round's step in progress to finish
MIN_GAP_S = 0.2  # between two looks at one round (a burst of presses wakes it often)
# A question whose message took longer than this to send starts its clock when it is out.
MAX_SHIFT = timedelta(seconds=1)


class LiveDriver:
    def __init__(
        self,
        rounds: LiveRounds,
        publisher: LivePublisher,
        *,
        owns_guild: Callable[[int], bool] = lambda guild_id: True,
        outbox: OutboxService | None = None,
        pause: timedelta = timedelta(seconds=PAUSE_S),
        lease: timedelta = LEASE,
    ) -> None:
        self.rounds = rounds
        self.db = rounds.db
        self.changes = rounds.changes  # what members did here: a round to look at now
        self.publisher = publisher
        self.owns_guild = owns_guild
        self.outbox = outbox or OutboxService(rounds.db)
        self.owner = self.outbox.owner
        self.announcements = LiveAnnouncements(self.db, publisher, self.changes.changed)
        self.outbox.register(
            Owed.LIVE_REVEAL, self.announcements.send_reveal, self.announcements.find_reveal
        )
        self.outbox.register(Owed.LIVE_END, self.announcements.send_scoreboard)
        self.edits = ThrottledEdits(EDIT_EVERY_S, self._edit_refused)
        self.pause = pause  # between a reveal and the next question
        self.lease = lease  # renewed every third of it while this process drives a round
        self._runners: dict[int, asyncio.Task[None]] = {}
        self._lost: set[int] = set()  # rounds another process took (this one stalled)
        self._known: dict[int, Known] = {}  # each round as read; absent: read it next
        # (round id, question message id) -> the count last wanted on it
        self._shown: dict[tuple[int, int], int] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self._heartbeat: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self._closing = False

    # -- the process's rounds ------------------------------------------------------------

    async def start(self) -> None:
        if self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep_loop(), name="live-sweep")

    @property
    def running(self) -> set[int]:
        return set(self._runners)

    async def take(self, round_id: int) -> bool:
        """Drive a round this process just opened (unless another process holds it)."""
        if round_id in self._runners:
            self.changes.changed(round_id)
            return True
        return await self._drive(round_id)

    async def _drive(self, round_id: int) -> bool:
        """Take a round's lease and drive it; False when another process holds it or this
        one is shutting down (a lease taken while `close` ran is released at once: `close`
        releases only the rounds it saw)."""
        if self._closing or not await steps_store.claim(self.db, round_id, self.owner, self.lease):
            return False
        if self._closing:
            await steps_store.release(self.db, round_id, self.owner)
            return False
        self._spawn(round_id)
        return True

    def _spawn(self, round_id: int) -> None:
        if round_id not in self._runners:
            self.changes.watch(round_id)
            self._lost.discard(round_id)
            self._runners[round_id] = asyncio.create_task(
                self._run(round_id), name=f"live-round-{round_id}"
            )
        if self._heartbeat is None:
            self._heartbeat = asyncio.create_task(self._heartbeat_loop(), name="live-lease")

    async def sweep(self) -> int:
        """Take the rounds nobody holds (this process's servers); send what is owed."""
        taken = 0
        for round_id, guild_id in await steps_store.claimable(self.db):
            if round_id in self._runners or not self.owns_guild(guild_id):
                continue
            if await self._drive(round_id):
                taken += 1
        await self.outbox.pump(self.owns_guild)
        return taken

    async def _sweep_loop(self) -> None:
        while True:
            try:
                await self.sweep()
            except Exception as exc:
                log_failure(log, "looking for live rounds", exc)
            await asyncio.sleep(await self._next_sweep_in())

    async def _next_sweep_in(self) -> float:
        """Seconds until the next sweep: SWEEP_S, or sooner when a lease of another
        process lapses sooner (its holder may have died: the round goes on at once)."""
        try:
            lapse = await steps_store.next_lapse(self.db, self.owner)
        except Exception as exc:
            log_failure(log, "looking for live rounds", exc)
            return SWEEP_S
        if lapse is None:
            return SWEEP_S
        return min(SWEEP_S, max(0.0, lapse) + LAPSE_MARGIN_S)

    async def _heartbeat_loop(self) -> None:
        """Renew the lease on every round this process drives, every third of it; a round
        another process has taken meanwhile (this one stalled past its lease) is given up
        here."""
        while True:
            await asyncio.sleep(self.lease.total_seconds() / 3)
            held = list(self._runners)
            if not held:
                continue
            try:
                kept = await steps_store.renew(self.db, self.owner, held, self.lease)
            except Exception as exc:  # tried again at the next beat; a lapsed lease of
                # this process's is renewed then, unless another process took the round
                log_failure(log, "renewing live rounds' leases", exc)
                continue
            for round_id in held:
                if round_id not in kept and round_id in self._runners:
                    log.warning("lost the lease on live round %s (%s)", round_id, self.owner)
                    self._lost.add(round_id)
                    self.changes.changed(round_id)

    async def close(self) -> None:
        """Stop driving (at shutdown, before the connection to Discord closes): let each
        round finish the step it is in (a message being sent gets recorded), then release
        every lease so the next process (or this one restarted) takes the rounds over at
        once."""
        if self._closing:
            return
        self._closing = True
        # The rounds held now, before anything is awaited: a round whose step ends
        # meanwhile sees `_closing`, stops and leaves its release to this (listed after
        # an await, it would be missed, and its lease would hold the round from the next
        # process until it lapsed).
        held = list(self._runners)
        tasks = list(self._runners.values())
        for loop_task in (self._sweeper, self._heartbeat):
            if loop_task is not None:
                loop_task.cancel()
                await asyncio.gather(loop_task, return_exceptions=True)
        for round_id in held:
            self.changes.changed(round_id)
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=CLOSE_GRACE_S)
            for task in late:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        for round_id in held:
            try:
                await steps_store.release(self.db, round_id, self.owner)
            except Exception:
                log.warning("releasing live round %s failed", round_id, exc_info=True)
        await self.edits.close()

    # -- one round -------------------------------------------------------------------------

    async def _run(self, round_id: int) -> None:
        first = True
        done = False
        failures = 0  # steps failed in a row
        try:
            while not done and not self._closing:
                if round_id in self._lost:
                    return  # another process drives it now
                try:
                    done = await self._step(round_id, first)
                    first = False
                    failures = 0
                except PublishRefused as refused:
                    await steps_store.end(self.db, round_id, refusal_reason(refused))
                    log.warning(
                        "Discord refused a live round's message; the round ends",
                        extra={"round_id": round_id, "reason": refused.reason},
                    )
                except Exception as exc:
                    log_failure(log, "a live round's step", exc, round_id=round_id)
                    self._known.pop(round_id, None)  # read it again
                    failures += 1
                    await asyncio.sleep(pause(failures))  # the one backoff (bot.db.retry)
        finally:
            self._known.pop(round_id, None)
            self._runners.pop(round_id, None)
            self._lost.discard(round_id)
            self.changes.forget(round_id)
        if not self._closing:  # (at shutdown `close` releases what it held)
            try:
                await steps_store.release(self.db, round_id, self.owner)
            except Exception as exc:  # its lease lapses by itself
                log_failure(log, "releasing a live round", exc, round_id=round_id)

    async def _step(self, round_id: int, first: bool) -> bool:
        """Look at the round once and do what is due; True when it is over."""
        stale, tally = self.changes.news(round_id)
        known = self._known.get(round_id)
        if known is None or stale:
            snap = await steps_store.snapshot(self.db, round_id)
            if snap is None:
                return True
            known = self._known[round_id] = Known.read(snap)
        known.count(tally)
        row, current, now = known.snap.round, known.snap.question, known.now()
        if first and row.status in (Status.PAUSE, Status.ENDED) and row.position >= 0:
            # A reveal owed before a crash comes before anything newer.
            await self.outbox.deliver_for_round(Owed.LIVE_REVEAL, round_id, row.position + 1)
        decision = next_step(known.state(), now)
        step = decision.step
        if step is not Step.WAIT:
            self._known.pop(round_id, None)  # this step changes the round: read it next
        if step is Step.DONE:
            await self.outbox.deliver_for_round(Owed.LIVE_END, round_id, store.SCOREBOARD)
            for key in [k for k in self._shown if k[0] == round_id]:
                del self._shown[key]
            return True
        if step is Step.ABANDON:
            await steps_store.end(self.db, round_id, EndReason.ABANDONED, scoreboard=False)
        elif step is Step.END:
            assert decision.reason is not None
            await steps_store.end(self.db, round_id, decision.reason)
            if current is not None and current.status == QuestionStatus.OPEN:
                self._edit_question(row, current, known.answered, closed=True)
        elif step is Step.OPEN:
            if row.status == Status.PAUSE and not await self._revealed(round_id, row.position + 1):
                # Discord did not take the reveal yet (the outbox retries it): the next
                # question waits for it, so the thread reads in order.
                await self._wait(round_id, TICK_S)
                return False
            await steps_store.open_next(self.db, round_id, row.position)
            if row.status == Status.LOBBY and row.lobby_message_id is not None:
                self._edit_lobby(row, row.lobby_message_id)
        elif step is Step.POST:
            assert current is not None
            await self._post(row, current)
        elif step is Step.CLOSE:
            number = row.position + 1
            await self.rounds.writer.flush()  # presses held (a database away) count first
            closed = await retry_transient(
                lambda: steps_store.close_question(self.db, round_id, number, self.pause),
                "closing a live question",
            )
            if current is not None and current.message_id is not None:
                answered = known.answered if closed is None else closed.answered
                self._edit_question(row, current, answered, closed=True)
            await self.outbox.deliver_for_round(Owed.LIVE_REVEAL, round_id, number)
        else:
            if current is not None and current.status == QuestionStatus.OPEN:
                self._edit_question(row, current, known.answered)
            assert decision.until is not None
            await self._wait(round_id, (decision.until - now).total_seconds())
        return False

    async def _revealed(self, round_id: int, number: int) -> bool:
        """Question `number`'s reveal is out (or Discord refused it for good)."""
        owed = await item_of_round(self.outbox.db, Owed.LIVE_REVEAL, round_id, number)
        if owed is None or owed.id is None or owed.delivered_at or owed.gave_up:
            return True
        return await self.outbox.deliver(owed.id)

    async def _wait(self, round_id: int, seconds: float) -> None:
        event = self.changes.watch(round_id)
        try:
            await asyncio.wait_for(event.wait(), max(0.0, min(seconds, TICK_S)))
        except TimeoutError:  # a deadline, or changes made elsewhere: read the round
            self._known.pop(round_id, None)
            return
        event.clear()
        await asyncio.sleep(MIN_GAP_S)  # let a burst of presses gather before the next look

    async def _post(self, row: LiveRound, current: LiveQuestion) -> None:
        assert row.id is not None
        round_id, number = row.id, current.number
        armed = await steps_store.arm(self.db, round_id, number, row.seconds)
        if armed is None or armed.closes_at is None:
            return
        view = question_view(row, armed, armed.closes_at, answered=armed.answered)
        message_id = await self.publisher.post_question(view, question_nonce(round_id, number))
        posted = await retry_transient(
            lambda: steps_store.posted(
                self.db, round_id, number, message_id, row.seconds, MAX_SHIFT
            ),
            "recording a live question",
        )
        self._shown[(round_id, message_id)] = armed.answered
        if posted is not None and posted.closes_at != armed.closes_at:
            # Sending took long (rate limits): the clock started later; show when it ends.
            self._shown[(round_id, message_id)] = -1
            self._edit_question(row, posted, posted.answered)

    # -- edits (throttled: at most one per message per EDIT_EVERY_S) ------------------------

    def _edit_question(
        self, row: LiveRound, current: LiveQuestion, answered: int, closed: bool = False
    ) -> None:
        """The question's message with this count (unless it shows it already), or closed."""
        message_id = current.message_id
        if message_id is None or current.closes_at is None or row.id is None:
            return
        key = (row.id, message_id)
        if closed:
            self._shown.pop(key, None)
        elif self._shown.get(key) == answered:
            return
        else:
            self._shown[key] = answered
        view = question_view(row, current, current.closes_at, answered, closed=closed)
        self.edits.want(key, lambda: self.publisher.edit_question(view, message_id))

    def _edit_lobby(self, row: LiveRound, message_id: int) -> None:
        round_view = RoundView.of(row)
        self.edits.want(
            (row.id, message_id),
            lambda: self.publisher.edit_lobby(round_view, message_id, started=True),
        )

    def _edit_refused(self, key: tuple[int, int], refused: PublishRefused) -> None:
        """A question or lobby message was deleted (or the thread): the round ends."""
        round_id = key[0]

        async def end() -> None:
            try:
                if await steps_store.end(self.db, round_id, refusal_reason(refused)):
                    log.warning(
                        "a live round's message is gone; the round ends",
                        extra={"round_id": round_id, "reason": refused.reason},
                    )
                self.changes.changed(round_id)
            except Exception as exc:
                log_failure(log, f"ending live round {round_id}", exc)

        task = asyncio.create_task(end(), name=f"live-end-{round_id}")
        self._background.add(task)
        task.add_done_callback(self._background.discard)
