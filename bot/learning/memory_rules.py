"""A server's memory model and target retention: which fsrs scheduler reviews a card.

Each server has FSRS's default parameters until a fit on its own review log beats them on
reviews the fit did not see (`experiments.memory_fit`, run by `quiztutor memory fit`); its
target retention is `/daily setup retention:` (0.80-0.97, default 0.90).

Whose rules schedule a card: a card belongs to a member and a question, not to a server,
and a member can be in several servers. **Each answer is applied with the rules of the
server it was given in** (a daily post's server; a quiz session's server, also for a review
started from a reminder's DM); a member who answers in two servers has a card whose steps
were taken with either server's rules. When a server adopts new parameters, the cards whose
latest answer was given there are replayed from their whole review log with that server's
rules (`replay`): every review counts again, none is lost.

Every time here is an aware UTC datetime.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from functools import lru_cache
from typing import Any

from fsrs import Card, Rating, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS

from bot.common.errors import UserError
from bot.learning.review_rules import SCHEDULER, review

RETENTION_MIN, RETENTION_MAX, RETENTION_DEFAULT = 0.80, 0.97, 0.90
# A server's own parameters need this much history (as `experiments.memory_fit`, whose
# constants a test compares with these).
MIN_REVIEWS, MIN_MEMBERS = 1000, 30
# A fit's decisions (`experiments.memory_fit`, which the bot does not import).
FITTED, TOO_LITTLE, NOT_BETTER = "fitted", "too_little_history", "not_better"
# `/me`'s true retention and `/daily stats`'s retention curve look this many days back/ahead.
TRUE_RETENTION_DAYS = 30
CURVE_DAYS = 30
# The retention curve is the mean over at most this many of the class's cards.
CURVE_CARDS = 5000


def parse_retention(value: float | None) -> float | None:
    """A target retention 0.80..0.97 (two decimals), or None (keep the current setting)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UserError("daily.bad_retention", value=value, min=RETENTION_MIN, max=RETENTION_MAX)
    if not RETENTION_MIN <= float(value) <= RETENTION_MAX:
        raise UserError("daily.bad_retention", value=value, min=RETENTION_MIN, max=RETENTION_MAX)
    return round(float(value), 2)


@lru_cache(maxsize=512)
def scheduler_for(parameters: tuple[float, ...] | None, retention: float) -> Scheduler:
    """The bot's scheduler settings (`bot.learning.review_rules.SCHEDULER`) with a server's parameters
    (None: fsrs's defaults) and target retention."""
    if parameters is None and retention == SCHEDULER.desired_retention:
        return SCHEDULER
    return Scheduler(
        parameters=DEFAULT_PARAMETERS if parameters is None else parameters,
        desired_retention=retention,
        learning_steps=(),
        relearning_steps=(),
        enable_fuzzing=False,
    )


@dataclass(frozen=True)
class Rules:
    """How one server's answers are applied: its scheduler, and the timezone whose
    calendar days count a member's answers (`member_activity`, the `/me` calendar)."""

    scheduler: Scheduler = field(default_factory=lambda: SCHEDULER)
    tz: tzinfo = UTC
    fitted: bool = False  # the parameters are the server's own fit, not the defaults

    @property
    def retention(self) -> float:
        return float(self.scheduler.desired_retention)


DEFAULT_RULES = Rules()


def rules_of(
    parameters: Sequence[float] | None, retention: float | None, tz: tzinfo | None
) -> Rules:
    params = None if parameters is None else tuple(float(w) for w in parameters)
    return Rules(
        scheduler_for(params, RETENTION_DEFAULT if retention is None else float(retention)),
        tz or UTC,
        fitted=params is not None,
    )


def was_due(prior_due: datetime | None, open_mistake: bool, when: datetime) -> bool:
    """Whether an answer reviewed a card when it was due: the card existed, its fsrs due
    time had come, and it was not an open mistake (those are re-asked at once, as
    relearning). `/me`'s true retention is the share of these answered right."""
    return prior_due is not None and not open_mistake and when >= prior_due


@dataclass
class Replayed:
    """A card rebuilt from its review log (the columns of `review_card`)."""

    card: dict[str, Any] = field(default_factory=dict)
    due: datetime | None = None
    last_review: datetime | None = None
    reviews: int = 0
    lapses: int = 0
    open_mistake: bool = False
    last_wrong_at: datetime | None = None
    due_flags: list[bool] = field(default_factory=list)  # per review: `was_due`


def replay(history: Sequence[tuple[int, bool, datetime]], scheduler: Scheduler) -> Replayed:
    """One card's (rating, correct, when) reviews, in the order given (callers sort them by
    time), applied as `bot.learning.cards_store.record_grades` applies them one by one."""
    out = Replayed()
    card: Card | None = None
    for rating, correct, when in history:
        out.due_flags.append(was_due(out.due, out.open_mistake, when))
        card = review(card, Rating(rating), when, scheduler)
        out.reviews += 1
        if not correct:
            out.lapses += 1
            out.last_wrong_at = when
        out.open_mistake = not correct
        out.due, out.last_review = card.due, card.last_review
    if card is not None:
        out.card = dict(card.to_dict())
    return out


def retention_curve(
    cards: Sequence[tuple[float, datetime]], scheduler: Scheduler, now: datetime, days: int
) -> list[float]:
    """The mean predicted recall of `cards` ((stability, last review) each) now and on each
    of the next `days` days (fsrs's forgetting curve, whole days since the last review as
    fsrs counts them); [] without cards."""
    if not cards:
        return []
    decay = -float(scheduler.parameters[20])
    factor = 0.9 ** (1 / decay) - 1
    ages = [(max(0, (now - last).days), max(stability, 1e-6)) for stability, last in cards]
    return [
        sum((1 + factor * (age + d) / s) ** decay for age, s in ages) / len(ages)
        for d in range(days + 1)
    ]


def card_stability(data: dict[str, Any]) -> tuple[float, datetime] | None:
    """(stability, last review) of a stored card, None for a card never reviewed."""
    card = Card.from_dict(data)  # type: ignore[arg-type]
    if card.stability is None or card.last_review is None:
        return None
    return float(card.stability), card.last_review
