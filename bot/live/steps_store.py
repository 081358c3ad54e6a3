"""Live rounds in the database, the driver's part: its lease on a round, the round's
state as one snapshot, and each step (open the next question, record its message, close
it, end the round).

Every time that matters is the database's (`db_now`), read in the transaction that
decides, and every step is a conditional UPDATE on the state it was decided against,
so two processes (or a process and its restarted self) cannot both make it. Closing a
question applies its answers to the members' review cards and owes its reveal (and, at
the round's end, the scoreboard) in the same transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, exists, func, or_, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.clock import db_now
from bot.db.database import Database
from bot.db.tables.live import LiveAnswer, LivePlayer, LiveQuestion, LiveRound
from bot.learning.cards_store import record_grades
from bot.learning.memory_store import rules_on
from bot.learning.review_rules import Grade
from bot.live.rules import ACTIVE, LEASE, EndReason, QuestionStatus, Status, end_reason
from bot.live.store import SCOREBOARD, source_of
from bot.outbox.rules import Owed
from bot.outbox.store import owe_round, release_round_claims

_ACTIVE = [s.value for s in ACTIVE]


# -- the driver's lease ---------------------------------------------------------------


async def claimable(db: Database, limit: int = 200) -> list[tuple[int, int]]:
    """(round id, guild id) of running rounds nobody holds (or whose holder's lease lapsed)."""
    async with db.session() as session:
        now = await db_now(session)
        query = (
            select(LiveRound.id, LiveRound.guild_id)
            .where(
                col(LiveRound.status).in_(_ACTIVE),
                or_(col(LiveRound.claimed_until).is_(None), col(LiveRound.claimed_until) < now),
            )
            .order_by(col(LiveRound.id))
            .limit(limit)
        )
        return [(int(i), int(g)) for i, g in (await session.exec(query)).all() if i is not None]


async def next_lapse(db: Database, owner: str) -> float | None:
    """Seconds until the first lease another process holds on a running round lapses
    (None when there is none): the sweep looks again then, so a round whose holder died
    is taken over as soon as its lease is out."""
    async with db.session() as session:
        now = await db_now(session)
        query = select(func.min(col(LiveRound.claimed_until))).where(
            col(LiveRound.status).in_(_ACTIVE),
            col(LiveRound.claimed_until) >= now,
            col(LiveRound.claimed_by) != owner,
        )
        until = (await session.exec(query)).one()
        return None if until is None else (until - now).total_seconds()


async def renew(db: Database, owner: str, round_ids: list[int], lease: timedelta) -> set[int]:
    """Renew `owner`'s leases on these rounds in one transaction; the rounds it still
    holds (another process took one whose lease had lapsed)."""
    async with db.session() as session:
        now = await db_now(session)
        mine = (col(LiveRound.id).in_(round_ids), col(LiveRound.claimed_by) == owner)
        await session.exec(update(LiveRound).where(*mine).values(claimed_until=now + lease))
        held = (await session.exec(select(LiveRound.id).where(*mine))).all()
        await session.commit()
        return {int(i) for i in held if i is not None}


async def claim(db: Database, round_id: int, owner: str, lease: timedelta = LEASE) -> bool:
    """Take the lease on a running round nobody holds, or renew one's own (also once the
    round ended: its scoreboard is still to send); False when another process holds it.
    A round taken from a process whose lease lapsed (it died): what that process was
    sending for the round is released too."""
    async with db.session() as session:
        now = await db_now(session)
        before = await session.exec(select(LiveRound.claimed_by).where(LiveRound.id == round_id))
        holder = before.first()
        taken = await session.exec(
            update(LiveRound)
            .where(
                col(LiveRound.id) == round_id,
                or_(
                    col(LiveRound.claimed_by) == owner,
                    and_(
                        col(LiveRound.status).in_(_ACTIVE),
                        or_(
                            col(LiveRound.claimed_until).is_(None),
                            col(LiveRound.claimed_until) < now,
                        ),
                    ),
                ),
            )
            .values(claimed_by=owner, claimed_until=now + lease)
        )
        if taken.rowcount and holder is not None and holder != owner:
            await release_round_claims(session, round_id, holder)
        await session.commit()
        return bool(taken.rowcount)


async def release(db: Database, round_id: int, owner: str) -> None:
    async with db.session() as session:
        await session.exec(
            update(LiveRound)
            .where(col(LiveRound.id) == round_id, col(LiveRound.claimed_by) == owner)
            .values(claimed_by=None, claimed_until=None)
        )
        await session.commit()


# -- the driver's state and steps -----------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    round: LiveRound
    question: LiveQuestion | None  # the current one
    joined: int  # players who had joined when the current question opened
    waiting: int  # players (joined at any time) without an answer to it yet
    now: datetime  # the database's


async def snapshot(db: Database, round_id: int) -> Snapshot | None:
    async with db.session() as session:
        now = await db_now(session)
        row = await session.get(LiveRound, round_id)
        if row is None:
            return None
        question = None
        joined = waiting = 0
        if row.position >= 0:
            question = await session.get(LiveQuestion, (round_id, row.position + 1))
        if question is not None and question.opened_at is not None:
            players = select(func.count()).where(col(LivePlayer.round_id) == round_id)
            before = players.where(col(LivePlayer.joined_at) <= question.opened_at)
            joined = int((await session.exec(before)).one())
            answered = exists().where(
                col(LiveAnswer.round_id) == round_id,
                col(LiveAnswer.number) == question.number,
                col(LiveAnswer.user_id) == col(LivePlayer.user_id),
            )
            waiting = int((await session.exec(players.where(~answered))).one())
        return Snapshot(row, question, joined, waiting, now)


async def open_next(db: Database, round_id: int, position: int) -> LiveQuestion | None:
    """Move from the lobby or a pause at `position` to the next question (its message is
    still to be sent, so its clock has not started); None if that happened already."""
    async with db.session() as session:
        now = await db_now(session)
        moved = await session.exec(
            update(LiveRound)
            .where(
                col(LiveRound.id) == round_id,
                col(LiveRound.position) == position,
                col(LiveRound.status).in_([Status.LOBBY, Status.PAUSE]),
            )
            .values(
                status=Status.QUESTION,
                position=position + 1,
                next_at=None,
                started_at=func.coalesce(col(LiveRound.started_at), now),
            )
        )
        if not moved.rowcount:
            await session.rollback()
            return None
        row = await session.get(LiveRound, round_id)
        assert row is not None
        question = LiveQuestion(
            round_id=round_id,
            number=position + 2,
            question_id=row.question_ids[position + 1],
            status=QuestionStatus.POSTING,
        )
        session.add(question)
        await session.commit()
        return question


async def arm(db: Database, round_id: int, number: int, seconds: int) -> LiveQuestion | None:
    """Start question `number`'s clock now, just before its message is sent (answers are
    taken from then on, so a press on the fresh message is never early). Armed again
    while its message is not recorded (a crash in between): its clock restarts."""
    async with db.session() as session:
        now = await db_now(session)
        await session.exec(
            update(LiveQuestion)
            .where(
                col(LiveQuestion.round_id) == round_id,
                col(LiveQuestion.number) == number,
                col(LiveQuestion.status) != QuestionStatus.CLOSED,
                col(LiveQuestion.message_id).is_(None),
            )
            .values(
                status=QuestionStatus.OPEN,
                opened_at=now,
                closes_at=now + timedelta(seconds=seconds),
            )
        )
        await session.commit()
        return await session.get(LiveQuestion, (round_id, number))


async def lobby_clock(db: Database, seconds: int) -> datetime:
    """When a lobby opened now starts by itself (shown in it before it is sent)."""
    async with db.session() as session:
        return await db_now(session) + timedelta(seconds=seconds)


async def posted(
    db: Database,
    round_id: int,
    number: int,
    message_id: int,
    seconds: int,
    max_shift: timedelta,
) -> LiveQuestion | None:
    """The question's message is out. Its clock runs from when it was armed, or from now
    if sending took longer than `max_shift` (rate limits): nobody could see it before."""
    async with db.session() as session:
        now = await db_now(session)
        question = await session.get(LiveQuestion, (round_id, number))
        if question is None or question.opened_at is None:
            return question
        values: dict[str, object] = {"message_id": message_id}
        if now - question.opened_at > max_shift:
            values.update(opened_at=now, closes_at=now + timedelta(seconds=seconds))
        await session.exec(
            update(LiveQuestion)
            .where(
                col(LiveQuestion.round_id) == round_id,
                col(LiveQuestion.number) == number,
                col(LiveQuestion.message_id).is_(None),
            )
            .values(**values)
        )
        await session.commit()
        await session.refresh(question)
        return question


async def _close_in(
    session: AsyncSession, row: LiveRound, number: int, now: datetime
) -> list[LiveAnswer] | None:
    """Close question `number` and apply its answers to the members' review cards, in the
    caller's transaction; None when it was closed already."""
    assert row.id is not None
    closed = await session.exec(
        update(LiveQuestion)
        .where(
            col(LiveQuestion.round_id) == row.id,
            col(LiveQuestion.number) == number,
            col(LiveQuestion.status) != QuestionStatus.CLOSED,
        )
        .values(status=QuestionStatus.CLOSED, closed_at=now)
    )
    if not closed.rowcount:
        return None
    answers = list(
        (
            await session.exec(
                select(LiveAnswer).where(
                    col(LiveAnswer.round_id) == row.id, col(LiveAnswer.number) == number
                )
            )
        ).all()
    )
    question_id = row.question_ids[number - 1]
    # With the rules of the round's server (Learning II: its memory model and retention).
    rules = await rules_on(await session.connection(), row.guild_id)
    await record_grades(
        session,
        [
            Grade(
                a.user_id,
                question_id,
                a.correct,
                a.answered_at,
                source_of(row.id, number),
                seconds=a.ms / 1000,
                guild_id=row.guild_id,
            )
            for a in answers
        ],
        rules,
    )
    return answers


@dataclass(frozen=True)
class Closed:
    number: int
    answered: int
    ended: EndReason | None  # the round ended with this question


async def close_question(
    db: Database, round_id: int, number: int, pause: timedelta
) -> Closed | None:
    """Close the round's current question: grade its answers, owe its reveal, and either
    pause before the next question or end the round (`bot.live.rules.end_reason`), owing
    the scoreboard too. One transaction; None when another process (or an earlier try)
    closed it."""
    async with db.session() as session:
        now = await db_now(session)
        row = await session.get(LiveRound, round_id)
        if row is None or row.status != Status.QUESTION or row.position + 1 != number:
            await session.rollback()
            return None
        answers = await _close_in(session, row, number, now)
        if answers is None:
            await session.rollback()
            return None
        row.idle = 0 if answers else row.idle + 1
        ended = end_reason(row.stop_requested, row.idle, row.position, len(row.question_ids))
        await session.exec(
            update(LiveRound)
            .where(col(LiveRound.id) == round_id, col(LiveRound.status) == Status.QUESTION)
            .values(
                idle=row.idle,
                status=Status.ENDED if ended else Status.PAUSE,
                next_at=None if ended else now + pause,
                end_reason=ended.value if ended else None,
                ended_at=now if ended else None,
            )
        )
        owe_round(session, Owed.LIVE_REVEAL, row.guild_id, round_id, number, now)
        if ended:
            owe_round(session, Owed.LIVE_END, row.guild_id, round_id, SCOREBOARD, now)
        await session.commit()
        return Closed(number, len(answers), ended)


async def end(db: Database, round_id: int, reason: EndReason, *, scoreboard: bool = True) -> bool:
    """End a round now (a question still open is closed and graded, without a reveal),
    owing its scoreboard; False when it had ended already."""
    async with db.session() as session:
        now = await db_now(session)
        row = await session.get(LiveRound, round_id)
        if row is None or row.status == Status.ENDED:
            await session.rollback()
            return False
        ended = await session.exec(
            update(LiveRound)
            .where(col(LiveRound.id) == round_id, col(LiveRound.status) != Status.ENDED)
            .values(status=Status.ENDED, end_reason=reason.value, ended_at=now, next_at=None)
        )
        if not ended.rowcount:
            await session.rollback()
            return False
        if row.status == Status.QUESTION:
            await _close_in(session, row, row.position + 1, now)
        if scoreboard:
            owe_round(session, Owed.LIVE_END, row.guild_id, round_id, SCOREBOARD, now)
        await session.commit()
        return True
