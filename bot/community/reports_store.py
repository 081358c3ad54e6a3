"""Reports of questions and the questions servers hid, in the database.

A member reports a question once (UNIQUE(question_id, user_id), inserted with ON CONFLICT
DO NOTHING). Each report also counts in `report_summary`, one row per server and question
upserted in the same transaction, so listing a server's reports reads those rows only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, literal_column
from sqlalchemy import select as sa_select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import col, select

from bot.community.rules import REASONS
from bot.community.suggestions_store import audit
from bot.db.database import Database
from bot.db.tables.community import HiddenQuestion, QuestionReport, ReportSummary

_SUMMARY = ReportSummary.__table__  # type: ignore[attr-defined]
_REPORT = QuestionReport.__table__  # type: ignore[attr-defined]
_HIDDEN = HiddenQuestion.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class ReportedQuestion:
    """Reports of one question (in one server, or in all of them for the host)."""

    question_id: str
    counts: dict[str, int]  # reason -> reports
    total: int
    last_at: datetime
    last_note: str | None
    servers: int = 1

    @property
    def note_text(self) -> str:
        return self.last_note or ""


def _insert(dialect_name: str) -> Any:
    return postgresql.insert if dialect_name == "postgresql" else sqlite.insert


async def add_report(
    db: Database,
    *,
    guild_id: int,
    question_id: str,
    user_id: int,
    reason: str,
    note: str | None,
    fingerprint: str,
    now: datetime,
) -> bool:
    """Record a report; False when this member reported this question already."""
    async with db.session() as session:
        conn = await session.connection()
        insert = _insert(conn.dialect.name)
        added = await conn.execute(
            insert(_REPORT)
            .values(
                guild_id=guild_id,
                question_id=question_id,
                user_id=user_id,
                reason=reason,
                note=note,
                fingerprint=fingerprint,
                created_at=now,
            )
            .on_conflict_do_nothing(index_elements=["question_id", "user_id"])
            .returning(_REPORT.c.id)
        )
        if added.first() is None:
            await session.rollback()
            return False
        counts = {name: int(name == reason) for name in REASONS}
        row = insert(_SUMMARY).values(
            guild_id=guild_id,
            question_id=question_id,
            total=1,
            last_at=now,
            last_note=note,
            **counts,
        )
        column = _SUMMARY.c
        await conn.execute(
            row.on_conflict_do_update(
                index_elements=["guild_id", "question_id"],
                set_={
                    reason: column[reason] + 1,
                    "total": column.total + 1,
                    "last_at": now,
                    "last_note": func.coalesce(row.excluded.last_note, column.last_note),
                },
            )
        )
        await session.commit()
        return True


async def has_reported(db: Database, question_id: str, user_id: int) -> bool:
    async with db.session() as session:
        found = await session.exec(
            select(QuestionReport.id)
            .where(
                col(QuestionReport.question_id) == question_id, QuestionReport.user_id == user_id
            )
            .limit(1)
        )
        return found.first() is not None


def _reported(row: Any, servers: int = 1) -> ReportedQuestion:
    return ReportedQuestion(
        question_id=row.question_id,
        counts={name: int(getattr(row, name)) for name in REASONS},
        total=int(row.total),
        last_at=row.last_at,
        last_note=row.last_note,
        servers=servers,
    )


async def of_guild(
    db: Database, guild_id: int, limit: int, offset: int = 0
) -> tuple[list[ReportedQuestion], int]:
    """One page of a server's reported questions, newest report first, and how many."""
    async with db.session() as session:
        rows = await session.exec(
            select(ReportSummary)
            .where(col(ReportSummary.guild_id) == guild_id)
            .order_by(col(ReportSummary.last_at).desc(), col(ReportSummary.question_id))
            .limit(limit)
            .offset(offset)
        )
        page = [_reported(row) for row in rows.all()]
        total = await session.exec(
            select(func.count())
            .select_from(ReportSummary)
            .where(col(ReportSummary.guild_id) == guild_id)
        )
        return page, int(total.one())


async def for_host(db: Database, guild_id: int | None) -> list[ReportedQuestion]:
    """Per question, every server's reports added up (or one server's), newest first."""
    column = _SUMMARY.c
    sums = [func.sum(column[name]).label(name) for name in REASONS]
    query = (
        sa_select(
            column.question_id,
            *sums,
            func.sum(column.total).label("total"),
            func.max(column.last_at).label("last_at"),
            func.count().label("servers"),
            func.max(column.last_note).label("last_note"),
        )
        .group_by(column.question_id)
        .order_by(literal_column("last_at").desc(), column.question_id)
    )
    if guild_id is not None:
        query = query.where(column.guild_id == guild_id)
    async with db.session() as session:
        conn = await session.connection()
        rows = (await conn.execute(query)).all()
    result = []
    for row in rows:
        last_at = row.last_at
        if isinstance(last_at, str):  # SQLite returns max() of a DateTime as text
            last_at = datetime.fromisoformat(last_at)
        result.append(
            ReportedQuestion(
                question_id=row.question_id,
                counts={name: int(getattr(row, name)) for name in REASONS},
                total=int(row.total),
                last_at=last_at,
                last_note=row.last_note,
                servers=int(row.servers),
            )
        )
    return result


async def hide(
    db: Database, guild_id: int, question_id: str, fingerprint: str, actor_id: int, now: datetime
) -> None:
    async with db.session() as session:
        conn = await session.connection()
        row = _insert(conn.dialect.name)(_HIDDEN).values(
            guild_id=guild_id,
            question_id=question_id,
            fingerprint=fingerprint,
            hidden_by=actor_id,
            hidden_at=now,
        )
        await conn.execute(
            row.on_conflict_do_update(
                index_elements=["guild_id", "question_id"],
                set_={"fingerprint": fingerprint, "hidden_by": actor_id, "hidden_at": now},
            )
        )
        audit(session, guild_id, actor_id, "hid", now, question_id=question_id)
        await session.commit()


async def unhide(
    db: Database, guild_id: int, question_id: str, actor_id: int, now: datetime
) -> bool:
    async with db.session() as session:
        gone = await session.exec(
            delete(HiddenQuestion).where(
                col(HiddenQuestion.guild_id) == guild_id,
                col(HiddenQuestion.question_id) == question_id,
            )
        )
        if gone.rowcount != 1:
            await session.rollback()
            return False
        audit(session, guild_id, actor_id, "unhid", now, question_id=question_id)
        await session.commit()
        return True


async def hidden(db: Database, guild_id: int | None = None) -> list[HiddenQuestion]:
    """The hidden questions of one server, or of all (at start, to fill the bank)."""
    async with db.session() as session:
        query = select(HiddenQuestion)
        if guild_id is not None:
            query = query.where(col(HiddenQuestion.guild_id) == guild_id)
        return list((await session.exec(query)).all())
