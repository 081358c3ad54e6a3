"""Live rounds, the rules: bounds, points, ranking, and what a round's driver does next.

A live round is a whole channel playing one quiz in a thread: a lobby, then each
question for `seconds` (or until every member who joined has answered), its reveal, a pause, the
next; the scoreboard at the end. The driver (`bot.live`) reads the round's
state from the database and asks `next_step` what is due; every time here is the
database's clock (aware UTC), never a member's.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from bot.common.errors import UserError

MIN_QUESTIONS, MAX_QUESTIONS, DEFAULT_QUESTIONS = 1, 30, 10
MIN_SECONDS, MAX_SECONDS, DEFAULT_SECONDS = 10, 120, 20
LOBBY_S = 60  # the round starts by itself after this long in the lobby
PAUSE_S = 5.0  # between a reveal and the next question
EDIT_EVERY_S = 2.0  # at most one edit of a message per this many seconds
IDLE_LIMIT = 3  # questions in a row without an answer end the round
MAX_POINTS = 1000
FASTEST = 3  # fastest right answers named in a reveal
TOP = 10  # players on the scoreboard
# A round whose thread and lobby were never recorded (the process died while setting it
# up) is given up after this long.
SETUP_TIMEOUT = timedelta(minutes=2)
# The driver's lease on a round: its process renews every lease it holds every third of
# it; another process takes the round over once it lapses (the holder died), so a round
# goes on within this long of a crash.
LEASE = timedelta(seconds=6)


class Status(StrEnum):
    SETUP = "setup"  # the row exists; the thread and the lobby are being made
    LOBBY = "lobby"
    QUESTION = "question"  # `position` is the open (or posting) question
    PAUSE = "pause"  # after a reveal, until `next_at`
    ENDED = "ended"


ACTIVE = (Status.SETUP, Status.LOBBY, Status.QUESTION, Status.PAUSE)


class QuestionStatus(StrEnum):
    POSTING = "posting"  # opened, its message not recorded yet (its clock not started)
    OPEN = "open"
    CLOSED = "closed"


class EndReason(StrEnum):
    FINISHED = "finished"
    STOPPED = "stopped"  # /quiz live stop
    IDLE = "idle"  # IDLE_LIMIT questions in a row without an answer
    GONE = "gone"  # the thread or a question message was deleted
    FORBIDDEN = "forbidden"  # the bot may no longer post there
    ABANDONED = "abandoned"  # never got past its set-up


def check_bounds(questions: int, seconds: int) -> None:
    if isinstance(questions, bool) or not MIN_QUESTIONS <= questions <= MAX_QUESTIONS:
        raise UserError("live.bad_questions", low=MIN_QUESTIONS, high=MAX_QUESTIONS)
    if isinstance(seconds, bool) or not MIN_SECONDS <= seconds <= MAX_SECONDS:
        raise UserError("live.bad_seconds", low=MIN_SECONDS, high=MAX_SECONDS)


def points(correct: bool, seconds: float, limit: float) -> int:
    """1,000 × (1 − t / (2T)) rounded half up for a right answer after `seconds` of a
    question's `limit`; 0 for a wrong one. t is held to [0, T]: 1,000 at once, 500 at the
    last moment."""
    if not correct or limit <= 0:
        return 0
    taken = min(max(seconds, 0.0), limit)
    return math.floor(MAX_POINTS * (1 - taken / (2 * limit)) + 0.5)


@dataclass(frozen=True)
class Standing:
    user_id: int
    points: int
    right: int
    answered: int
    ms: int  # total time of the player's answers
    rank: int = 0


def rank(rows: Iterable[Standing]) -> list[Standing]:
    """Best first: more points, then less total time; equal in both share a rank."""
    ordered = sorted(rows, key=lambda s: (-s.points, s.ms, s.user_id))
    ranked: list[Standing] = []
    for index, row in enumerate(ordered):
        previous = ranked[-1] if ranked else None
        same = previous is not None and (previous.points, previous.ms) == (row.points, row.ms)
        place = previous.rank if same and previous is not None else index + 1
        ranked.append(Standing(row.user_id, row.points, row.right, row.answered, row.ms, place))
    return ranked


@dataclass(frozen=True)
class Answer:
    """One member's answer to a live question (display position, as the buttons show)."""

    user_id: int
    position: int
    correct: bool
    ms: int


