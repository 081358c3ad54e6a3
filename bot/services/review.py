"""A member's spaced review: what to review now, and when the next review falls due.

The rules are `bot.core.review`; the cards and their log are `bot.storage.review_cards`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from bot.core.quizbank import QuizBank
from bot.core.review import CardState, Grade, ReviewCounts, Source, due_queue, review_counts
from bot.core.times import utcnow
from bot.storage import Database
from bot.storage.review_cards import cards_of, record_grade


class Reviews:
    """The member's side: what to review now, and when the next review falls due."""

    def __init__(self, db: Database, bank: QuizBank, clock: Callable[[], datetime] = utcnow):
        self.db = db
        self.bank = bank
        self.clock = clock

    async def record_grade(
        self,
        user_id: int,
        question_id: str,
        correct: bool,
        when: datetime,
        source: Source,
        seconds: float | None = None,
    ) -> bool:
        """One graded answer in its own transaction; False when its source was applied before."""
        return await record_grade(
            self.db, Grade(user_id, question_id, correct, when, source, seconds)
        )

    async def _cards(self, user_id: int, guild_id: int | None) -> list[CardState]:
        """The member's cards of questions this server may ask."""
        visible = {q.id for q in self.bank.visible_questions(guild_id)}
        return [c for c in await cards_of(self.db, user_id) if c.question_id in visible]

    async def due_queue(
        self, user_id: int, guild_id: int | None, now: datetime | None = None, limit: int = 10
    ) -> list[str]:
        """Question ids to review now, at most `limit` (`bot.core.review.due_queue`)."""
        cards = await self._cards(user_id, guild_id)
        seen = {c.question_id for c in cards}
        visible = self.bank.visible_questions(guild_id)
        quiz_of = {q.id: self.bank.quiz_of(q.id).id for q in visible}
        started = {quiz_of[q] for q in seen if q in quiz_of}
        unseen = [q.id for q in visible if q.id not in seen]
        return due_queue(cards, unseen, started, quiz_of, now or self.clock(), limit)

    async def counts(
        self, user_id: int, guild_id: int | None, now: datetime | None = None
    ) -> ReviewCounts:
        return review_counts(await self._cards(user_id, guild_id), now or self.clock())

    async def next_due(self, user_id: int, guild_id: int | None = None) -> datetime | None:
        """When the member's next review falls due; None when they have no cards."""
        return (await self.counts(user_id, guild_id)).next_due
