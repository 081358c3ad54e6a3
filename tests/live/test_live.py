"""Live rounds, the rules (bot.live.rules): points, ranking, bounds, and what the driver
does next in every state. (The buttons' custom ids: tests/discord/test_buttons.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.common.errors import UserError
from bot.live.rules import (
    IDLE_LIMIT,
    SETUP_TIMEOUT,
    Answer,
    EndReason,
    QuestionState,
    QuestionStatus,
    RoundState,
    Standing,
    Status,
    Step,
    check_bounds,
    distribution,
    fastest,
    next_step,
    points,
    rank,
)

T0 = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("correct", "seconds", "limit", "expected"),
    [
        (True, 0, 20, 1000),
        (True, 20, 20, 500),
        (True, 10, 20, 750),
        (True, 5, 20, 875),
        (True, 1, 30, 983),  # 983.33 rounds down
        (True, 1, 12, 958),  # 958.33
        (True, 3, 24, 938),  # 937.5 rounds half up
        (True, 25, 20, 500),  # late answers never reach this far; held to T anyway
        (True, -1, 20, 1000),
        (False, 0, 20, 0),
        (False, 10, 20, 0),
    ],
)
def test_points_are_1000_times_one_minus_t_over_2T_rounded(
    correct: bool, seconds: float, limit: float, expected: int
) -> None:
    assert points(correct, seconds, limit) == expected


def test_rank_orders_by_points_then_total_time_and_shares_exact_ties() -> None:
    rows = [
        Standing(1, 900, 1, 1, 4000),
        Standing(2, 1800, 2, 2, 9000),
        Standing(3, 900, 1, 2, 3000),  # same points as 1, faster in total
        Standing(4, 900, 1, 1, 4000),  # tied with 1 in both
        Standing(5, 0, 0, 3, 1000),
    ]
    ranked = rank(rows)
    assert [(s.user_id, s.rank) for s in ranked] == [(2, 1), (3, 2), (1, 3), (4, 3), (5, 5)]


def test_distribution_and_fastest_right_answers() -> None:
    answers = [
        Answer(1, 0, False, 900),
        Answer(2, 2, True, 4000),
        Answer(3, 2, True, 1200),
        Answer(4, 2, True, 1200),
        Answer(5, 2, True, 8000),
        Answer(6, 3, False, 100),
    ]
    assert distribution(answers, 4) == [1, 0, 4, 1]
    assert [a.user_id for a in fastest(answers)] == [3, 4, 2]


@pytest.mark.parametrize(("questions", "seconds"), [(0, 20), (31, 20), (10, 9), (10, 121)])
def test_bounds(questions: int, seconds: int) -> None:
    with pytest.raises(UserError):
        check_bounds(questions, seconds)
    check_bounds(1, 10)
    check_bounds(30, 120)


def state(
    status: Status,
    *,
    position: int = 0,
    total: int = 3,
    next_at: datetime | None = None,
    stop: bool = False,
    idle: int = 0,
    joined: int = 2,
    waiting: int = 1,
    question: QuestionState | None = None,
) -> RoundState:
    return RoundState(status, position, total, next_at, stop, idle, T0, joined, waiting, question)


def open_q(answered: int = 0, closes: datetime = T0 + timedelta(seconds=20)) -> QuestionState:
    return QuestionState(1, QuestionStatus.OPEN, 555, closes, answered)


def test_next_step_in_the_lobby() -> None:
    lobby = state(Status.LOBBY, position=-1, next_at=T0 + timedelta(seconds=60))
    assert next_step(lobby, T0).step is Step.WAIT
    assert next_step(lobby, T0 + timedelta(seconds=60)).step is Step.OPEN
    stopped = state(Status.LOBBY, position=-1, next_at=T0 + timedelta(seconds=60), stop=True)
    assert next_step(stopped, T0).reason is EndReason.STOPPED


def test_next_step_while_a_question_is_open() -> None:
    posting = QuestionState(1, QuestionStatus.POSTING, None, None, 0)
    assert next_step(state(Status.QUESTION, question=posting), T0).step is Step.POST
    waiting = next_step(state(Status.QUESTION, question=open_q(1)), T0)
    assert waiting.step is Step.WAIT and waiting.until == T0 + timedelta(seconds=20)
    # The deadline (by the database's clock), everyone joined answered, or a stop closes it.
    assert (
        next_step(state(Status.QUESTION, question=open_q(1)), T0 + timedelta(seconds=20)).step
        is Step.CLOSE
    )
    assert next_step(state(Status.QUESTION, waiting=0, question=open_q(2)), T0).step is Step.CLOSE
    # Nobody had joined when it opened (answering joins): it runs its time.
    nobody = state(Status.QUESTION, joined=0, waiting=0, question=open_q(3))
    assert next_step(nobody, T0).step is Step.WAIT
    assert next_step(state(Status.QUESTION, stop=True, question=open_q(0)), T0).step is Step.CLOSE


def test_next_step_after_a_reveal() -> None:
    pause = state(Status.PAUSE, position=0, next_at=T0 + timedelta(seconds=5))
    assert next_step(pause, T0).step is Step.WAIT
    assert next_step(pause, T0 + timedelta(seconds=5)).step is Step.OPEN
    last = state(Status.PAUSE, position=2, total=3, next_at=T0)
    assert next_step(last, T0).reason is EndReason.FINISHED
    idle = state(Status.PAUSE, idle=IDLE_LIMIT, next_at=T0)
    assert next_step(idle, T0).reason is EndReason.IDLE
    assert next_step(state(Status.ENDED), T0).step is Step.DONE


def test_a_round_stuck_in_its_set_up_is_abandoned() -> None:
    setup = state(Status.SETUP, position=-1)
    assert next_step(setup, T0).step is Step.WAIT
    assert next_step(setup, T0 + SETUP_TIMEOUT).step is Step.ABANDON
