"""What the live driver knows of a round: what it read (`Known`), kept up to date by the
answer writer's tallies; its state for the rules (`bot.live.rules`) and the view of its
open question for the publisher."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.db.tables.live import LiveQuestion, LiveRound
from bot.live.publisher import QuestionView, RoundView
from bot.live.rules import QuestionState, QuestionStatus, RoundState, Status, Tally
from bot.live.steps_store import Snapshot


@dataclass
class Known:
    """A round as its driver last read it, with the answers' tallies the writer committed
    since: what a step woken by presses decides on and shows, without reading it back."""

    snap: Snapshot
    read_at: float  # this process's monotonic clock when it was read
    answered: int  # the current question's answers
    waiting: int  # players without an answer to it

    @classmethod
    def read(cls, snap: Snapshot) -> Known:
        answered = snap.question.answered if snap.question is not None else 0
        return cls(snap, time.monotonic(), answered, snap.waiting)

    def count(self, tally: Tally | None) -> None:
        """The writer's newest tally, if it is of the current question and newer."""
        question = self.snap.question
        if tally is None or question is None or tally.number != question.number:
            return
        if tally.answered > self.answered:
            self.answered, self.waiting = tally.answered, tally.waiting

    def now(self) -> datetime:
        """The database's clock: as read, and the time since on this process's clock."""
        return self.snap.now + timedelta(seconds=time.monotonic() - self.read_at)

    def state(self) -> RoundState:
        snap = self.snap
        return round_state(snap.round, snap.question, snap.joined, self.waiting, self.answered)


def round_state(
    row: LiveRound, current: LiveQuestion | None, joined: int, waiting: int, answered: int
) -> RoundState:
    question = None
    if current is not None and row.status == Status.QUESTION:
        question = QuestionState(
            current.number,
            QuestionStatus(current.status),
            current.message_id,
            current.closes_at,
            answered,
        )
    return RoundState(
        Status(row.status),
        row.position,
        len(row.question_ids),
        row.next_at,
        row.stop_requested,
        row.idle,
        row.created_at,
        joined,
        waiting,
        question,
    )


def question_view(
    row: LiveRound,
    current: LiveQuestion,
    closes_at: datetime,
    answered: int,
    *,
    closed: bool = False,
) -> QuestionView:
    number = current.number
    return QuestionView(
        RoundView.of(row),
        number,
        row.question_ids[number - 1],
        list(row.choice_orders[number - 1]),
        closes_at,
        answered,
        closed,
        (row.instances or {}).get(str(number - 1)),
    )
