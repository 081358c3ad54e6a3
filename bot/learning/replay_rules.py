"""Replaying many cards at once (migration 0008 replays a whole server's history).

`bot.learning.memory_rules.replay` applies each review through fsrs's
`Scheduler.review_card`, about 25 µs a review: a million reviews take most of a minute.
Without fuzzing, what a review does to a card is a function of the card's state, step,
stability and difficulty, the whole days since its last review and the rating; its next
due time is the review's time plus an interval that depends on those alone. A server's
cards go through few distinct such steps (every first review of a rating is the same
step, and the later ones repeat across members), so `Replayer` asks fsrs each distinct
step once and looks it up after: the same floats, the same due times, in a few µs a review
(tests/learning/test_learning_replay.py compares it with `replay` on random histories).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from itertools import groupby
from operator import itemgetter
from typing import Any

import orjson
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


@dataclass
class Chunk:
    """A chunk of members replayed: rows for the driver (`review_card`, `member_activity`)."""

    cards: list[tuple[Any, ...]]
    days: list[tuple[Any, ...]]
    reviews: int


class ChunkReplayer:
    """Log rows (user, question, rating, correct, reviewed_at, guild, id; in card and time
    order) to the cards to write and the days to count, as migration 0008 writes them:
    a card is written when a row above id `top` is in its log; a day is the review's
    calendar day in its server's timezone. `parse` and `stored` convert the driver's
    timestamps."""

    def __init__(
        self,
        replayer: Replayer,
        zones: dict[int, tzinfo],
        top: int,
        parse: Callable[[Any], datetime],
        stored: Callable[[datetime], Any],
        dates_as_text: bool,
    ) -> None:
        self.replayer = replayer
        self.zones = zones
        self.top = top
        self.parse = parse
        self.stored = stored
        self.dates_as_text = dates_as_text

    def replay(self, rows: Sequence[Sequence[Any]]) -> Chunk:
        parse, zones, top, stored = self.parse, self.zones, self.top, self.stored
        days: dict[tuple[int, date], list[int]] = {}
        cards = []
        reviews = 0
        for (user_id, question_id), group in groupby(rows, key=itemgetter(0, 1)):
            history = list(group)
            times = [parse(r[4]) for r in history]
            card = self.replayer.replay(
                [(r[2], bool(r[3]), at) for r, at in zip(history, times, strict=True)]
            )
            for r, at, due in zip(history, times, card.due_flags, strict=True):
                zone = zones.get(r[5], UTC)
                key = (user_id, (at if zone is UTC else at.astimezone(zone)).date())
                counts = days.get(key)
                if counts is None:
                    counts = days[key] = [0, 0, 0, 0]
                right = bool(r[3])
                counts[0] += 1
                counts[1] += right
                counts[2] += due
                counts[3] += due and right
            reviews += len(history)
            if any(r[6] > top for r in history):
                assert card.due is not None and card.last_review is not None
                cards.append(
                    (
                        user_id,
                        question_id,
                        orjson.dumps(card.card).decode(),
                        stored(card.due),
                        stored(card.last_review),
                        card.reviews,
                        card.lapses,
                        card.open_mistake,
                        None if card.last_wrong_at is None else stored(card.last_wrong_at),
                    )
                )
        as_text = self.dates_as_text
        return Chunk(
            cards,
            [
                (u, d.isoformat() if as_text else d, c[0], c[1], c[2], c[3])
                for (u, d), c in days.items()
            ],
            reviews,
        )
