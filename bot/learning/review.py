"""A member's spaced review: what to review now, and when the next review falls due.

The rules are `bot.learning.review_rules`; the cards and their log are `bot.learning.cards_store`.
A quiz's template has one card per member under its key (`gen:NAME`), whatever instance
was asked: the review asks a new instance of it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from bot.common.times import utcnow
from bot.db.database import Database
from bot.learning.cards_store import cards_of, record_grade
from bot.learning.review_rules import (
    CardState,
    Grade,
    ReviewCounts,
    Source,
    due_queue,
    review_counts,
)
from bot.quizbank import QuizBank
from bot.quizbank.generated import template_key


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

    def _visible(self, guild_id: int | None) -> dict[str, str]:
        """{question id or template key: its quiz id} of what this server may ask, quiz by
        quiz (its written questions, then its templates not named by an earlier quiz)."""
        quiz_of: dict[str, str] = {}
        for quiz in self.bank.visible_quizzes(guild_id):
            quiz_of.update(
                (q.id, quiz.id)
                for q in quiz.questions
                if not self.bank.is_hidden(guild_id, q.id)  # hidden until fixed
            )
            for entry in quiz.generated:
                quiz_of.setdefault(template_key(entry.template), quiz.id)
        return quiz_of

    async def _cards(self, user_id: int, guild_id: int | None) -> list[CardState]:
        """The member's cards of questions this server may ask."""
        visible = self._visible(guild_id)
        return [c for c in await cards_of(self.db, user_id) if c.question_id in visible]

    async def due_queue(
        self,
        user_id: int,
        guild_id: int | None,
        now: datetime | None = None,
        limit: int = 10,
        usable: Callable[[str], bool] | None = None,
    ) -> list[str]:
        """Question ids to review now, at most `limit` (`bot.learning.review_rules.due_queue`), of
        those `usable` accepts (a template only while an instance is ready)."""
        quiz_of = self._visible(guild_id)
        cards = [c for c in await cards_of(self.db, user_id) if c.question_id in quiz_of]
        seen = {c.question_id for c in cards}
        started = {quiz_of[q] for q in seen}
        if usable is not None:
            cards = [c for c in cards if usable(c.question_id)]
        unseen = [q for q in quiz_of if q not in seen and (usable is None or usable(q))]
        return due_queue(cards, unseen, started, quiz_of, now or self.clock(), limit)

    async def counts(
        self, user_id: int, guild_id: int | None, now: datetime | None = None
    ) -> ReviewCounts:
        return review_counts(await self._cards(user_id, guild_id), now or self.clock())

    async def next_due(self, user_id: int, guild_id: int | None = None) -> datetime | None:
        """When the member's next review falls due; None when they have no cards."""
        return (await self.counts(user_id, guild_id)).next_due
