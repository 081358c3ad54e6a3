"""Settling a day: close the post, apply every member's streak, store the reveal's summary,
and owe the reveal to the channel, all in one transaction.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import col, select

from bot.services.daily.grading import DailyGrading
from bot.services.outbox import Owed, owe
from bot.services.review import DAILY, Grade, Source, record_grades
from bot.services.streaks import settle_day
from bot.storage import (
    DailyAnswer,
    DailyPost,
)


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


class DailySettling(DailyGrading):
    async def settle(self, post_id: int, now: datetime | None = None) -> RevealSummary:
        """Close a post, update every member's streak, and store the reveal.

        Idempotent and safe across processes: the conditional UPDATE lets exactly one
        caller settle; any later call returns the stored summary unchanged.
        """
        now = now or self.clock()
        self._close(post_id)
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
            source = Source(DAILY, str(post_id))
            n_choices = grading[1] if grading else max((a.choice for a in answers), default=-1) + 1
            distribution = [0] * n_choices
            for answer in answers:
                if answer.choice < n_choices:
                    distribution[answer.choice] += 1
            settled = await settle_day(
                session, post.guild_id, post.day, {a.user_id: a.correct for a in answers}, now
            )
            # Every answer of the day updates its member's review card, once: only the
            # settler that closed the post gets here, in the transaction that closes it.
            await record_grades(
                session,
                [
                    Grade(a.user_id, post.question_id, a.correct, a.answered_at, source)
                    for a in answers
                ],
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
