"""Personal quiz sessions driven by buttons; state lives in the database.

A session survives a bot restart: the button custom_ids carry the session id and
everything else is read back from the `quiz_session` row. A generated question (a quiz's
template) is taken from the instance pool when the session starts and stored in the row,
so the instance is fixed for the session and needs no worker to be shown or graded.

Clicks are idempotent: every change is a conditional UPDATE on the state the click was
made against, so a double click (or two processes handling one click) changes things once.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.common.errors import UserError
from bot.common.times import utcnow
from bot.db.database import Database
from bot.db.tables.quiz import QuizSession
from bot.demos.generated import InstancePool
from bot.learning.review import Reviews
from bot.quiz import sessions_store
from bot.quiz.sessions_store import ACTIVE, FINISHED, STOPPED
from bot.quizbank import Question, QuizBank, display_order
from bot.quizbank.bank import Item
from bot.quizbank.generated import GeneratedQuestion, generated_question, template_of

DEFAULT_MAX_AGE = timedelta(hours=2)
MAX_REVIEW = 50  # questions in one review session


@dataclass(frozen=True)
class NothingDue:
    """A review with nothing to ask: when the next review falls due (None: no cards)."""

    next_due: datetime | None


@dataclass(frozen=True)
class QuizAnswerOutcome:
    correct: bool
    chosen_position: int  # display positions (0-based) as the buttons show them
    correct_position: int
    explanation: str  # in the session's locale
    question: Question
    number: int  # 1-based question number
    total: int
    is_last: bool
    order: list[int]  # display position -> index of the choice as written
    locale: str


@dataclass(frozen=True)
class QuizStep:
    """The question to show now."""

    session: QuizSession
    question: Question
    order: list[int]  # display position -> index of the choice as written
    number: int  # 1-based
    total: int


@dataclass(frozen=True)
class QuizSummary:
    session_id: str
    score: int
    total: int  # questions in the session
    answered: int
    elapsed: timedelta
    status: str


class QuizSessions:
    def __init__(
        self,
        db: Database,
        bank: QuizBank,
        clock: Callable[[], datetime] = utcnow,
        max_age: timedelta = DEFAULT_MAX_AGE,
        pool: InstancePool | None = None,
    ):
        self.db = db
        self.bank = bank
        self.clock = clock
        self.max_age = max_age  # idle time after which a session counts as expired
        self.reviews = Reviews(db, bank, clock)
        self.pool = pool  # None: written questions only

    def _ready(self, template: str) -> bool:
        return self.pool is not None and self.pool.ready(template)

    def _askable(self, question_id: str) -> bool:
        """A written question, or a template with an instance ready now."""
        template = template_of(question_id)
        return template is None or self._ready(template)

    def _ask(self, item: Item) -> Question | None:
        """The question to store: a written one, or a ready instance of a template (None
        if there is none after all). Synchronous from the pick on: nothing else can take
        the instance `pick_items` saw."""
        if isinstance(item, Question):
            return item
        instance = self.pool.take(item.template) if self.pool is not None else None
        return None if instance is None else generated_question(instance, item)

    async def start(
        self,
        user_id: int,
        guild_id: int | None,
        quiz_id: str | None,
        count: int | None,
        locale: str,
        seed: int | None = None,
    ) -> QuizSession:
        """A new session of `count` random questions (all when None); stops the user's old one."""
        # Shipped quizzes and this server's own; never another server's uploads.
        rng = random.Random(seed)
        items = self.bank.pick_items(
            guild_id, quiz_id, count, rng, generated=self._ready if self.pool else None
        )
        picked = [q for q in map(self._ask, items) if q is not None]
        return await self._begin(user_id, guild_id, quiz_id, locale, picked, rng)

    async def start_review(
        self,
        user_id: int,
        guild_id: int | None,
        count: int,
        locale: str,
        seed: int | None = None,
    ) -> QuizSession | NothingDue:
        """A session of the member's review queue (`bot.learning.review`), at most `count` questions,
        each once; or, with nothing due and nothing unseen, when the next review falls due."""
        if isinstance(count, bool) or not 1 <= count <= MAX_REVIEW:
            raise UserError("quiz.bad_count", count=count, max=MAX_REVIEW)
        queue = await self.reviews.due_queue(
            user_id, guild_id, self.clock(), count, usable=self._askable
        )
        entries = {e.template: e for e in self.bank.visible_generated(guild_id)}
        items: list[Item] = [
            self.bank.question(qid) if (name := template_of(qid)) is None else entries[name]
            for qid in queue
        ]
        picked = [q for q in map(self._ask, items) if q is not None]
        if not picked:
            return NothingDue(await self.reviews.next_due(user_id, guild_id))
        return await self._begin(user_id, guild_id, None, locale, picked, random.Random(seed))

    async def _begin(
        self,
        user_id: int,
        guild_id: int | None,
        quiz_id: str | None,
        locale: str,
        picked: Sequence[Question],
        rng: random.Random,
    ) -> QuizSession:
        now = self.clock()
        session_row = QuizSession(
            id=secrets.token_urlsafe(8),
            user_id=user_id,
            guild_id=guild_id,
            quiz_id=quiz_id,
            locale=locale,
            question_ids=[q.id for q in picked],
            choice_orders=[display_order(q, rng) for q in picked],
            instances={
                str(i): q.stored() for i, q in enumerate(picked) if isinstance(q, GeneratedQuestion)
            }
            or None,
            started_at=now,
            last_activity_at=now,
        )
        return await sessions_store.begin(self.db, session_row, now)

    def current_question(self, quiz: QuizSession) -> tuple[Question, list[int]]:
        """The question at the session's position and its display order of choices."""
        order = list(quiz.choice_orders[quiz.position])
        stored = (quiz.instances or {}).get(str(quiz.position))
        if stored is not None:  # a generated question, fixed when the session started
            return GeneratedQuestion.model_validate(stored), order
        return self.bank.question(quiz.question_ids[quiz.position]), order

    async def _usable(self, session_id: str, user_id: int) -> QuizSession:
        quiz = await sessions_store.get(self.db, session_id)
        if quiz is None:
            raise UserError("quiz.expired")
        if quiz.user_id != user_id:
            raise UserError("quiz.not_yours")
        if quiz.status == ACTIVE and self.clock() - quiz.last_activity_at > self.max_age:
            await sessions_store.expire_idle(self.db, self.clock(), self.max_age)
            raise UserError("quiz.expired")
        return quiz

    async def answer(
        self,
        session_id: str,
        user_id: int,
        display_position: int,
        question_number: int | None = None,
    ) -> QuizAnswerOutcome:
        """Grade the click on button `display_position`; a repeat returns the first outcome.

        Pass `question_number` (1-based, from the button's custom_id) so a click on an
        older question's buttons is refused instead of answering the current one.
        """
        quiz = await self._usable(session_id, user_id)
        if quiz.status != ACTIVE:
            raise UserError("quiz.expired")
        if question_number is not None and question_number != quiz.position + 1:
            raise UserError("quiz.old_question", number=question_number)
        try:
            question, order = self.current_question(quiz)
        except KeyError:  # the quiz file changed under a running session
            raise UserError("quiz.expired") from None
        if not quiz.answered_current:
            if not 0 <= display_position < len(order):
                raise UserError("quiz.bad_choice", position=display_position + 1, max=len(order))
            correct = order[display_position] == question.answer
            now = self.clock()
            won = await sessions_store.record_answer(
                self.db, quiz, display_position, question.id, order[display_position], correct, now
            )
            if not won:  # a concurrent click got there first: report its outcome
                return await self.answer(session_id, user_id, display_position, quiz.position + 1)
            chosen = display_position
        else:
            assert quiz.chosen is not None
            chosen = quiz.chosen
        return QuizAnswerOutcome(
            correct=order[chosen] == question.answer,
            chosen_position=chosen,
            correct_position=order.index(question.answer),
            explanation=question.text("explanation", quiz.locale),
            question=question,
            number=quiz.position + 1,
            total=len(quiz.question_ids),
            is_last=quiz.position + 1 == len(quiz.question_ids),
            order=order,
            locale=quiz.locale,
        )

    async def next(self, session_id: str, user_id: int) -> QuizStep | QuizSummary:
        """Advance after an answer; the final summary after the last question.

        Idempotent: before the current question is answered it is returned again (so
        a double click on "next" does not skip one), and a finished session keeps
        returning its summary.
        """
        quiz = await self._usable(session_id, user_id)
        if quiz.status in (FINISHED, STOPPED):
            return self._summary(quiz)
        if quiz.status != ACTIVE:
            raise UserError("quiz.expired")
        if quiz.answered_current:
            await sessions_store.advance(self.db, quiz, self.clock())
            # Whether this call or a concurrent one advanced it, report the stored state.
            return await self.next(session_id, user_id)
        try:
            question, order = self.current_question(quiz)
        except KeyError:  # the quiz was removed or changed under a running session
            raise UserError("quiz.expired") from None
        return QuizStep(quiz, question, order, quiz.position + 1, len(quiz.question_ids))

    async def stop(self, user_id: int) -> QuizSummary | None:
        """Stop the user's active session; None when there was none."""
        quiz = await sessions_store.active_for(self.db, user_id)
        if quiz is None:
            return None
        await sessions_store.stop(self.db, quiz.id, self.clock())
        stopped = await sessions_store.get(self.db, quiz.id)
        assert stopped is not None
        return self._summary(stopped)

    def _summary(self, quiz: QuizSession) -> QuizSummary:
        end = quiz.finished_at or self.clock()
        answered = quiz.position + int(quiz.answered_current)
        return QuizSummary(
            quiz.id,
            quiz.score,
            len(quiz.question_ids),
            answered,
            end - quiz.started_at,
            quiz.status,
        )
