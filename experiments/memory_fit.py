"""A memory model per server: fit FSRS's parameters to the server's own review log.

The model-fitting core of issue 26 point 1. Pure functions over JSON-friendly data, so a
worker process can run them over a pipe; nothing here touches the bot, its storage or its
event loop (and nothing here imports `bot` or `cogs`). torch comes in only through the
`fsrs` package's optimizer, imported when a fit actually runs: importing this module is
cheap and torch-free.

Input: reviews, one per graded answer, each a dict

    {"member_id": 1, "question_id": "mx-01", "rating": 3, "reviewed_at": "2026-05-01T12:00:00Z"}

(`user_id` is accepted for `member_id`, as the bot's `review_log` table spells it) or a
tuple `(member_id, question_id, rating, reviewed_at)`. A card is a (member, question)
pair. `rating` is FSRS's 1-4 (the bot writes 1 = wrong, 3 = right, 4 = right within 8 s).
`reviewed_at` is an ISO-8601 string, a `datetime`, or epoch seconds; all are UTC (an ISO
string or datetime without an offset is read as UTC).

`fit_server(reviews)` returns a dict (see its docstring) whose `decision` is

- "too_little_history": fewer than MIN_REVIEWS reviews or MIN_MEMBERS members; no fit ran.
- "fitted": the fitted parameters beat the defaults on the held-out reviews (the latest
  HOLDOUT_SHARE of them by time): lower log-loss AND RMSE (bins) no higher.
- "not_better": a fit ran but did not beat the defaults there (or could not run: too few
  reviews a day or more apart for fsrs's optimizer, nothing to score in the held-out part).

`reschedule_card(history, parameters)` / `reschedule_cards(reviews, parameters)` replay
every review of a card through the bot's scheduler settings with the given parameters, so
the bot can recompute each card from its full history without losing any review.

How FSRS sees a review (fsrs 6.3.2's Scheduler and Optimizer, mirrored here):

- The predicted recall of a card at a review is `Scheduler.get_card_retrievability(card,
  t)`: `(1 + FACTOR * d / S) ** -w20` with `d` the whole days since the card's last review
  (`timedelta.days`, i.e. floor of 24-hour periods) and `S` its stability.
- Only reviews at least one whole day after the card's previous review carry a prediction:
  fsrs's optimizer computes its loss on exactly those, and FSRS's benchmark drops
  same-day reviews too. A card's first review and its same-day repeats still update its
  state (initial stability; short-term stability).
- The bot schedules without learning steps; fsrs's optimizer replays with the default
  Scheduler (learning steps of 1 and 10 minutes). That changes due dates, never stability
  or difficulty: every state updates S and D by the same formulas (initial, short-term
  when < 1 day, long-term otherwise), so the fitted parameters mean the same under the
  bot's settings. `tests/learning/test_memory_fit.py` checks this.

Metrics (on held-out reviews only, each predicted from the card's full prior history,
train-period reviews included):

- log-loss: mean of `-(y ln p + (1 - y) ln(1 - p))`, y = 1 when recalled (rating > 1),
  p clipped to [eps, 1 - eps] with eps = 2.2e-16 (float64's epsilon, as scikit-learn).
- RMSE (bins): FSRS benchmark's `rmse_matrix` (open-spaced-repetition/srs-benchmark and
  fsrs-optimizer). Each scored review falls into a bin keyed by three rounded
  log-scale values:
    interval d (whole days since the last review): round(2.48 * 3.62 ** floor(log_3.62 d), 2)
    i, the review's ordinal counting the first review and the reviews a day or more after
      their predecessor (the first scored review of a card has i = 2):
      round(1.99 * 1.89 ** floor(log_1.89 i))
    lapses, the card's earlier Again ratings given a day or more after its previous review
      (a first review's Again is not a lapse): 0, or round(1.65 * 1.73 ** floor(log_1.73 n))
  Per bin: mean predicted p and mean actual y; RMSE = sqrt(sum_bins n_b (ybar_b - pbar_b)^2
  / sum_bins n_b). (The benchmark also drops outlier intervals before scoring; here every
  scored review counts.)

Bounds on time, and determinism: fsrs's optimizer uses at most the first 64 reviews of a
card (its `max_seq_len`); here at most MAX_FIT_REVIEWS such reviews go into a fit (whole
cards, drawn with `random.Random(seed)` when there are more), for `epochs` epochs
(DEFAULT_EPOCHS, fsrs's own 5; the number is set on fsrs.optimizer's module for the
duration of the fit, under a lock). fsrs shuffles cards with its own fixed seed (42) and
runs float64 scalar ops on CPU, so the same input, seed and epochs give the same
parameters. A fit costs about 0.7 ms per fitted review per epoch on this project's
2-core machine (5 epochs: 5,000 reviews ~15 s, 20,000 ~55 s; at most ~70 s under
MAX_FIT_REVIEWS), plus ~1.5 s to import torch once per process; scoring both parameter
sets on the held-out reviews takes well under a second. See `python -m
experiments.memory_fit --simulate MEMBERS`.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib.metadata import PackageNotFoundError, version
from itertools import pairwise
from typing import Any

from fsrs import Card, Rating, ReviewLog, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS

MIN_REVIEWS = 1000
MIN_MEMBERS = 30
HOLDOUT_SHARE = 0.2
#: fsrs.optimizer's own number of epochs.
DEFAULT_EPOCHS = 5
#: At most this many reviews (each card's first 64, whole cards) go into one fit.
MAX_FIT_REVIEWS = 20_000
#: fsrs.optimizer's max_seq_len: it fits on the first 64 reviews of each card.
FSRS_MAX_SEQ_LEN = 64
#: fsrs.optimizer's mini_batch_size: with fewer reviews to score it returns the defaults.
FSRS_MIN_SCORED = 512
LOG_LOSS_EPS = 2.220446049250313e-16

DECISION_FITTED = "fitted"
DECISION_TOO_LITTLE = "too_little_history"
DECISION_NOT_BETTER = "not_better"

CardKey = tuple[Any, Any]


@dataclass(frozen=True, slots=True)
class Review:
    member_id: Any
    question_id: Any
    rating: int
    at: datetime  # aware, UTC

    @property
    def card(self) -> CardKey:
        return (self.member_id, self.question_id)


def _scheduler(parameters: Sequence[float] | None = None) -> Scheduler:
    """The bot's scheduler settings (bot/review.py), with the given parameters."""
    return Scheduler(
        parameters=DEFAULT_PARAMETERS if parameters is None else tuple(parameters),
        learning_steps=(),
        relearning_steps=(),
        enable_fuzzing=False,
    )