def distribution(answers: Iterable[Answer], n_choices: int) -> list[int]:
    counts = [0] * n_choices
    for answer in answers:
        if 0 <= answer.position < n_choices:
            counts[answer.position] += 1
    return counts


def fastest(answers: Iterable[Answer], n: int = FASTEST) -> list[Answer]:
    """The `n` fastest right answers (ties: the member id, for a stable order)."""
    right = [a for a in answers if a.correct]
    return sorted(right, key=lambda a: (a.ms, a.user_id))[:n]


# -- what the driver does next ----------------------------------------------------------


class Step(StrEnum):
    WAIT = "wait"  # until `until` (or a wake-up)
    OPEN = "open"  # the next question
    POST = "post"  # the open question's message is not recorded: send it
    CLOSE = "close"  # the open question: reveal it
    END = "end"  # the round: scoreboard
    ABANDON = "abandon"  # a round that never got past its set-up: end it quietly
    DONE = "done"  # ended: nothing left but what the outbox owes


@dataclass(frozen=True)
class QuestionState:
    number: int
    status: QuestionStatus
    message_id: int | None
    closes_at: datetime | None
    answered: int


@dataclass(frozen=True)
class Tally:
    """A question's answers as the answer writer committed them (the driver shows the
    count without reading it back): how many, and how many of the round's players have
    not answered it yet (answering joins, so that is players less answers)."""

    number: int
    answered: int
    waiting: int


@dataclass(frozen=True)
class RoundState:
    status: Status
    position: int  # 0-based index of the current question; -1 in the lobby
    total: int
    next_at: datetime | None
    stop_requested: bool
    idle: int  # questions in a row without an answer
    created_at: datetime
    joined: int  # players who had joined when the current question opened
    waiting: int  # players (joined at any time) who have not answered it yet
    question: QuestionState | None  # the current one (status QUESTION)


@dataclass(frozen=True)
class Decision:
    step: Step
    until: datetime | None = None
    reason: EndReason | None = None


def next_step(state: RoundState, now: datetime) -> Decision:
    """The one rule of a round's progress, the same after a restart as before it."""
    status = state.status
    if status is Status.ENDED:
        return Decision(Step.DONE)
    if status is Status.SETUP:
        if now >= state.created_at + SETUP_TIMEOUT:
            return Decision(Step.ABANDON, reason=EndReason.ABANDONED)
        return Decision(Step.WAIT, state.created_at + SETUP_TIMEOUT)
    if status is Status.LOBBY:
        if state.stop_requested:
            return Decision(Step.END, reason=EndReason.STOPPED)
        if state.next_at is None or now >= state.next_at:
            return Decision(Step.OPEN)
        return Decision(Step.WAIT, state.next_at)
    if status is Status.QUESTION:
        question = state.question
        if question is None or question.status is QuestionStatus.CLOSED:
            # Closed but the round not moved on: only a crash in between leaves this.
            return Decision(Step.CLOSE)
        if question.status is QuestionStatus.POSTING or question.message_id is None:
            return Decision(Step.POST)
        # Every joined member answered (answering joins too, so only a question that
        # had players when it opened can close early).
        everyone = state.joined > 0 and state.waiting == 0
        if state.stop_requested or everyone:
            return Decision(Step.CLOSE)
        if question.closes_at is None or now >= question.closes_at:
            return Decision(Step.CLOSE)
        return Decision(Step.WAIT, question.closes_at)
    # PAUSE
    ended = end_reason(state.stop_requested, state.idle, state.position, state.total)
    if ended is not None:
        return Decision(Step.END, reason=ended)
    if state.next_at is None or now >= state.next_at:
        return Decision(Step.OPEN)
    return Decision(Step.WAIT, state.next_at)


def end_reason(stop_requested: bool, idle: int, position: int, total: int) -> EndReason | None:
    """After the question at `position` (0-based) closed: why the round ends now, or None
    to go on after the pause."""
    if stop_requested:
        return EndReason.STOPPED
    if idle >= IDLE_LIMIT:
        return EndReason.IDLE
    if position + 1 >= total:
        return EndReason.FINISHED
    return None
