"""The daily question's types: an open post as the reaction handler knows it, the outcome
of grading one answer, and the summary a reveal shows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from enum import StrEnum
from typing import Any

# The languages a daily post can be written in.
LOCALES = ("id", "en")

# How members answer a daily post: reacting with 🇦 🇧 ... (everyone sees the counts), or
# pressing A-D buttons (each answer private until the reveal).
REACTIONS, BUTTONS = "reactions", "buttons"
ANSWER_MODES = (REACTIONS, BUTTONS)


def written_choice(order: Sequence[int] | None, position: int) -> int | None:
    """The choice as written in the quiz file shown at `position` (letter A = 0); None
    when the post shows no such position. `order` None: an older post, in file order."""
    if order is None:
        return position if position >= 0 else None
    return order[position] if 0 <= position < len(order) else None


def shown_position(order: Sequence[int] | None, choice: int) -> int:
    """Where the choice `choice` (as written) is shown on a post (inverse of `written_choice`)."""
    if order is None or choice not in order:
        return choice
    return list(order).index(choice)


@dataclass(frozen=True)
class OpenPost:
    """What the reaction handler needs about a posted, unsettled daily question."""

    post_id: int
    guild_id: int
    day: date
    question_id: str
    channel_id: int
    message_id: int
    reveal_at: datetime
    answer_mode: str = REACTIONS
    # Shown position -> choice as written; None: file order (posts before the shuffle).
    order: tuple[int, ...] | None = None
    # (right choice, number of choices) of a generated question's stored instance; None
    # for a written question (graded by the bank, which may have dropped it since).
    fixed_grading: tuple[int, int] | None = None


class AnswerStatus(StrEnum):
    RECORDED = "recorded"  # the member's first answer, stored
    DUPLICATE = "duplicate"  # the member had answered already: ignored
    CLOSED = "closed"  # revealed/settled, or the question is gone: ignored
    INVALID = "invalid"  # not one of the choices


@dataclass(frozen=True)
class DailyAnswerOutcome:
    status: AnswerStatus
    correct: bool | None = None


@dataclass(frozen=True)
class RevealSummary:
    post_id: int
    guild_id: int
    day: date
    question_id: str
    correct_choice: int | None  # as written; None if the question left the bank
    distribution: list[int]  # answers per choice, as written
    answered: int
    correct: int
    new_bests: list[tuple[int, int]] = field(default_factory=list)  # (user_id, streak)
    milestones: list[tuple[int, int]] = field(default_factory=list)  # (user_id, 7|30|100)
    # Reacted with several letters while the bot was offline, and so not counted.
    unclear: int = 0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["day"] = self.day.isoformat()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RevealSummary:
        return cls(
            **{
                **data,
                "day": date.fromisoformat(data["day"]),
                "new_bests": [tuple(x) for x in data["new_bests"]],
                "milestones": [tuple(x) for x in data["milestones"]],
                "unclear": data.get("unclear", 0),
            }
        )


@dataclass(frozen=True)
class Answer:
    """One member's answer to a daily post (its choice as written in the quiz file)."""

    user_id: int
    choice: int
    correct: bool


def reveal_summary(
    post_id: int,
    guild_id: int,
    day: date,
    question_id: str,
    answers: list[Answer],
    grading: tuple[int, int] | None,
    settled: list[Any],
    unclear_users: list[int],
) -> RevealSummary:
    """What the reveal shows. `grading`: (right choice, number of choices) as written, None
    when the question left the bank; `settled`: the members whose streaks the day moved
    (`bot.daily.streak_rules.SettledMember`)."""
    n_choices = grading[1] if grading else max((a.choice for a in answers), default=-1) + 1
    distribution = [0] * n_choices
    for answer in answers:
        if answer.choice < n_choices:
            distribution[answer.choice] += 1
    return RevealSummary(
        post_id=post_id,
        guild_id=guild_id,
        day=day,
        question_id=question_id,
        correct_choice=grading[0] if grading else None,
        distribution=distribution,
        answered=len(answers),
        correct=sum(1 for a in answers if a.correct),
        new_bests=sorted((m.user_id, m.update.state.current) for m in settled if m.update.new_best),
        milestones=sorted((m.user_id, m.update.milestone) for m in settled if m.update.milestone),
        unclear=len(set(unclear_users) - {a.user_id for a in answers}),
    )