# --- input -----------------------------------------------------------------------------


def parse_time(value: Any) -> datetime:
    """An aware UTC datetime from an ISO string, a datetime or epoch seconds."""
    if isinstance(value, bool):
        raise ValueError(f"not a time: {value!r}")
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, UTC)
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if not isinstance(value, datetime):
        raise ValueError(f"not a time: {value!r}")
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def parse_review(item: Mapping[str, Any] | Sequence[Any]) -> Review:
    if isinstance(item, Mapping):
        member = item["member_id"] if "member_id" in item else item["user_id"]
        question, rating, when = item["question_id"], item["rating"], item["reviewed_at"]
    else:
        member, question, rating, when = item
    if isinstance(rating, bool) or int(rating) != rating or not 1 <= int(rating) <= 4:
        raise ValueError(f"rating must be 1-4, got {rating!r}")
    return Review(member, question, int(rating), parse_time(when))


def _sort_key(r: Review) -> tuple[datetime, str, str, int]:
    return (r.at, str(r.member_id), str(r.question_id), r.rating)


def parse_reviews(items: Iterable[Mapping[str, Any] | Sequence[Any]]) -> list[Review]:
    """Parsed and sorted by time (ties by member, question, rating: input order is moot)."""
    return sorted((parse_review(i) for i in items), key=_sort_key)


def _histories(reviews: Iterable[Review]) -> dict[CardKey, list[Review]]:
    out: dict[CardKey, list[Review]] = {}
    for r in reviews:
        out.setdefault(r.card, []).append(r)
    return out


