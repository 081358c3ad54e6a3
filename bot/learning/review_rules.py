"""Spaced review, the rules: one `fsrs` card per member and question, updated by every
graded answer, and the order a member's reviews come in.

A wrong answer rates Again, a right one Good (right and fast: Easy). The scheduler has no
intra-day learning steps, so FSRS schedules in days; on top of it a wrong answer leaves
an "open mistake" that is due at once, until the member answers that question right.
Every time here is an aware UTC datetime.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import NamedTuple

from fsrs import Card, Rating, Scheduler

from bot.common.times import as_utc

# Day-scale intervals only: minute-long learning steps do not fit a daily rhythm. No fuzz,
# so a member's schedule is reproducible (and testable).
SCHEDULER = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
# A right answer within this many seconds of the question being shown rates Easy.
FAST_ANSWER_S = 8.0
QUIZ, DAILY = "quiz", "daily"


class Source(NamedTuple):
    """Where a graded answer comes from: ("quiz", session id) or ("daily", post id)."""

    kind: str
    ref: str


@dataclass(frozen=True)
class Grade:
    user_id: int
    question_id: str
    correct: bool
    when: datetime
    source: Source
    seconds: float | None = None  # how long the answer took, when known
    guild_id: int | None = None  # the server it was given in (whose rules apply: core.memory)


def rating_for(correct: bool, seconds: float | None = None) -> Rating:
    if not correct:
        return Rating.Again
    if seconds is not None and 0 <= seconds <= FAST_ANSWER_S:
        return Rating.Easy
    return Rating.Good


def review(
    card: Card | None, rating: Rating, when: datetime, scheduler: Scheduler = SCHEDULER
) -> Card:
    """The pure rule: `card` (None: never seen) after one review at `when`, with a server's
    scheduler (`bot.learning.memory_rules.Rules`; fsrs's defaults and 90 % retention by default)."""
    when = as_utc(when)
    if card is None:
        card = Card(card_id=int(when.timestamp() * 1000), due=when)
    elif card.last_review is not None and when < card.last_review:
        when = card.last_review  # an answer graded late never moves a card back in time
    reviewed, _ = scheduler.review_card(card, rating, when)
    return reviewed


@dataclass(frozen=True)
class CardState:
    """What the review queue needs of one card (the fsrs state itself stays in storage)."""

    question_id: str
    due: datetime
    last_review: datetime
    open_mistake: bool
    last_wrong_at: datetime | None


@dataclass(frozen=True)
class ReviewCounts:
    due_now: int
    due_this_week: int  # within 7 days from now, including those due now
    next_due: datetime | None


def due_queue(
    cards: Sequence[CardState],
    unseen: Iterable[str],
    started: set[str],
    quiz_of: dict[str, str],
    now: datetime,
    limit: int,
) -> list[str]:
    """Question ids to review now, at most `limit`, each once, in this order: open
    mistakes (oldest mistake first), due cards (most overdue first), then `unseen`
    questions, those of quizzes in `started` first, in the order given."""
    now = as_utc(now)
    mistakes = sorted(
        (c for c in cards if c.open_mistake),
        key=lambda c: (c.last_wrong_at or c.last_review, c.question_id),
    )
    due = sorted(
        (c for c in cards if not c.open_mistake and c.due <= now),
        key=lambda c: (c.due, c.question_id),
    )
    fresh = sorted(unseen, key=lambda q: quiz_of[q] not in started)  # stable
    return ([c.question_id for c in mistakes + due] + fresh)[:limit]


def review_counts(cards: Sequence[CardState], now: datetime) -> ReviewCounts:
    now = as_utc(now)
    whens = [now if c.open_mistake else c.due for c in cards]
    return ReviewCounts(
        due_now=sum(1 for w in whens if w <= now),
        due_this_week=sum(1 for w in whens if w <= now + timedelta(days=7)),
        next_due=min(whens, default=None),
    )
