"""Reports of questions (the Report button), the server's list of them, hiding a question
from a server until it is fixed, and the notices owed to members.

A hide is kept with the question's fingerprint: the bank (`QuizBank.hide`, the one
visibility rule) shows the question again once it changed, i.e. once it was fixed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from bot.common.cooldowns import Cooldown
from bot.common.errors import UserError
from bot.common.times import utcnow
from bot.community import notices_store, reports_store
from bot.community.reports_store import ReportedQuestion
from bot.community.rules import check_note, check_reason
from bot.db.database import Database
from bot.db.tables.community import MemberNotice
from bot.quizbank import Question, QuizBank
from bot.quizbank.bank import question_fingerprint

REPORT_COOLDOWN_S = 5.0
PAGE_SIZE = 5
NOTICES_PER_COMMAND = 5


@dataclass(frozen=True)
class ReportLine:
    reported: ReportedQuestion
    question: Question | None  # None: no longer in the bank
    hidden: bool


@dataclass(frozen=True)
class ReportsPage:
    lines: list[ReportLine]
    page: int
    pages: int
    total: int


class Reports:
    def __init__(
        self,
        db: Database,
        bank: QuizBank,
        *,
        clock: Callable[[], datetime] = utcnow,
        cooldown_s: float = REPORT_COOLDOWN_S,
    ) -> None:
        self.db = db
        self.bank = bank
        self.clock = clock
        self.cooldown = Cooldown(cooldown_s)

    async def load(self) -> None:
        """At start: the hidden questions into the bank."""
        for row in await reports_store.hidden(self.db):
            self.bank.hide(row.guild_id, row.question_id, row.fingerprint)

    def question(self, question_id: str, guild_id: int | None) -> Question:
        """A question this server may see (the bank's one rule): another server's question,
        a forged id, is unknown here, and its text is never shown."""
        try:
            question = self.bank.question(question_id)
            visible = self.bank.is_visible(self.bank.quiz_of(question_id).id, guild_id)
        except KeyError:
            visible = False
        if not visible:
            raise UserError("report.unknown_question")
        return question

    async def check_can_report(
        self, guild_id: int | None, question_id: str, user_id: int
    ) -> Question:
        """Before showing the form: the question is this server's to report and this member
        has not reported it."""
        question = self.question(question_id, guild_id)
        if await reports_store.has_reported(self.db, question_id, user_id):
            raise UserError("report.already")
        return question

    async def report(
        self,
        guild_id: int | None,
        user_id: int,
        question_id: str,
        reason: str,
        note: str | None,
    ) -> None:
        question = self.question(question_id, guild_id)
        reason = check_reason(reason)
        note = check_note(note)
        wait = self.cooldown.use(user_id)
        if wait:
            raise UserError("cooldown", seconds=max(1, round(wait)))
        added = await reports_store.add_report(
            self.db,
            guild_id=guild_id or 0,
            question_id=question_id,
            user_id=user_id,
            reason=reason,
            note=note,
            fingerprint=question_fingerprint(question),
            now=self.clock(),
        )
        if not added:
            raise UserError("report.already")

    async def page(self, guild_id: int, page: int) -> ReportsPage:
        page = max(1, page)
        found, total = await reports_store.of_guild(
            self.db, guild_id, PAGE_SIZE, (page - 1) * PAGE_SIZE
        )
        pages = max(1, math.ceil(total / PAGE_SIZE))
        lines = []
        for reported in found:
            try:
                question: Question | None = self.question(reported.question_id, guild_id)
            except UserError:  # gone, or (a report stored before the check) not this server's
                question = None
            hidden = self.bank.is_hidden(guild_id, reported.question_id)
            lines.append(ReportLine(reported, question, hidden))
        return ReportsPage(lines, page, pages, total)

    async def hide(self, guild_id: int, question_id: str, actor_id: int) -> Question:
        question = self.question(question_id, guild_id)  # only this server's to hide
        fingerprint = question_fingerprint(question)
        await reports_store.hide(
            self.db, guild_id, question_id, fingerprint, actor_id, self.clock()
        )
        self.bank.hide(guild_id, question_id, fingerprint)
        return question

    async def unhide(self, guild_id: int, question_id: str, actor_id: int) -> None:
        await reports_store.unhide(self.db, guild_id, question_id, actor_id, self.clock())
        self.bank.unhide(guild_id, question_id)


class Notices:
    """What the bot owes members: claimed before sending, given back when sending fails."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.db = db
        self.clock = clock

    async def claim_pending(self, user_id: int) -> list[MemberNotice]:
        ids = await notices_store.pending_ids(self.db, user_id, NOTICES_PER_COMMAND)
        claimed = [
            await notices_store.claim(self.db, notice_id, self.clock(), "command")
            for notice_id in ids
        ]
        return [notice for notice in claimed if notice is not None]