# --- metrics -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scored:
    """One held-out review with its prediction and the benchmark's bin features."""

    p: float  # predicted recall
    y: int  # 1 recalled, 0 forgotten
    days: int  # whole days since the card's previous review (>= 1)
    i: int  # ordinal among the card's first review and its >= 1-day reviews
    lapses: int  # earlier Again ratings given >= 1 day after the previous review


def score_reviews(
    histories: Mapping[CardKey, Sequence[Review]],
    parameters: Sequence[float] | None,
    held_out_from: datetime | None = None,
    *,
    split_index: Mapping[CardKey, int] | None = None,
) -> list[Scored]:
    """Predict every review that is a day or more after its card's previous review.

    Each card's full history is replayed with `parameters` (the bot's scheduler
    settings); only reviews in the held-out part are returned: those at index
    >= split_index[card] of the card's history when `split_index` is given, else those
    at or after `held_out_from` (None: all).
    """
    scheduler = _scheduler(parameters)
    out: list[Scored] = []
    for key, history in histories.items():
        first_held = split_index.get(key, len(history)) if split_index is not None else None
        card: Card | None = None
        i, lapses = 1, 0
        for k, r in enumerate(history):
            if card is None:
                card = Card(card_id=0, due=r.at)
            else:
                assert card.last_review is not None
                days = (r.at - card.last_review).days
                if days >= 1:
                    i += 1
                    held = (
                        k >= first_held
                        if first_held is not None
                        else held_out_from is None or r.at >= held_out_from
                    )
                    if held:
                        p = float(scheduler.get_card_retrievability(card, r.at))
                        out.append(Scored(p, int(r.rating > 1), days, i, lapses))
                    if r.rating == Rating.Again:
                        lapses += 1
            card, _ = scheduler.review_card(card, Rating(r.rating), r.at)
    return out


def log_loss(scored: Sequence[Scored]) -> float:
    total = 0.0
    for s in scored:
        p = min(max(s.p, LOG_LOSS_EPS), 1.0 - LOG_LOSS_EPS)
        total -= math.log(p) if s.y else math.log(1.0 - p)
    return total / len(scored)


def _log_bin(x: float, scale: float, base: float, digits: int) -> float:
    return round(scale * base ** math.floor(math.log(x) / math.log(base)), digits)


def bin_key(s: Scored) -> tuple[float, float, float]:
    """FSRS benchmark's bin of a review: (interval, review ordinal, lapses), log-scaled."""
    return (
        _log_bin(s.days, 2.48, 3.62, 2),
        _log_bin(s.i, 1.99, 1.89, 0),
        _log_bin(s.lapses, 1.65, 1.73, 0) if s.lapses else 0.0,
    )


def rmse_bins(scored: Sequence[Scored]) -> float:
    bins: dict[tuple[float, float, float], list[float]] = {}
    for s in scored:
        acc = bins.setdefault(bin_key(s), [0.0, 0.0, 0.0])  # sum p, sum y, n
        acc[0] += s.p
        acc[1] += s.y
        acc[2] += 1
    num = sum(n * (sy / n - sp / n) ** 2 for sp, sy, n in bins.values())
    return math.sqrt(num / sum(n for _, _, n in bins.values()))


def metrics(scored: Sequence[Scored]) -> dict[str, Any] | None:
    if not scored:
        return None
    return {
        "log_loss": log_loss(scored),
        "rmse_bins": rmse_bins(scored),
        "reviews": len(scored),
        "mean_predicted": sum(s.p for s in scored) / len(scored),
        "mean_recalled": sum(s.y for s in scored) / len(scored),
    }


# --- fitting -----------------------------------------------------------------------------

_OPTIMIZER_LOCK = threading.Lock()


