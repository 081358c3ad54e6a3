"""Live answers, written in batches by the one batch writer (`bot.db.batch_writer`; built
here by `answer_writer`): a thousand members pressing within seconds cost a few
transactions, not a thousand; a press is acknowledged once its answer is committed or
refused. The transaction (`write_batch`) is synchronous, so it runs whole in the
writer's own thread on a SQLite file and through `AsyncConnection.run_sync` on PostgreSQL.

Per question in the batch: take the question's row first (`UPDATE ... RETURNING`:
PostgreSQL's row lock, SQLite's write lock), so a concurrent close either sees these
answers or this batch sees the question closed; read the database's clock and refuse
what was pressed after the deadline (a press's moment by that clock: now less the time
it waited in this process, on the process's monotonic clock, so a press held through a
database outage keeps its moment and its points); insert the answers with `ON CONFLICT
DO NOTHING RETURNING` (a member's first answer counts, whichever process or batch it
came through); add the players (answering also joins), then raise the question's count,
which returns the round's players too: the tally (`Tally`) the driver shows. The
statements are SQLAlchemy Core, built once per dialect; the rows go as executemany,
which SQLAlchemy sends as multi-row INSERTs compiled once ("insertmanyvalues").
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from sqlalchemy import Table, bindparam, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from bot.db.batch_writer import BatchWriter
from bot.db.clock import db_now_sync
from bot.db.database import Database
from bot.db.tables.live import LiveAnswer, LivePlayer, LiveQuestion
from bot.live.rules import QuestionStatus, Tally, points


class Outcome(StrEnum):
    COUNTED = "counted"  # this press is the member's answer
    REPEAT = "repeat"  # the member had answered: the first answer counts
    CLOSED = "closed"  # the question is closed (or was never opened)
    LATE = "late"  # after the deadline, by the database's clock
    NOT_OPEN = "not_open"  # its message is still being sent


@dataclass(frozen=True)
class Recorded:
    outcome: Outcome
    position: int | None = None  # the answer that counts (COUNTED, REPEAT)
    answered: int = 0  # the question's answers after this batch
    waiting: int = 0  # the round's players without an answer to it then (COUNTED)


@dataclass
class LivePending:
    round_id: int
    number: int
    user_id: int
    position: int  # as displayed
    choice: int  # as written
    correct: bool
    seconds: int  # the question's time
    # The press's moment (monotonic): judged then by the database's clock, however late
    # it is written (a database away for a while).
    arrived: float = field(default_factory=time.monotonic)


MAX_BATCH = 2000
# A press held through a database outage is refused ("try again") after this long.
HOLD_S = 30.0

LiveAnswerWriter = BatchWriter[LivePending, Recorded]


def answer_writer(db: Database, on_count: Callable[[int, Tally], None]) -> LiveAnswerWriter:
    """The live answers' writer; `on_count(round_id, tally)` hears each question's tally
    as committed by a batch that counted answers to it (the driver shows it, unread)."""

    def committed(batch: list[LivePending], results: list[Recorded]) -> None:
        tallies: dict[tuple[int, int], Tally] = {}
        for pending, recorded in zip(batch, results, strict=True):
            if recorded.outcome is Outcome.COUNTED:
                tally = Tally(pending.number, recorded.answered, recorded.waiting)
                tallies[(pending.round_id, pending.number)] = tally  # one per question
        for (round_id, _), tally in tallies.items():
            on_count(round_id, tally)

    return BatchWriter(
        db, write_batch, name="live-answer-writer", max_batch=MAX_BATCH, hold_s=HOLD_S,
        on_commit=committed,
    )  # fmt: skip


def write_batch(conn: Connection, batch: list[LivePending]) -> list[Recorded]:
    """Write a batch in one transaction: each press's outcome, in order."""
    groups: dict[tuple[int, int], list[LivePending]] = {}
    for pending in batch:
        groups.setdefault((pending.round_id, pending.number), []).append(pending)
    decided: dict[int, Recorded] = {}  # id(pending) -> outcome
    sql = statements(conn.dialect.name)
    with conn.begin():
        now: datetime | None = None
        clock = 0.0
        for (round_id, number), items in groups.items():
            row = conn.execute(sql.take, {"r": round_id, "n": number}).first()
            if now is None:
                now = db_now_sync(conn)  # after the first lock: no earlier
                clock = time.monotonic()
            if row is None:
                refused = Recorded(Outcome.CLOSED)
            elif row.status != QuestionStatus.OPEN or row.opened_at is None:
                refused = Recorded(Outcome.NOT_OPEN, answered=int(row.answered))
            elif row.closes_at is None:
                refused = Recorded(Outcome.LATE, answered=int(row.answered))
            else:
                moments = {
                    id(p): now - timedelta(seconds=max(0.0, clock - p.arrived)) for p in items
                }
                in_time = [p for p in items if moments[id(p)] < row.closes_at]
                answered = int(row.answered)
                if in_time:
                    answered = _insert(
                        conn, sql, in_time, row.opened_at, moments, answered, decided
                    )
                for pending in items:
                    decided.setdefault(id(pending), Recorded(Outcome.LATE, answered=answered))
                continue
            for pending in items:
                decided[id(pending)] = refused
    return [decided[id(p)] for p in batch]


