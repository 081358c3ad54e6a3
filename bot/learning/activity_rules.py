"""A member's study habit as `/me` shows it: answers per day over the last 26 weeks (a
calendar heatmap), the current and longest run of days with answers, the next review,
and the true retention beside the server's target.

Answers per day come from `member_activity`, counted once per graded answer (daily
questions, private quizzes and reviews) on the calendar day of the server it was given in
(UTC for a server without a daily schedule). A run is consecutive days with at least one
answer: the current one ends today or yesterday (today is not over yet); the longest is
the longest within the 26 weeks shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from bot.common.scores import accuracy

HEATMAP_WEEKS = 26

Run = tuple[date, date]  # first and last day


def window_start(today: date) -> date:
    """The Monday that starts the first of the 26 week columns (the last is today's week)."""
    return today - timedelta(days=today.weekday(), weeks=HEATMAP_WEEKS - 1)


def runs(days: set[date], today: date) -> tuple[Run | None, Run | None]:
    """(current run, longest run) of consecutive days in `days` (up to `today`)."""
    longest: Run | None = None
    current: Run | None = None
    for day in sorted(d for d in days if d <= today):
        if current is not None and day - current[1] == timedelta(days=1):
            current = (current[0], day)
        else:
            current = (day, day)
        if longest is None or (current[1] - current[0]) >= (longest[1] - longest[0]):
            longest = current  # ties: the later run
    if current is not None and today - current[1] > timedelta(days=1):
        current = None
    return current, longest


def run_days(run: Run | None) -> int:
    return 0 if run is None else (run[1] - run[0]).days + 1


@dataclass(frozen=True)
class Habit:
    today: date  # in the server's timezone
    counts: Mapping[date, int]  # answers per day, days with answers in the window only
    next_due: datetime | None  # the member's next review (of this server's questions)
    due_reviews: int  # reviews of cards that were due, in the last 30 days
    due_right: int
    target: float  # the server's target retention

    @property
    def start(self) -> date:
        return window_start(self.today)

    @property
    def runs(self) -> tuple[Run | None, Run | None]:
        return runs({d for d, n in self.counts.items() if n > 0}, self.today)

    @property
    def true_retention(self) -> float | None:
        return accuracy(self.due_right, self.due_reviews)

    @property
    def answers(self) -> int:
        return sum(self.counts.values())