@contextmanager
def _optimizer_epochs(epochs: int) -> Iterator[Any]:
    """fsrs.optimizer with `num_epochs` (a module global in fsrs 6.3) set for the block."""
    import fsrs.optimizer as fsrs_optimizer  # pulls torch (and pandas, tqdm)

    if not hasattr(fsrs_optimizer, "num_epochs"):
        raise RuntimeError(
            "fsrs.optimizer is unavailable or has no num_epochs: install fsrs[optimizer] "
            "(fsrs 6.x) on the host's torch"
        )
    with _OPTIMIZER_LOCK:
        saved = fsrs_optimizer.num_epochs
        fsrs_optimizer.num_epochs = epochs
        try:
            yield fsrs_optimizer
        finally:
            fsrs_optimizer.num_epochs = saved


def select_fit_cards(
    histories: Mapping[CardKey, Sequence[Review]], max_reviews: int, seed: int
) -> list[CardKey]:
    """Whole cards whose first 64 reviews add up to at most `max_reviews` (all when they
    fit; else cards drawn at random with `seed`), in the order their histories start."""
    keys = sorted(histories, key=lambda k: _sort_key(histories[k][0]))
    size = {k: min(len(histories[k]), FSRS_MAX_SEQ_LEN) for k in keys}
    if sum(size.values()) <= max_reviews:
        return keys
    drawn = list(keys)
    random.Random(seed).shuffle(drawn)
    chosen: set[CardKey] = set()
    total = 0
    for k in drawn:
        if total + size[k] <= max_reviews:
            chosen.add(k)
            total += size[k]
    return [k for k in keys if k in chosen]


def _one_day_apart(history: Sequence[Review]) -> int:
    """How many reviews come a whole day or more after the previous one (those scored)."""
    return sum(1 for a, b in pairwise(history) if (b.at - a.at).days >= 1)


def fit_parameters(
    histories: Mapping[CardKey, Sequence[Review]], cards: Sequence[CardKey], epochs: int
) -> list[float] | None:
    """fsrs's Optimizer on the given cards' histories (first 64 reviews each).

    Returns its parameters (fsrs returns the defaults themselves when fewer than 512
    reviews are a day or more after the card's previous one), or None if it found none.
    """
    logs = [
        ReviewLog(card_id=n, rating=Rating(r.rating), review_datetime=r.at, review_duration=None)
        for n, key in enumerate(cards, start=1)
        for r in histories[key][:FSRS_MAX_SEQ_LEN]
    ]
    with _optimizer_epochs(epochs) as fsrs_optimizer:
        found = fsrs_optimizer.Optimizer(logs).compute_optimal_parameters(verbose=False)
    return None if found is None else [float(w) for w in found]


def _fsrs_version() -> str:
    try:
        return version("fsrs")
    except PackageNotFoundError:  # pragma: no cover
        return "unknown"


