"""Replaying many cards at once (migration 0008 replays a whole server's history).

`bot.learning.memory_rules.replay` applies each review through fsrs's
`Scheduler.review_card`, about 25 µs a review: a million reviews take most of a minute.
Without fuzzing, what a review does to a card is a function of the card's state, step,
stability and difficulty, the whole days since its last review and the rating; its next
due time is the review's time plus an interval that depends on those alone. A server's
cards go through few distinct such steps (every first review of a rating is the same
step, and the later ones repeat across members), so `Replayer` asks fsrs each distinct
step once and looks it up after: the same floats, the same due times, in a few µs a review
(tests/test_learning_replay.py compares it with `replay` on random histories).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from fsrs import Card, Rating, Scheduler, State

from bot.common.times import as_utc
from bot.learning.memory_rules import Replayed, replay, was_due

# (state, step, stability, difficulty) of a card; None for a card never reviewed.
_Memory = tuple[State, int | None, float | None, float | None]
_NEW: _Memory = (State.Learning, 0, None, None)  # what `Card()` starts as


class Replayer:
    """`replay` with each distinct fsrs step computed once (per scheduler)."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self._steps: dict[tuple[Any, ...], tuple[_Memory, timedelta]] = {}

    def _step(
        self, memory: _Memory, days: int | None, rating: int, when: datetime, last: datetime | None
    ) -> tuple[_Memory, timedelta]:
        key = (*memory, days, rating)
        found = self._steps.get(key)
        if found is None:
            state, step, stability, difficulty = memory
            card = Card(
                card_id=0,
                state=state,
                step=step,
                stability=stability,
                difficulty=difficulty,
                due=when,
                last_review=last,
            )
            after, _ = self.scheduler.review_card(card, Rating(rating), when)
            found = (after.state, after.step, after.stability, after.difficulty), after.due - when
            self._steps[key] = found
        return found

    def replay(self, history: Sequence[tuple[int, bool, datetime]]) -> Replayed:
        """What `replay(history, scheduler)` gives."""
        if self.scheduler.enable_fuzzing:  # random intervals: no step repeats
            return replay(history, self.scheduler)
        steps = self._steps
        memory = _NEW
        due: datetime | None = None
        last: datetime | None = None
        open_mistake = False
        last_wrong_at: datetime | None = None
        lapses = 0
        flags = []
        for rating, correct, when in history:
            flags.append(was_due(due, open_mistake, when))
            at = when if when.tzinfo is UTC else as_utc(when)
            if last is None:
                days = None
            elif at < last:  # an answer graded late never moves a card back in time
                at, days = last, 0
            else:
                days = (at - last).days
            found = steps.get((*memory, days, rating))
            if found is None:
                found = self._step(memory, days, rating, at, last)
            memory, interval = found
            last = at
            if not correct:
                lapses += 1
                last_wrong_at = when
            open_mistake = not correct
            due = at + interval
        if last is None or due is None:
            return Replayed()
        state, step, stability, difficulty = memory
        first = history[0][2]
        card = {  # `Card.to_dict()`'s keys, in its order (a test compares them)
            "card_id": int(as_utc(first).timestamp() * 1000),  # as `review_rules.review`
            "state": state.value,
            "step": step,
            "stability": stability,
            "difficulty": difficulty,
            "due": due.isoformat(),
            "last_review": last.isoformat(),
        }
        return Replayed(card, due, last, len(flags), lapses, open_mistake, last_wrong_at, flags)