def _insert(
    conn: Connection,
    sql: Statements,
    items: list[LivePending],
    opened_at: datetime,
    moments: dict[int, datetime],
    answered: int,
    decided: dict[int, Recorded],
) -> int:
    """Insert the first press of each member of one question (each at its moment); its
    count afterwards."""
    first: dict[int, LivePending] = {}
    for pending in items:
        first.setdefault(pending.user_id, pending)
    round_id, number = items[0].round_id, items[0].number
    rows = []
    for p in first.values():
        ms = max(0, int((moments[id(p)] - opened_at).total_seconds() * 1000))
        rows.append(
            {
                "round_id": round_id,
                "number": number,
                "user_id": p.user_id,
                "position": p.position,
                "choice": p.choice,
                "correct": p.correct,
                "answered_at": moments[id(p)],
                "ms": ms,
                "points": points(p.correct, ms / 1000, p.seconds),
            }
        )
    inserted = {int(u) for (u,) in conn.execute(sql.insert_answers, rows).all()}
    waiting = 0
    if inserted:
        conn.execute(
            sql.insert_players,
            [
                {"round_id": round_id, "user_id": u, "joined_at": moments[id(first[u])]}
                for u in inserted
            ],
        )
        count = conn.execute(sql.count, {"r": round_id, "n": number, "k": len(inserted)})
        answered, players = count.one()
        answered = int(answered)
        waiting = int(players) - answered  # every answer's member is a player
    repeats = [u for u in first if u not in inserted]
    earlier: dict[int, int] = {}
    if repeats:
        found = conn.execute(sql.first, {"r": round_id, "n": number, "users": repeats})
        earlier = {int(u): int(p) for u, p in found.all()}
    for pending in items:
        if pending is first[pending.user_id] and pending.user_id in inserted:
            decided[id(pending)] = Recorded(Outcome.COUNTED, pending.position, answered, waiting)
        else:
            position = earlier.get(pending.user_id, first[pending.user_id].position)
            decided[id(pending)] = Recorded(Outcome.REPEAT, position, answered)
    return answered


@dataclass(frozen=True)
class Statements:
    """The writer's statements for one dialect, built once (SQLAlchemy caches their SQL)."""

    take: Any  # the question's row: lock it, read its state
    count: Any  # the question's count, raised by k; the round's players
    insert_answers: Any  # ON CONFLICT DO NOTHING RETURNING user_id
    insert_players: Any  # ON CONFLICT DO NOTHING
    first: Any  # the answers that counted, of some members


_STATEMENTS: dict[str, Statements] = {}
_Q: Table = SQLModel.metadata.tables[LiveQuestion.__tablename__]
_A: Table = SQLModel.metadata.tables[LiveAnswer.__tablename__]
_P: Table = SQLModel.metadata.tables[LivePlayer.__tablename__]


def statements(dialect: str) -> Statements:
    if dialect not in _STATEMENTS:
        insert: Any = postgresql.insert if dialect == "postgresql" else sqlite.insert
        question = (_Q.c.round_id == bindparam("r")) & (_Q.c.number == bindparam("n"))
        _STATEMENTS[dialect] = Statements(
            take=update(_Q)
            .where(question, _Q.c.status != QuestionStatus.CLOSED.value)
            .values(answered=_Q.c.answered)
            .returning(_Q.c.status, _Q.c.opened_at, _Q.c.closes_at, _Q.c.answered),
            count=update(_Q)
            .where(question)
            .values(answered=_Q.c.answered + bindparam("k"))
            .returning(
                _Q.c.answered,
                select(func.count()).where(_P.c.round_id == bindparam("r")).scalar_subquery(),
            ),
            insert_answers=insert(_A).on_conflict_do_nothing().returning(_A.c.user_id),
            insert_players=insert(_P).on_conflict_do_nothing(),
            first=select(_A.c.user_id, _A.c.position).where(
                _A.c.round_id == bindparam("r"),
                _A.c.number == bindparam("n"),
                _A.c.user_id.in_(bindparam("users", expanding=True)),
            ),
        )
    return _STATEMENTS[dialect]