def fit_server(
    reviews: Iterable[Mapping[str, Any] | Sequence[Any]],
    *,
    epochs: int = DEFAULT_EPOCHS,
    max_fit_reviews: int = MAX_FIT_REVIEWS,
    seed: int = 0,
    min_reviews: int = MIN_REVIEWS,
    min_members: int = MIN_MEMBERS,
    holdout_share: float = HOLDOUT_SHARE,
) -> dict[str, Any]:
    """Fit a server's memory model; decide whether it beats the default parameters.

    Returns a JSON-serialisable dict:
      decision: "fitted" | "too_little_history" | "not_better"
      reason: one sentence for people
      parameters: the 21 fitted floats when decision == "fitted", else None
      candidate_parameters: what the fit produced (None when no fit ran)
      default_parameters: fsrs's 21 defaults
      counts: reviews, members, cards, train_reviews, held_out_reviews, fit_reviews,
        fit_cards, fit_scored (fitted reviews a day or more after their card's previous
        one: those fsrs's optimizer computes its loss on; it keeps the defaults under
        512), held_out_scored (held-out reviews a day or more after their card's previous
        one: those the metrics are computed on)
      held_out_from: ISO time of the first held-out review (None when no split)
      metrics: {"default": M, "fitted": M} on the held-out reviews, M = {log_loss,
        rmse_bins, reviews, mean_predicted, mean_recalled}; None where not computed
      settings: epochs, max_fit_reviews, seed, min_reviews, min_members, holdout_share,
        fsrs version
      seconds: {"fit", "evaluate", "total"} wall-clock seconds
    """
    started = time.perf_counter()
    parsed = parse_reviews(reviews)
    histories = _histories(parsed)
    members = len({r.member_id for r in parsed})
    n = len(parsed)
    result: dict[str, Any] = {
        "decision": DECISION_TOO_LITTLE,
        "reason": "",
        "parameters": None,
        "candidate_parameters": None,
        "default_parameters": list(DEFAULT_PARAMETERS),
        "counts": {
            "reviews": n,
            "members": members,
            "cards": len(histories),
            "train_reviews": 0,
            "held_out_reviews": 0,
            "fit_reviews": 0,
            "fit_cards": 0,
            "fit_scored": 0,
            "held_out_scored": 0,
        },
        "held_out_from": None,
        "metrics": {"default": None, "fitted": None},
        "settings": {
            "epochs": epochs,
            "max_fit_reviews": max_fit_reviews,
            "seed": seed,
            "min_reviews": min_reviews,
            "min_members": min_members,
            "holdout_share": holdout_share,
            "fsrs": _fsrs_version(),
        },
        "seconds": {"fit": 0.0, "evaluate": 0.0, "total": 0.0},
    }
    counts = result["counts"]

    def done() -> dict[str, Any]:
        result["seconds"]["total"] = time.perf_counter() - started
        return result

    if n < min_reviews or members < min_members:
        result["reason"] = (
            f"{n} reviews from {members} members; a fit needs at least "
            f"{min_reviews} reviews from {min_members} members"
        )
        return done()

    # The latest share by time is held out; the fit sees only what came before.
    n_train = n - math.ceil(n * holdout_share)
    train, held = parsed[:n_train], parsed[n_train:]
    counts["train_reviews"], counts["held_out_reviews"] = len(train), len(held)
    result["held_out_from"] = held[0].at.isoformat() if held else None
    train_histories = _histories(train)
    split_index = {key: len(train_histories.get(key, ())) for key in histories}

    t0 = time.perf_counter()
    cards = select_fit_cards(train_histories, max_fit_reviews, seed)
    counts["fit_cards"] = len(cards)
    counts["fit_reviews"] = sum(min(len(train_histories[k]), FSRS_MAX_SEQ_LEN) for k in cards)
    counts["fit_scored"] = sum(_one_day_apart(train_histories[k][:FSRS_MAX_SEQ_LEN]) for k in cards)
    candidate = fit_parameters(train_histories, cards, epochs)
    result["seconds"]["fit"] = time.perf_counter() - t0
    result["candidate_parameters"] = candidate

    t0 = time.perf_counter()
    base_scored = score_reviews(histories, None, split_index=split_index)
    counts["held_out_scored"] = len(base_scored)
    result["metrics"]["default"] = metrics(base_scored)
    if candidate is not None:
        result["metrics"]["fitted"] = metrics(
            score_reviews(histories, candidate, split_index=split_index)
        )
    result["seconds"]["evaluate"] = time.perf_counter() - t0

    base, fitted = result["metrics"]["default"], result["metrics"]["fitted"]
    result["decision"] = DECISION_NOT_BETTER
    if candidate is None:
        result["reason"] = "fsrs's optimizer returned no parameters"
    elif candidate == list(DEFAULT_PARAMETERS):
        result["reason"] = (
            f"fsrs's optimizer kept the defaults: it needs {FSRS_MIN_SCORED} training reviews "
            f"a day or more after their card's previous one, there were {counts['fit_scored']}"
        )
    elif base is None or fitted is None:
        result["reason"] = "no held-out review a day or more after its card's previous one"
    elif fitted["log_loss"] < base["log_loss"] and fitted["rmse_bins"] <= base["rmse_bins"]:
        result["decision"] = DECISION_FITTED
        result["parameters"] = candidate
        result["reason"] = (
            f"on {base['reviews']} held-out reviews the fit predicts recall better: "
            f"log-loss {fitted['log_loss']:.4f} vs {base['log_loss']:.4f}, "
            f"RMSE (bins) {fitted['rmse_bins']:.4f} vs {base['rmse_bins']:.4f}"
        )
    else:
        result["reason"] = (
            f"on {base['reviews']} held-out reviews the fit is not better: "
            f"log-loss {fitted['log_loss']:.4f} vs {base['log_loss']:.4f}, "
            f"RMSE (bins) {fitted['rmse_bins']:.4f} vs {base['rmse_bins']:.4f}"
        )
    return done()


