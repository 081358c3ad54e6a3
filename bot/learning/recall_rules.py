"""The class's recall of a question now, from a few running sums instead of every card.

The daily choice ranks questions by the mean fsrs retrievability of the active members'
cards *now* (`bot.daily.choice_rules`). A card's retrievability decays with the time since
its last review at its own pace (its stability), so a plain sum of retrievabilities is
stale the moment it is written, and re-reading every card (270k in a big server) is
what made the choice slow. The curve has a form that running sums can follow exactly:

    R(T) = (1 + F (T - l) / S) ** D        (FSRS: stability S, last review l, T in days)
         = c * u(T) ** D                    with c = (F / S) ** D, u(T) = T - l + S / F

and x ** D (D < 0) is, to a relative 4e-4 on 1e-3 <= x <= 1e5 days, a sum of K
exponentials (the trapezoidal rule, step 1, on x**D = 1/G(-D) * integral e^(-Dy) e^(-e^y x)
dy, with the slow tail folded into one term): x ** D ~ sum_k w_k e^(-r_k x). Exponentials
all decay alike, so the K sums

    A_k(T) = sum over cards of c * e^(-r_k u(T))

referring to a time T move to any later time T' by A_k(T') = A_k(T) e^(-r_k (T' - T)), and
the mean recall at T' is sum_k w_k A_k(T') / n. A graded answer replaces one card's terms
(subtract the old card's, add the new card's) in O(K); a member joining or leaving the
class adds or subtracts all of theirs. The time here is continuous (fsrs's own
`get_card_retrievability` counts whole days elapsed); the running sums and `exact` agree
to about 1e-4.

The sums depend on the curve's F and D (fsrs parameters): each server's sums are kept
under its own memory model's curve (`curve_of`; K is the same for every decay), and are
rebuilt from the cards when a refit changes its decay (`bot.learning.recall_store.recount`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import orjson
from fsrs import Scheduler

from bot.common.times import as_utc
from bot.learning.review_rules import SCHEDULER

# A member who answered a daily question within this many days counts as active.
ACTIVE_DAYS = 30
# What a signal rests on: the members' review cards, or their daily answers.
CARDS, ANSWERS = "cards", "answers"


@dataclass(frozen=True)
class Signal:
    """What the active members know of one question."""

    recall: float  # mean retrievability (basis "cards") or accuracy (basis "answers"), 0..1
    basis: str
    n: int  # cards or answers behind `recall`


EPOCH = datetime(2020, 1, 1, tzinfo=UTC)
DAY_S = 86_400.0
# The range of u = elapsed days + S/F the sums follow to 4e-4: from ~1.5 minutes (a card
# of the smallest stability fsrs gives, just reviewed) to ~270 years.
X_MIN, X_MAX = 1e-3, 1e5
# exp() of less than this is taken as exp(this) (~1e-304, nothing next to a card's 1e-4):
# PostgreSQL refuses to underflow, and SQL and Python must agree on every term.
MIN_EXPONENT = -700.0


def days(when: datetime) -> float:
    """`when` as days since EPOCH (the unit of every time below)."""
    return (as_utc(when) - EPOCH).total_seconds() / DAY_S


@dataclass(frozen=True)
class RecallSums:
    """The exponentials that stand for one forgetting curve (decay D, factor F)."""

    decay: float
    factor: float
    rates: tuple[float, ...]
    weights: tuple[float, ...]

    @classmethod
    def for_curve(cls, decay: float, factor: float, step: float = 1.0) -> RecallSums:
        if not -1.0 < decay < 0.0:
            raise ValueError(f"a forgetting curve's decay is in (-1, 0), not {decay}")
        gamma = math.gamma(-decay)
        # Nodes y = ln(rate): from where e^y * X_MAX is 1e-5 (slower exponentials are 1
        # over the whole range) to where e^y * X_MIN is 40 (faster ones are 0).
        y_tail = math.log(1e-5 / X_MAX)
        count = math.ceil((math.log(40.0 / X_MIN) - y_tail) / step)
        ys = [y_tail + step * (k + 1) for k in range(count)]
        rates = [math.exp(y) for y in ys]
        weights = [step * math.exp(-decay * y) / gamma for y in ys]
        # The tail below y_tail + step/2 as one exponential with the same first two
        # Taylor terms: e^(-D y)/(-D) * e^(-x e^y (-D)/(1-D)).
        y = y_tail + step / 2
        rates.append(math.exp(y) * -decay / (1.0 - decay))
        weights.append(math.exp(-decay * y) / -decay / gamma)
        return cls(decay, factor, tuple(rates), tuple(weights))

    @classmethod
    def for_scheduler(cls, scheduler: Scheduler) -> RecallSums:
        return curve(-float(scheduler.parameters[20]))

    @property
    def size(self) -> int:
        return len(self.rates)

    def zeros(self) -> list[float]:
        return [0.0] * len(self.rates)

    def exact(self, stability: float, last_review: float, at: float) -> float:
        """One card's retrievability at `at` (continuous time)."""
        return (1.0 + self.factor * max(0.0, at - last_review) / stability) ** self.decay

    def terms(self, stability: float, last_review: float, at: float) -> list[float]:
        """One card's share of the sums that refer to time `at` (>= its last review)."""
        u = (at - last_review) + stability / self.factor
        c = (self.factor / stability) ** self.decay
        return [c * math.exp(max(MIN_EXPONENT, -r * u)) for r in self.rates]

    def terms_many(
        self, stabilities: Sequence[float], last_reviews: Sequence[float], at: float
    ) -> list[list[float]]:
        """`terms` of many cards at once: one row per card. Plain Python (about 5 us a
        card): the bot applies at most a few hundred cards per transaction, and numpy
        would cost the bot process 10 MiB of memory for it."""
        return [
            self.terms(stability, last_review, at)
            for stability, last_review in zip(stabilities, last_reviews, strict=True)
        ]

    def moved(self, sums: Sequence[float], since: float, to: float) -> list[float]:
        """Sums that referred to `since`, referring to the later time `to`."""
        elapsed = to - since
        if elapsed <= 0.0:
            return list(sums)
        return [
            a * math.exp(max(MIN_EXPONENT, -r * elapsed))
            for a, r in zip(sums, self.rates, strict=True)
        ]

    def mean(self, sums: Sequence[float], cards: int, since: float, at: float) -> float:
        """The mean retrievability at `at` of the `cards` cards behind `sums` (at `since`)."""
        if cards <= 0:
            raise ValueError("no cards")
        moved = self.moved(sums, since, max(since, at))
        total = sum(w * a for w, a in zip(self.weights, moved, strict=True))
        return min(1.0, max(0.0, total / cards))


