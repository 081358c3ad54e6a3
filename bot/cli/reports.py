"""`quiztutor reports [--guild ID] [--csv]`: the questions members reported, read straight
from DATABASE_URL (nothing is written), so the host can fix shipped questions upstream.

Per question (newest report first): its quiz, whether it is shipped, the reports per reason
and in all, the servers they came from, when the last came, and a member's note. Every
server's reports are added up unless `--guild` names one. A member's note never reaches the
terminal as a control sequence, nor a spreadsheet as a formula (`to_csv`).
"""

from __future__ import annotations

import asyncio

from bot.cli.stats import open_existing, to_csv, to_text
from bot.common.text import strip_invisible
from bot.community.reports_store import ReportedQuestion, for_host
from bot.community.rules import REASONS
from bot.quizbank import QuizBank

HEADER = (
    "question_id",
    "quiz_id",
    "shipped",
    *REASONS,
    "total",
    "servers",
    "last_reported_at",
    "note",
)


def rows(found: list[ReportedQuestion], bank: QuizBank) -> list[list[str]]:
    table = []
    for item in found:
        try:
            quiz_id = bank.quiz_of(item.question_id).id
        except KeyError:  # a server's own quiz (not loaded here), or gone
            quiz_id = ""
        table.append(
            [
                item.question_id,
                quiz_id,
                "yes" if quiz_id and bank.is_shipped(quiz_id) else "no",
                *(str(item.counts[reason]) for reason in REASONS),
                str(item.total),
                str(item.servers),
                item.last_at.strftime("%Y-%m-%d %H:%M"),
                strip_invisible(item.note_text),  # stored clean; older notes too on a terminal
            ]
        )
    return table


async def _read(url: str, guild_id: int | None) -> list[ReportedQuestion]:
    db = await open_existing(url, needs="0007")
    try:
        return await for_host(db, guild_id)
    finally:
        await db.close()


def run_reports(url: str, bank: QuizBank, guild_id: int | None, *, as_csv: bool) -> str:
    found = asyncio.run(_read(url, guild_id))
    table = rows(found, bank)
    if as_csv:
        return to_csv(HEADER, table)
    if not table:
        return "No question was reported" + (f" in server {guild_id}.\n" if guild_id else ".\n")
    return to_text(HEADER, table)
