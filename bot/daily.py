"""The daily question service: configuration, claiming posts, grading reactions, reveals.

Used by the Discord cog and the scheduler; knows nothing about Discord. The flow of
one post: `claim_post` (INSERT; the UNIQUE(guild_id, day) row decides who posts,
also across bot processes) -> the cog posts -> `set_message` -> reactions go to
`record_answer` -> at reveal time `settle`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import case, delete, func, update
from sqlalchemy import select as sa_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from bot.errors import StopReason, UserError
from bot.outbox import Owed, owe
from bot.quizbank import QuizBank
from bot.schedule import (
    DailySchedule,
    choose_question,
    format_post_time,
    next_post_at,
    parse_post_time,
    parse_reveal_after,
    parse_timezone,
)
from bot.storage import AnswerWriter, DailyAnswer, DailyPost, Database, GuildDailyConfig, utcnow
from bot.streaks import settle_day

LOCALES = ("id", "en")


def schedule_for(config: GuildDailyConfig) -> DailySchedule:
    return DailySchedule(
        post_time=parse_post_time(config.post_time),
        tz=parse_timezone(config.timezone),
        reveal_after_hours=config.reveal_after_hours,
    )


@dataclass(frozen=True)
class OpenPost:
    """What the reaction handler needs about a posted, unsettled daily question."""

    post_id: int
    guild_id: int
    day: date
    question_id: str
    channel_id: int
    message_id: int
    reveal_at: datetime


class AnswerStatus(StrEnum):
    RECORDED = "recorded"  # the member's first answer, stored
    DUPLICATE = "duplicate"  # the member had answered already: ignored
    CLOSED = "closed"  # revealed/settled, or the question is gone: ignored
    INVALID = "invalid"  # not one of the choices


@dataclass(frozen=True)
class DailyAnswerOutcome:
    status: AnswerStatus
    correct: bool | None = None


@dataclass(frozen=True)
class RevealSummary:
    post_id: int
    guild_id: int
    day: date
    question_id: str
    correct_choice: int | None  # as written; None if the question left the bank
    distribution: list[int]  # answers per choice, as written
    answered: int
    correct: int
    new_bests: list[tuple[int, int]] = field(default_factory=list)  # (user_id, streak)
    milestones: list[tuple[int, int]] = field(default_factory=list)  # (user_id, 7|30|100)
    # Reacted with several letters while the bot was offline, and so not counted.
    unclear: int = 0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["day"] = self.day.isoformat()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RevealSummary:
        return cls(
            **{
                **data,
                "day": date.fromisoformat(data["day"]),
                "new_bests": [tuple(x) for x in data["new_bests"]],
                "milestones": [tuple(x) for x in data["milestones"]],
                "unclear": data.get("unclear", 0),
            }
        )


@dataclass(frozen=True)
class DailyStatus:
    config: GuildDailyConfig
    next_post_at: datetime | None  # None while disabled
    last_post: DailyPost | None


@dataclass(frozen=True)
class DayParticipation:
    day: date
    question_id: str
    answered: int
    correct: int


@dataclass(frozen=True)
class GuildOverview:
    days: list[DayParticipation]  # most recent first
    members: int  # members who ever answered
    answered: int
    correct: int

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.answered if self.answered else None


class DailyService:
    """`service = DailyService(db, bank); await service.start(); ...; await service.close()`."""

    def __init__(self, db: Database, bank: QuizBank, clock: Callable[[], datetime] = utcnow):
        self.db = db
        self.bank = bank
        self.clock = clock
        self.writer = AnswerWriter(db)
        # message id -> open post: a reaction on any other message costs no query.
        self._open: dict[int, OpenPost] = {}
        self._closed: set[int] = set()
        self._daily_channels: set[int] = set()

    async def start(self) -> None:
        await self.writer.start()
        await self.refresh_cache()

    async def close(self) -> None:
        await self.writer.close()

    async def refresh_cache(self) -> None:
        posts = await self.open_posts()
        self._open = {p.message_id: _open_post(p) for p in posts if p.message_id is not None}
        async with self.db.session() as session:
            configs = (await session.exec(select(GuildDailyConfig))).all()
        self._daily_channels = {c.channel_id for c in configs} | {p.channel_id for p in posts}

    # -- configuration ----------------------------------------------------------

    async def configure(
        self,
        guild_id: int,
        channel_id: int,
        time: str,
        timezone: str,
        topic: str | None = None,
        reveal_after: int | None = None,
        locale: str = "id",
    ) -> GuildDailyConfig:
        post_time = parse_post_time(time)
        parse_timezone(timezone)
        parse_reveal_after(reveal_after)
        if not self.bank.visible_questions(guild_id, topic, unknown="daily.unknown_topic"):
            raise UserError("daily.no_questions")
        if locale not in LOCALES:
            raise UserError("daily.bad_locale", value=locale, allowed=", ".join(LOCALES))
        async with self.db.session() as session:
            config = await session.get(GuildDailyConfig, guild_id) or GuildDailyConfig(
                guild_id=guild_id, channel_id=channel_id, post_time="", timezone=""
            )
            config.channel_id = channel_id
            config.post_time = format_post_time(post_time)
            config.timezone = timezone.strip()
            config.topic = topic
            config.reveal_after_hours = reveal_after
            config.locale = locale
            # Reconfiguring is how an admin answers "posting failed": start again.
            config.enabled = True
            config.disabled_reason = None
            config.admin_notified = False
            config.updated_at = self.clock()
            session.add(config)
            await session.commit()
        self._daily_channels.add(channel_id)
        return config

    async def config(self, guild_id: int) -> GuildDailyConfig | None:
        async with self.db.session() as session:
            return await session.get(GuildDailyConfig, guild_id)

    async def status(self, guild_id: int) -> DailyStatus | None:
        config = await self.config(guild_id)
        if config is None:
            return None
        async with self.db.session() as session:
            last = (
                await session.exec(
                    select(DailyPost)
                    .where(DailyPost.guild_id == guild_id)
                    .order_by(col(DailyPost.day).desc())
                    .limit(1)
                )
            ).first()
        upcoming = next_post_at(self.clock(), schedule_for(config)) if config.enabled else None
        return DailyStatus(config, upcoming, last)

    async def disable(self, guild_id: int, reason: StopReason | None = None) -> bool:
        """Stop posting. `reason` is set when Discord refused for good."""
        async with self.db.session() as session:
            config = await session.get(GuildDailyConfig, guild_id)
            if config is None:
                return False
            config.enabled = False
            config.disabled_reason = reason
            config.admin_notified = False
            config.updated_at = self.clock()
            await session.commit()
        return True

    async def mark_admin_notified(self, guild_id: int) -> None:
        async with self.db.session() as session:
            await session.exec(
                update(GuildDailyConfig)
                .where(col(GuildDailyConfig.guild_id) == guild_id)
                .values(admin_notified=True)
            )
            await session.commit()

    async def enabled_configs(self) -> list[GuildDailyConfig]:
        async with self.db.session() as session:
            query = select(GuildDailyConfig).where(col(GuildDailyConfig.enabled).is_(True))
            return list((await session.exec(query)).all())

    # -- posts ------------------------------------------------------------------

    async def pick_question(self, guild_id: int, day: date, topic: str | None) -> str:
        """The day's question: a rotation that avoids repeats until the topic is used up."""
        async with self.db.session() as session:
            history = (
                await session.exec(
                    select(DailyPost.question_id)
                    .where(DailyPost.guild_id == guild_id, DailyPost.day < day)
                    .order_by(col(DailyPost.day))
                )
            ).all()
        # All quizzes this server may see: shipped ones and its own, never another's.
        questions = [q.id for q in self.bank.visible_questions(guild_id, topic)]
        return choose_question(guild_id, day, questions, list(history))

    async def claim_post(
        self, guild_id: int, day: date, question_id: str, channel_id: int, reveal_at: datetime
    ) -> DailyPost | None:
        """Reserve (guild, day); None when that day's post exists already (maybe in another process)."""
        post = DailyPost(
            guild_id=guild_id,
            day=day,
            question_id=question_id,
            channel_id=channel_id,
            reveal_at=reveal_at,
            claimed_at=self.clock(),
        )
        async with self.db.session() as session:
            session.add(post)
            try:
                await session.commit()
            except IntegrityError:
                await session.rollback()
                return None
        return post

    async def release_claim(self, post_id: int) -> None:
        """Give a claim back when posting failed before any message existed (retry later)."""
        async with self.db.session() as session:
            await session.exec(
                delete(DailyPost).where(
                    col(DailyPost.id) == post_id, col(DailyPost.message_id).is_(None)
                )
            )
            await session.commit()

    async def set_message(
        self, post_id: int, message_id: int, posted_at: datetime | None = None
    ) -> DailyPost:
        async with self.db.session() as session:
            post = await session.get(DailyPost, post_id)
            if post is None:
                raise LookupError(f"no daily post {post_id}")
            first = post.message_id is None
            post.message_id = message_id
            post.posted_at = posted_at or self.clock()
            if first:
                # The answer reactions are owed with the message id, in one transaction.
                owe(session, Owed.REACTIONS, post, post.posted_at)
            await session.commit()
        if not post.settled:
            self._open[message_id] = _open_post(post)
            self._daily_channels.add(post.channel_id)
        return post

    async def post(self, post_id: int) -> DailyPost | None:
        async with self.db.session() as session:
            return await session.get(DailyPost, post_id)

    async def open_posts(self) -> list[DailyPost]:
        """Posted and not yet settled."""
        async with self.db.session() as session:
            query = select(DailyPost).where(
                col(DailyPost.settled).is_(False), col(DailyPost.message_id).is_not(None)
            )
            return list((await session.exec(query)).all())

    async def due_reveals(self, now: datetime) -> list[DailyPost]:
        """Unsettled posts whose reveal time has come (claimed-but-unposted ones too)."""
        async with self.db.session() as session:
            query = select(DailyPost).where(
                col(DailyPost.settled).is_(False), col(DailyPost.reveal_at) <= now
            )
            return list((await session.exec(query)).all())

    async def post_for_day(self, guild_id: int, day: date) -> DailyPost | None:
        async with self.db.session() as session:
            query = select(DailyPost).where(DailyPost.guild_id == guild_id, DailyPost.day == day)
            return (await session.exec(query)).first()

    async def last_post_day(self, guild_id: int) -> date | None:
        async with self.db.session() as session:
            query = select(func.max(DailyPost.day)).where(DailyPost.guild_id == guild_id)
            return (await session.exec(query)).one()

    async def post_by_message(
        self, message_id: int, channel_id: int | None = None
    ) -> OpenPost | None:
        """The open post behind a message, for the raw reaction handler.

        Answered from memory for posts this process knows. Pass `channel_id` so a
        reaction outside every daily channel is dismissed without a query; otherwise a
        miss costs one indexed lookup (the post may come from another bot process).
        """
        known = self._open.get(message_id)
        if known is not None:
            return known
        if channel_id is not None and channel_id not in self._daily_channels:
            return None
        async with self.db.session() as session:
            query = select(DailyPost).where(
                DailyPost.message_id == message_id, col(DailyPost.settled).is_(False)
            )
            post = (await session.exec(query)).first()
        if post is None:
            return None
        self._open[message_id] = _open_post(post)
        return self._open[message_id]

    # -- answers ----------------------------------------------------------------

    def _grading(self, question_id: str) -> tuple[int, int] | None:
        """(correct index as written, number of choices), or None if the question is gone."""
        try:
            question = self.bank.question(question_id)
        except KeyError:
            return None
        return question.answer, question.n_choices

    async def record_answer(
        self, post: OpenPost, user_id: int, choice: int, now: datetime | None = None
    ) -> DailyAnswerOutcome:
        """Grade one reaction; only a member's first answer counts (choice as written)."""
        queued = self.record_answer_nowait(post, user_id, choice, now)
        if isinstance(queued, DailyAnswerOutcome):
            return queued
        correct, written = queued
        if not await written:
            return DailyAnswerOutcome(AnswerStatus.DUPLICATE)
        return DailyAnswerOutcome(AnswerStatus.RECORDED, correct)

    def open_post_in_memory(self, message_id: int) -> OpenPost | None:
        """The open post of a message if this process knows it (no query)."""
        return self._open.get(message_id)

    def record_answer_nowait(
        self, post: OpenPost, user_id: int, choice: int, now: datetime | None = None
    ) -> DailyAnswerOutcome | tuple[bool, asyncio.Future[bool]]:
        """Grade and queue without awaiting the commit (the gateway hot path).

        Returns the outcome when nothing is written (closed, invalid), else whether the
        answer is correct and the writer's future: True once committed as the member's
        first answer, False for a duplicate.
        """
        now = now or self.clock()
        grading = self._grading(post.question_id)
        if post.post_id in self._closed or now >= post.reveal_at or grading is None:
            return DailyAnswerOutcome(AnswerStatus.CLOSED)
        answer, n_choices = grading
        if not 0 <= choice < n_choices:
            return DailyAnswerOutcome(AnswerStatus.INVALID)
        correct = choice == answer
        return correct, self.writer.enqueue(post.post_id, user_id, choice, correct, now)

    async def recover_answers(
        self,
        post: OpenPost | DailyPost,
        reactions: Sequence[tuple[int, int]],
        now: datetime | None = None,
    ) -> int:
        """Store reactions made while the bot was away, in reaction order; idempotent.

        Unlike live answers this ignores the reveal time (the reactions came earlier),
        but a settled post is never changed. Returns how many answers were new.
        """
        post_id = post.post_id if isinstance(post, OpenPost) else post.id
        assert post_id is not None
        grading = self._grading(post.question_id)
        if post_id in self._closed or grading is None or getattr(post, "settled", False):
            return 0
        answer, n_choices = grading
        now = now or self.clock()
        valid = [(user, choice) for user, choice in reactions if 0 <= choice < n_choices]
        # Submitted together, they reach the writer's queue (and the INSERT) in order.
        results = await asyncio.gather(
            *(
                self.writer.submit(post_id, user, choice, choice == answer, now)
                for user, choice in valid
            )
        )
        return sum(results)

    async def note_unclear(self, post_id: int, users: Sequence[int]) -> None:
        """Remember members whose offline reactions named several letters (not counted)."""
        if not users:
            return
        async with self.db.session() as session:
            post = await session.get(DailyPost, post_id)
            if post is None or post.settled:
                return
            post.unclear_users = sorted(set(post.unclear_users or ()) | set(users))
            await session.commit()

    # -- reveal -----------------------------------------------------------------

    async def settle(self, post_id: int, now: datetime | None = None) -> RevealSummary:
        """Close a post, update every member's streak, and store the reveal.

        Idempotent and safe across processes: the conditional UPDATE lets exactly one
        caller settle; any later call returns the stored summary unchanged.
        """
        now = now or self.clock()
        self._closed.add(post_id)
        # Answers graded before the close may still sit in the writer's queue: they
        # must count in this reveal and in the streaks it settles.
        await self.writer.flush()
        async with self.db.session() as session:
            claimed = await session.exec(
                update(DailyPost)
                .where(col(DailyPost.id) == post_id, col(DailyPost.settled).is_(False))
                .values(settled=True)
            )
            post = await session.get(DailyPost, post_id)
            if post is None:
                raise LookupError(f"no daily post {post_id}")
            if claimed.rowcount == 0 and post.summary is not None:
                self._forget(post)
                return RevealSummary.from_json(post.summary)
            answers = (
                await session.exec(select(DailyAnswer).where(DailyAnswer.post_id == post_id))
            ).all()
            grading = self._grading(post.question_id)
            n_choices = grading[1] if grading else max((a.choice for a in answers), default=-1) + 1
            distribution = [0] * n_choices
            for answer in answers:
                if answer.choice < n_choices:
                    distribution[answer.choice] += 1
            settled = await settle_day(
                session, post.guild_id, post.day, {a.user_id: a.correct for a in answers}, now
            )
            summary = RevealSummary(
                post_id=post_id,
                guild_id=post.guild_id,
                day=post.day,
                question_id=post.question_id,
                correct_choice=grading[0] if grading else None,
                distribution=distribution,
                answered=len(answers),
                correct=sum(1 for a in answers if a.correct),
                new_bests=sorted(
                    (m.user_id, m.update.state.current) for m in settled if m.update.new_best
                ),
                milestones=sorted(
                    (m.user_id, m.update.milestone) for m in settled if m.update.milestone
                ),
                unclear=len(set(post.unclear_users or ()) - {a.user_id for a in answers}),
            )
            post.summary = summary.to_json()
            if post.message_id is not None:
                # The reveal is owed with the settled day, in one transaction.
                owe(session, Owed.REVEAL, post, now)
            await session.commit()
        self._forget(post)
        return summary

    def _forget(self, post: DailyPost) -> None:
        if post.message_id is not None:
            self._open.pop(post.message_id, None)

    # -- admin ------------------------------------------------------------------

    async def guild_overview(self, guild_id: int, days: int = 14) -> GuildOverview:
        answers = DailyAnswer.__table__  # type: ignore[attr-defined]
        posts = DailyPost.__table__  # type: ignore[attr-defined]
        per_day = (
            sa_select(
                posts.c.day,
                posts.c.question_id,
                func.count(answers.c.user_id),
                func.coalesce(func.sum(case((answers.c.correct, 1), else_=0)), 0),
            )
            .select_from(posts.outerjoin(answers, answers.c.post_id == posts.c.id))
            .where(posts.c.guild_id == guild_id)
            .group_by(posts.c.id)
            .order_by(posts.c.day.desc())
            .limit(days)
        )
        totals = (
            sa_select(
                func.count(func.distinct(answers.c.user_id)),
                func.count(),
                func.coalesce(func.sum(case((answers.c.correct, 1), else_=0)), 0),
            )
            .select_from(answers.join(posts, answers.c.post_id == posts.c.id))
            .where(posts.c.guild_id == guild_id)
        )
        async with self.db.engine.connect() as conn:
            rows = (await conn.execute(per_day)).all()
            members, answered, correct = (await conn.execute(totals)).one()
        return GuildOverview(
            days=[DayParticipation(day, qid, n, c) for day, qid, n, c in rows],
            members=members,
            answered=answered,
            correct=correct,
        )


def _open_post(post: DailyPost) -> OpenPost:
    assert post.id is not None and post.message_id is not None
    return OpenPost(
        post.id,
        post.guild_id,
        post.day,
        post.question_id,
        post.channel_id,
        post.message_id,
        post.reveal_at,
    )