# --- rescheduling --------------------------------------------------------------------------


def reschedule_card(
    history: Iterable[Mapping[str, Any] | Sequence[Any]],
    parameters: Sequence[float] | None = None,
    *,
    keep_order: bool = False,
) -> dict[str, Any]:
    """A card's state (`Card.to_dict()`) after replaying all its reviews with `parameters`.

    `history` holds one card's reviews: review dicts/tuples as `fit_server` takes, or
    `(rating, reviewed_at)` pairs. The card is built as bot/review.py builds it: card_id is
    the first review's epoch milliseconds, due at that review, then each review goes
    through the bot's scheduler settings (no learning steps, no fuzz) with `parameters`
    (None: the defaults). Reviews are replayed in time order; with `keep_order=True` in
    the given order, a review earlier than the card's last one counting at the last one's
    time (the bot's rule for an answer graded late).
    """
    steps: list[tuple[int, datetime]] = []
    for item in history:
        if isinstance(item, Sequence) and not isinstance(item, str) and len(item) == 2:
            rating, when = item
            r = parse_review((None, None, rating, when))
        else:
            r = parse_review(item)
        steps.append((r.rating, r.at))
    if not steps:
        raise ValueError("a card needs at least one review")
    if not keep_order:
        steps.sort(key=lambda s: s[1])
    scheduler = _scheduler(parameters)
    first = steps[0][1]
    card = Card(card_id=int(first.timestamp() * 1000), due=first)
    for rating, when in steps:
        if card.last_review is not None and when < card.last_review:
            when = card.last_review
        card, _ = scheduler.review_card(card, Rating(rating), when)
    return dict(card.to_dict())


def reschedule_cards(
    reviews: Iterable[Mapping[str, Any] | Sequence[Any]],
    parameters: Sequence[float] | None = None,
) -> list[dict[str, Any]]:
    """Every card of a review log replayed with `parameters`:
    [{"member_id", "question_id", "reviews", "card": Card.to_dict()}], in first-review order."""
    out = []
    for (member, question), history in _histories(parse_reviews(reviews)).items():
        card = reschedule_card([(r.rating, r.at) for r in history], parameters)
        out.append(
            {"member_id": member, "question_id": question, "reviews": len(history), "card": card}
        )
    return out


# --- a synthetic server -----------------------------------------------------------------

#: Members who forget much faster than FSRS's defaults assume: initial stabilities (w0-w3)
#: about a seventh of the defaults', slower growth of stability on recall (w8 1.2, not 1.87).
FAST_FORGETTING = (0.03, 0.15, 0.3, 1.2, *DEFAULT_PARAMETERS[4:8], 1.2, *DEFAULT_PARAMETERS[9:])
SIM_START = datetime(2026, 1, 5, tzinfo=UTC)