def add_terms(sums: list[float], terms: Sequence[float], sign: float = 1.0) -> None:
    """sums += sign * terms, in place."""
    for k, value in enumerate(terms):
        sums[k] += sign * value


def difference(after: Sequence[float], before: Sequence[float]) -> list[float]:
    """after - before, term by term."""
    return [a - b for a, b in zip(after, before, strict=True)]


@lru_cache(maxsize=256)
def curve(decay: float) -> RecallSums:
    """The sums of fsrs's forgetting curve of decay D (F such that R(S) = 0.9), worked out
    once per decay."""
    return RecallSums.for_curve(decay, 0.9 ** (1.0 / decay) - 1.0)


def curve_of(parameters: Sequence[float] | None) -> RecallSums:
    """The curve of a server's memory model: its fitted fsrs parameters, or None for
    fsrs's defaults (the decay is the 21st parameter)."""
    return curve(-float((SCHEDULER.parameters if parameters is None else parameters)[20]))


# The curve of the bot's scheduler (`bot.learning.review_rules.SCHEDULER`): fsrs's defaults.
SUMS = curve_of(None)


def curve_point(card: Any, reviews: int) -> tuple[float, float] | None:
    """(stability, last review in days) of a stored card (its fsrs JSON, as a dict or
    text); None for a card not reviewed yet."""
    if not reviews:
        return None
    data = card if isinstance(card, dict) else orjson.loads(card)
    return (float(data["stability"]), days(datetime.fromisoformat(data["last_review"])))
