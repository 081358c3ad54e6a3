"""What the live driver reads a round as: its state for the rules (`bot.live.rules`) and
the view of its open question for the publisher."""

from __future__ import annotations

from datetime import datetime

from bot.db.tables.live import LiveQuestion, LiveRound
from bot.live.publisher import QuestionView, RoundView
from bot.live.rules import QuestionState, QuestionStatus, RoundState, Status


def round_state(
    row: LiveRound, current: LiveQuestion | None, joined: int, waiting: int
) -> RoundState:
    question = None
    if current is not None and row.status == Status.QUESTION:
        question = QuestionState(
            current.number,
            QuestionStatus(current.status),
            current.message_id,
            current.closes_at,
            current.answered,
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
