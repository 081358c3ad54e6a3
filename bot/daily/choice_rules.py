"""Which question a server gets today: the one its active members are weakest at.

The rule (`choose`):
1. The pool is the server's visible questions (custom quizzes only in their own server).
   Questions posted in that server in the last K days (`repeat_after_days`, default 30)
   are left out; K is capped at the pool's size minus one, so a daily rhythm always has
   a question left.
2. The server's active members are those who answered one of its daily questions in
   the last `ACTIVE_DAYS` days. For each remaining question their recall is the mean
   fsrs retrievability of their cards of it now, or, where none of them has a card, their
   accuracy on it in this server's daily answers.
3. Order: questions recalled below the server's target retention (`/daily setup
   retention:`, default `TARGET_RECALL` 0.9; recall by the server's memory model) first,
   weakest first; then unseen questions (no card and no answer of an active member);
   then the well-recalled ones, weakest first. Ties (same tier and recall) are broken by
   the seeded rotation (`bot.common.schedule.choose_question`), deterministic per (server, day).

The reason (`Reason.to_dict()`) is stored on the post, and `/daily status` shows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from typing import Any

from bot.common.errors import UserError
from bot.common.schedule import choose_question
from bot.learning.recall_rules import Signal
from bot.learning.review_rules import SCHEDULER

REPEAT_AFTER_DEFAULT = 30
REPEAT_AFTER_MIN, REPEAT_AFTER_MAX = 1, 365
# Below this recall the class has forgotten more than FSRS schedules for.
TARGET_RECALL = SCHEDULER.desired_retention
# Reason codes.
WEAK, NEW, KNOWN, ROTATION = "weak", "new", "known", "rotation"


@dataclass(frozen=True)
class Reason:
    rule: str  # weak | new | known | rotation
    members: int  # active members
    window: int  # days without a repeat (K after the cap)
    candidates: int  # questions not posted within the window
    tied: int  # candidates with the same rank, decided by the rotation
    basis: str | None = None  # cards | answers (weak and known)
    recall: float | None = None
    n: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reason:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


@dataclass(frozen=True)
class Choice:
    question_id: str
    reason: Reason


def parse_repeat_after(days: int | None) -> int | None:
    """Whole days 1..365, or None (keep the current setting)."""
    if days is None:
        return None
    if isinstance(days, bool) or not isinstance(days, int):
        raise UserError(
            "daily.bad_repeat_after", value=days, min=REPEAT_AFTER_MIN, max=REPEAT_AFTER_MAX
        )
    if not REPEAT_AFTER_MIN <= days <= REPEAT_AFTER_MAX:
        raise UserError(
            "daily.bad_repeat_after", value=days, min=REPEAT_AFTER_MIN, max=REPEAT_AFTER_MAX
        )
    return days


def window_days(repeat_after: int, pool_size: int) -> int:
    """K capped so that at least one question of the pool is always left."""
    return max(0, min(repeat_after, pool_size - 1))


def _rank(signal: Signal | None, target: float = TARGET_RECALL) -> tuple[int, float]:
    if signal is None:
        return (1, 0.0)
    recall = round(signal.recall, 6)  # equal cards give equal recall, whatever the float noise
    return (0 if recall < target else 2, recall)


def choose(
    guild_id: int,
    day: date,
    questions: Sequence[str],
    history: Sequence[tuple[date, str]],
    signals: Mapping[str, Signal],
    repeat_after: int,
    members: int,
    target: float = TARGET_RECALL,
) -> Choice:
    """The day's question. `history`: the server's earlier posts (day, question), oldest
    first; `target`: the server's target retention."""
    pool = sorted(set(questions))
    if not pool:
        raise UserError("daily.no_questions")
    window = window_days(repeat_after, len(pool))
    recent = recent_questions(history, day, window)
    candidates = [q for q in pool if q not in recent]
    best = min(_rank(signals.get(q), target) for q in candidates)
    tied = [q for q in candidates if _rank(signals.get(q), target) == best]
    picked = choose_question(guild_id, day, tied, [q for d, q in history if d < day])
    signal = signals.get(picked)
    rule = ROTATION if members == 0 else (WEAK, NEW, KNOWN)[best[0]]
    reason = Reason(
        rule=rule,
        members=members,
        window=window,
        candidates=len(candidates),
        tied=len(tied),
        basis=signal.basis if signal else None,
        recall=round(signal.recall, 4) if signal else None,
        n=signal.n if signal else 0,
    )
    return Choice(picked, reason)


def recent_questions(history: Sequence[tuple[date, str]], day: date, window: int) -> set[str]:
    since = day - timedelta(days=window)
    return {q for d, q in history if since <= d < day}
