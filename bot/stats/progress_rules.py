"""A member's progress as `/me` shows it: streak, accuracy per topic, reviews due."""

from __future__ import annotations

from dataclasses import dataclass

from bot.common.scores import accuracy
from bot.daily.streak_rules import MemberStreak
from bot.learning.review_rules import ReviewCounts


@dataclass(frozen=True)
class TopicAccuracy:
    quiz_id: str
    answered: int
    correct: int

    @property
    def accuracy(self) -> float:
        share = accuracy(self.correct, self.answered)
        assert share is not None  # a topic is listed once it has answers
        return share


@dataclass(frozen=True)
class Progress:
    streak: MemberStreak | None  # None outside a server (streaks belong to a server)
    topics: list[TopicAccuracy]  # weakest first
    reviews: ReviewCounts
