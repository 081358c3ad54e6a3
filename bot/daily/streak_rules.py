"""Daily streaks, the pure rule: one settled daily question changes one member's state.

A streak counts consecutive daily questions (one per local day of the guild) answered
correctly. A wrong answer or a missed question ends it when the question is settled, for
every member at once, so leaderboards never show stale streaks. Days without a post (the
bot was down) do not break anyone's streak.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from bot.common.errors import UserError
from bot.common.scores import accuracy

MILESTONES = (7, 30, 100)
# Going from 0 to 1 is not worth a "new personal best" shout; from 2 on it is.
MIN_ANNOUNCED_BEST = 2
# Accuracy of one lucky answer means nothing: only members with this many answers rank.
MIN_ANSWERED_FOR_ACCURACY = 3
LEADERBOARD_ORDERS = ("streak", "longest", "correct", "accuracy")


class Outcome(StrEnum):
    CORRECT = "correct"
    WRONG = "wrong"
    MISSED = "missed"


@dataclass(frozen=True)
class StreakState:
    current: int = 0
    longest: int = 0
    answered: int = 0
    correct: int = 0


@dataclass(frozen=True)
class StreakUpdate:
    state: StreakState
    new_best: bool
    milestone: int | None


def apply_outcome(state: StreakState, outcome: Outcome) -> StreakUpdate:
    """The pure rule: one settled daily question changes one member's state."""
    if outcome is Outcome.MISSED:
        return StreakUpdate(replace(state, current=0), new_best=False, milestone=None)
    if outcome is Outcome.WRONG:
        return StreakUpdate(replace(state, current=0, answered=state.answered + 1), False, None)
    current = state.current + 1
    new = StreakState(
        current=current,
        longest=max(state.longest, current),
        answered=state.answered + 1,
        correct=state.correct + 1,
    )
    new_best = current > state.longest and current >= MIN_ANNOUNCED_BEST
    milestone = current if current in MILESTONES else None
    return StreakUpdate(new, new_best, milestone)


@dataclass(frozen=True)
class MemberStreak:
    user_id: int
    current: int
    longest: int
    answered: int
    correct: int

    @property
    def accuracy(self) -> float | None:
        return accuracy(self.correct, self.answered)


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    user_id: int
    value: float  # the ranked number: a streak, a count, or accuracy 0..1
    current: int
    longest: int
    answered: int
    correct: int


@dataclass(frozen=True)
class SettledMember:
    user_id: int
    update: StreakUpdate


def check_leaderboard(by: str, page: int) -> None:
    """A ranking the leaderboard offers, and a page from 1 on."""
    if by not in LEADERBOARD_ORDERS:
        raise UserError("leaderboard.bad_order", value=by, allowed=", ".join(LEADERBOARD_ORDERS))
    if page < 1:
        raise UserError("leaderboard.bad_page", page=page)
