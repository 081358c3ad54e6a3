"""Spaced review: one `fsrs` card per member and question, updated by every graded answer.

A wrong answer rates Again, a right one Good (right and fast: Easy). The scheduler has no
intra-day learning steps, so FSRS schedules in days; on top of it a wrong answer leaves
an "open mistake" that is due at once, until the member answers that question right.
Every time here is an aware UTC datetime. A graded answer is applied to its card exactly
once: its source (the quiz session or daily post, the member and the question) is
UNIQUE in `review_log`, written in the caller's transaction with the answer itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple, cast

from fsrs import Card, Rating, Scheduler
from fsrs.card import CardDict
from sqlalchemy import bindparam, update
from sqlalchemy import select as sa_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import SQLModel, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.core.quizbank import QuizBank
from bot.storage import Database, ReviewCard, ReviewLog, utcnow

# Day-scale intervals only: minute-long learning steps do not fit a daily rhythm. No fuzz,
# so a member's schedule is reproducible (and testable).
SCHEDULER = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
# A right answer within this many seconds of the question being shown rates Easy.
FAST_ANSWER_S = 8.0
QUIZ, DAILY = "quiz", "daily"
# Graded answers per statement (SQLite binds at most 32766 parameters in one).
CHUNK = 500


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


def rating_for(correct: bool, seconds: float | None = None) -> Rating:
    if not correct:
        return Rating.Again
    if seconds is not None and 0 <= seconds <= FAST_ANSWER_S:
        return Rating.Easy
    return Rating.Good


def _utc(when: datetime) -> datetime:
    if when.tzinfo is None:
        raise ValueError("naive datetimes are refused: pass an aware (UTC) datetime")
    return when.astimezone(UTC)


def review(card: Card | None, rating: Rating, when: datetime) -> Card:
    """The pure rule: `card` (None: never seen) after one review at `when`."""
    when = _utc(when)
    if card is None:
        card = Card(card_id=int(when.timestamp() * 1000), due=when)
    elif card.last_review is not None and when < card.last_review:
        when = card.last_review  # an answer graded late never moves a card back in time
    reviewed, _ = SCHEDULER.review_card(card, rating, when)
    return reviewed


async def record_grades(session: AsyncSession, grades: Sequence[Grade]) -> int:
    """Apply graded answers to their cards, in the caller's transaction (no commit).

    The log rows go in first, with ON CONFLICT DO NOTHING ... RETURNING: only the answers
    whose source was not in the log yet come back, and only those change a card. Two
    transactions grading the same answer at once cannot both win: PostgreSQL makes the
    second insert wait for the first and then do nothing; on SQLite the insert takes the
    database's write lock first. Returns how many answers were applied.
    """
    unique: dict[tuple[str, str, int, str], Grade] = {}
    for grade in grades:
        key = (grade.source.kind, grade.source.ref, grade.user_id, grade.question_id)
        unique.setdefault(key, grade)
    items = list(unique.items())
    applied = 0
    for start in range(0, len(items), CHUNK):  # within SQLite's limit of bound parameters
        applied += await _record_chunk(session, dict(items[start : start + CHUNK]))
    return applied


async def _record_chunk(
    session: AsyncSession, unique: dict[tuple[str, str, int, str], Grade]
) -> int:
    # SQLAlchemy Core executemany statements (compiled once, cached; "insertmanyvalues"
    # batches the inserts): a settle may grade thousands of answers in its transaction.
    conn = await session.connection()
    insert: Any = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
    logs, cards = _LOG.c, _CARD.c
    inserted = await conn.execute(
        insert(_LOG)
        .on_conflict_do_nothing()
        .returning(logs.source, logs.ref, logs.user_id, logs.question_id),
        [
            {
                "source": kind,
                "ref": ref,
                "user_id": user_id,
                "question_id": question_id,
                "rating": int(rating_for(grade.correct, grade.seconds)),
                "correct": grade.correct,
                "reviewed_at": _utc(grade.when),
            }
            for (kind, ref, user_id, question_id), grade in unique.items()
        ],
    )
    won = [unique[(r[0], r[1], r[2], r[3])] for r in inserted.all()]
    if not won:
        return 0
    todo = sorted(won, key=lambda g: _utc(g.when))
    # Create missing cards (a concurrent grader of another answer may be creating the same
    # card: the insert waits for it and does nothing), then lock them to update.
    await conn.execute(
        insert(_CARD).on_conflict_do_nothing(),
        [
            {
                "user_id": g.user_id,
                "question_id": g.question_id,
                "card": {},
                "due": _utc(g.when),
                "last_review": _utc(g.when),
                "reviews": 0,
                "lapses": 0,
                "open_mistake": False,
            }
            for g in {(g.user_id, g.question_id): g for g in todo}.values()
        ],
    )
    rows = await conn.execute(
        sa_select(_CARD)
        .where(
            cards.user_id.in_({g.user_id for g in todo}),
            cards.question_id.in_({g.question_id for g in todo}),
        )
        .with_for_update()
    )
    state = {(r.user_id, r.question_id): r._asdict() for r in rows}
    for grade in todo:
        row = state[(grade.user_id, grade.question_id)]
        rating = rating_for(grade.correct, grade.seconds)
        stored = Card.from_dict(cast(CardDict, row["card"])) if row["reviews"] else None
        card = review(stored, rating, grade.when)
        row["card"] = dict(card.to_dict())
        row["due"] = card.due
        row["last_review"] = card.last_review
        row["reviews"] += 1
        if not grade.correct:
            row["lapses"] += 1
            row["last_wrong_at"] = _utc(grade.when)
        row["open_mistake"] = not grade.correct
    changed = {(g.user_id, g.question_id) for g in todo}
    await conn.execute(
        _UPDATE_CARD, [{f"b_{k}": v for k, v in state[key].items()} for key in changed]
    )
    return len(todo)


_LOG = SQLModel.metadata.tables[ReviewLog.__tablename__]
_CARD = SQLModel.metadata.tables[ReviewCard.__tablename__]
_UPDATE_CARD = (
    update(_CARD)
    .where(
        _CARD.c.user_id == bindparam("b_user_id"),
        _CARD.c.question_id == bindparam("b_question_id"),
    )
    .values(
        {
            name: bindparam(f"b_{name}", type_=_CARD.c[name].type)
            for name in (
                "card",
                "due",
                "last_review",
                "reviews",
                "lapses",
                "open_mistake",
                "last_wrong_at",
            )
        }
    )
)


@dataclass(frozen=True)
class ReviewCounts:
    due_now: int
    due_this_week: int  # within 7 days from now, including those due now
    next_due: datetime | None


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
        async with self.db.session() as session:
            applied = await record_grades(
                session, [Grade(user_id, question_id, correct, when, source, seconds)]
            )
            await session.commit()
        return applied == 1

    async def _cards(self, user_id: int, guild_id: int | None) -> list[ReviewCard]:
        """The member's cards of questions this server may ask."""
        async with self.db.session() as session:
            rows = (
                await session.exec(select(ReviewCard).where(ReviewCard.user_id == user_id))
            ).all()
        visible = {q.id for q in self.bank.visible_questions(guild_id)}
        return [c for c in rows if c.question_id in visible]

    async def due_queue(
        self, user_id: int, guild_id: int | None, now: datetime | None = None, limit: int = 10
    ) -> list[str]:
        """Question ids to review now, at most `limit`, each once, in this order:
        open mistakes (oldest mistake first), due cards (most overdue first), then unseen
        questions, those of quizzes the member has started first, in the quiz's order."""
        now = _utc(now or self.clock())
        cards = await self._cards(user_id, guild_id)
        mistakes = sorted(
            (c for c in cards if c.open_mistake),
            key=lambda c: (c.last_wrong_at or c.last_review, c.question_id),
        )
        due = sorted(
            (c for c in cards if not c.open_mistake and c.due <= now),
            key=lambda c: (c.due, c.question_id),
        )
        seen = {c.question_id for c in cards}
        started = {self.bank.quiz_of(q).id for q in seen}
        unseen = [q for q in self.bank.visible_questions(guild_id) if q.id not in seen]
        unseen.sort(key=lambda q: self.bank.quiz_of(q.id).id not in started)  # stable
        queue = [c.question_id for c in mistakes + due] + [q.id for q in unseen]
        return queue[:limit]

    async def counts(
        self, user_id: int, guild_id: int | None, now: datetime | None = None
    ) -> ReviewCounts:
        now = _utc(now or self.clock())
        whens = [now if c.open_mistake else c.due for c in await self._cards(user_id, guild_id)]
        return ReviewCounts(
            due_now=sum(1 for w in whens if w <= now),
            due_this_week=sum(1 for w in whens if w <= now + timedelta(days=7)),
            next_due=min(whens, default=None),
        )

    async def next_due(self, user_id: int, guild_id: int | None = None) -> datetime | None:
        """When the member's next review falls due; None when they have no cards."""
        return (await self.counts(user_id, guild_id)).next_due


__all__ = [
    "DAILY",
    "FAST_ANSWER_S",
    "QUIZ",
    "SCHEDULER",
    "Grade",
    "ReviewCounts",
    "Reviews",
    "Source",
    "rating_for",
    "record_grades",
    "review",
]