def simulate_server(
    *,
    members: int = 40,
    questions: int = 40,
    days: int = 60,
    true_parameters: Sequence[float] = FAST_FORGETTING,
    seed: int = 0,
    active_share: float = 0.7,
    new_per_day: int = 2,
    max_per_session: int = 15,
    first_right: float = 0.6,
    fast_share: float = 0.2,
) -> list[dict[str, Any]]:
    """A server's review log, its members' memory following `true_parameters`.

    The bot schedules with the default parameters (as it does before any fit). Each day a
    member is active with probability `active_share`, at their own hour (+- noise), and
    answers their open mistakes and due cards (at most `max_per_session`), then up to
    `new_per_day` unseen questions. A first answer is right with probability
    `first_right`; later ones with the true model's retrievability. A right answer is
    fast (Easy) with probability `fast_share`, else Good; a wrong one is Again and stays
    an open mistake, due at the next session, as in the bot.
    """
    rng = random.Random(seed)
    truth, bot = _scheduler(true_parameters), _scheduler(None)
    log: list[dict[str, Any]] = []
    for member in range(1, members + 1):
        hour = rng.uniform(7, 22)
        cards: dict[str, tuple[Card, Card, bool]] = {}  # question: (bot's, true, open mistake)
        unseen = [f"q{q:03d}" for q in range(questions)]
        rng.shuffle(unseen)
        for day in range(days):
            if rng.random() > active_share:
                continue
            when = SIM_START + timedelta(days=day, hours=min(max(rng.gauss(hour, 1.5), 0), 23.9))
            due = [q for q, (c, _, open_) in cards.items() if open_ or c.due <= when]
            due.sort(key=lambda q: (not cards[q][2], cards[q][0].due))
            todo = due[:max_per_session] + [
                unseen.pop() for _ in range(min(new_per_day, len(unseen)))
            ]
            for q in todo:
                when += timedelta(seconds=rng.uniform(20, 90))
                if q in cards:
                    mine, true, _ = cards[q]
                    right = rng.random() < truth.get_card_retrievability(true, when)
                else:
                    mine = true = Card(card_id=0, due=when)
                    right = rng.random() < first_right
                rating = (
                    Rating.Again
                    if not right
                    else Rating.Easy
                    if rng.random() < fast_share
                    else Rating.Good
                )
                mine, _ = bot.review_card(mine, rating, when)
                true, _ = truth.review_card(true, rating, when)
                cards[q] = (mine, true, not right)
                log.append(
                    {
                        "member_id": member,
                        "question_id": q,
                        "rating": int(rating),
                        "reviewed_at": when.isoformat(),
                    }
                )
    log.sort(key=lambda r: (r["reviewed_at"], r["member_id"], r["question_id"]))
    return log


# --- command line -----------------------------------------------------------------------------


def _summary(result: Mapping[str, Any]) -> str:
    c, m = result["counts"], result["metrics"]
    lines = [
        f"decision: {result['decision']} ({result['reason']})",
        f"reviews {c['reviews']} from {c['members']} members on {c['cards']} cards; "
        f"train {c['train_reviews']} (fitted on {c['fit_reviews']}, scored {c['fit_scored']}), "
        f"held out "
        f"{c['held_out_reviews']} (scored {c['held_out_scored']})",
    ]
    for name in ("default", "fitted"):
        if m and m.get(name):
            lines.append(
                f"{name:8s} log-loss {m[name]['log_loss']:.4f}  RMSE(bins) "
                f"{m[name]['rmse_bins']:.4f}"
            )
    s = result["seconds"]
    lines.append(
        f"seconds: fit {s['fit']:.2f}, evaluate {s['evaluate']:.2f}, total {s['total']:.2f}"
    )
    if result["candidate_parameters"]:
        lines.append("parameters: " + ", ".join(f"{w:.4f}" for w in result["candidate_parameters"]))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.memory_fit",
        description="Fit FSRS parameters to a review log (JSON lines) and compare with the defaults.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--input", help="reviews, one JSON object a line ('-': stdin)")
    source.add_argument("--simulate", type=int, metavar="MEMBERS", help="a synthetic server")
    parser.add_argument("--days", type=int, default=60, help="with --simulate")
    parser.add_argument("--default-memory", action="store_true", help="with --simulate")
    parser.add_argument("--epochs", type=int, default=DEFAULT_EPOCHS)
    parser.add_argument("--max-fit-reviews", type=int, default=MAX_FIT_REVIEWS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    if args.simulate is not None:
        truth = DEFAULT_PARAMETERS if args.default_memory else FAST_FORGETTING
        reviews = simulate_server(
            members=args.simulate, days=args.days, true_parameters=truth, seed=args.seed
        )
    else:
        stream = sys.stdin if args.input == "-" else open(args.input, encoding="utf-8")
        with stream:
            reviews = [json.loads(line) for line in stream if line.strip()]
    result = fit_server(
        reviews, epochs=args.epochs, max_fit_reviews=args.max_fit_reviews, seed=args.seed
    )
    print(json.dumps(result, indent=2) if args.json else _summary(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
