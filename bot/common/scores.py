"""Accuracy: the one rule every view of right answers uses (streaks, `/me`, `/daily stats`)."""

from __future__ import annotations


def accuracy(correct: int, answered: int) -> float | None:
    """The share of right answers, 0..1; None when nothing was answered."""
    return correct / answered if answered else None


def percent(correct: int, answered: int) -> int | None:
    """The accuracy as a whole percentage (rounded); None when nothing was answered."""
    share = accuracy(correct, answered)
    return None if share is None else round(100 * share)
