"""`quiztutor stats --guild ID [--csv] [--table questions|weeks]`: the class analytics of
`/daily stats` for instructors, read straight from DATABASE_URL (nothing is written).

CSV (one table per run, `--table`): per question `question_id, quiz_id, posts, answered,
correct, accuracy, top_wrong_choice` (the index as written in the quiz file, 0-based),
`top_wrong_text, top_wrong_count`; per week `week_start, members, answers, posts`.
Without --csv the table asked for (both by default) is printed as plain text. Choice texts come from the quizzes
the bot loads (shipped + QUIZ_DIRS); a server's uploaded quizzes have none here.
"""

from __future__ import annotations

import asyncio
import csv
import io
from collections.abc import Sequence

from bot.common.errors import SetupError
from bot.common.text import clip, csv_cell
from bot.daily.analytics import server_today
from bot.daily.analytics_rules import ClassAnalytics, choice_text
from bot.daily.analytics_store import class_analytics
from bot.db.database import Database
from bot.quizbank import QuizBank

# Run where the bot runs (the same directory, or the same DATABASE_URL): it reads that data.
NO_DATABASE_FIX = (
    "run this where the bot runs, with the same DATABASE_URL (docs/configuration.md);"
    " a new bot has data after its first day"
)

QUESTION_HEADER = (
    "question_id",
    "quiz_id",
    "posts",
    "answered",
    "correct",
    "accuracy",
    "top_wrong_choice",
    "top_wrong_text",
    "top_wrong_count",
)
WEEK_HEADER = ("week_start", "members", "answers", "posts")


def question_rows(analytics: ClassAnalytics, bank: QuizBank, lang: str) -> list[list[str]]:
    rows = []
    for q in analytics.questions:
        try:
            quiz_id = bank.quiz_of(q.question_id).id
        except KeyError:  # an uploaded quiz, or a question that left the bank
            quiz_id = ""
        accuracy = q.accuracy
        rows.append(
            [
                q.question_id,
                quiz_id,
                str(q.posts),
                str(q.answered),
                str(q.correct),
                "" if accuracy is None else f"{accuracy:.4f}",
                "" if q.top_wrong is None else str(q.top_wrong),
                choice_text(bank, q.question_id, q.top_wrong, lang) or "",
                str(q.top_wrong_count),
            ]
        )
    return rows


def week_rows(analytics: ClassAnalytics) -> list[list[str]]:
    return [
        [w.week_start.isoformat(), str(w.members), str(w.answers), str(w.posts)]
        for w in analytics.weeks
    ]


def to_csv(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Every CSV the bot writes: no cell reads as a spreadsheet formula (`csv_cell`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([csv_cell(cell) for cell in row] for row in rows)
    return out.getvalue()


def to_text(header: Sequence[str], rows: Sequence[Sequence[str]], max_width: int = 40) -> str:
    """A plain, aligned table; long cells are cut to `max_width`."""
    cells = [[clip(c, max_width) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    return "\n".join(lines) + "\n"


async def open_existing(url: str, needs: str | None = None) -> Database:
    """The bot's database, read only (no migration): a SetupError when there is none, or
    when its schema is older than revision `needs`."""
    from bot.common.redact import redact_text
    from bot.db.database import EngineOptions, is_sqlite, sqlite_path
    from bot.db.health import CONNECT_TIMEOUT_S, check_url, opening_errors

    check_url(url)
    if is_sqlite(url) and not sqlite_path(url).exists():
        raise SetupError(
            f"no database at {redact_text(url)} yet: the bot creates it on its first run",
            NO_DATABASE_FIX,
            exit_code=2,
        )
    options = EngineOptions(pool_size=1, max_overflow=0, connect_timeout_s=CONNECT_TIMEOUT_S)
    async with opening_errors(url):
        db = await Database.open(url, migrate=False, options=options)
    try:
        async with opening_errors(url):
            revision = await db.current_revision()
    except BaseException:
        await db.close()
        raise
    if revision is None:
        await db.close()
        raise SetupError(
            f"{redact_text(url)} holds no quiztutor data (no schema)",
            NO_DATABASE_FIX,
            exit_code=2,
        )
    if needs is not None and revision.isdigit() and int(revision) < int(needs):
        await db.close()
        raise SetupError(
            f"{redact_text(url)} is at schema {revision}, older than this command needs ({needs})",
            "start the bot of this version once (it migrates), then run this again",
            exit_code=1,
        )
    return db


async def _read(url: str, guild_id: int, weeks: int) -> ClassAnalytics:
    from bot.common.times import utcnow

    db = await open_existing(url)
    try:
        today = await server_today(db, guild_id, utcnow())
        return await class_analytics(db, guild_id, today, weeks)
    finally:
        await db.close()


def run_stats(
    url: str,
    bank: QuizBank,
    guild_id: int,
    *,
    as_csv: bool,
    table: str | None,
    weeks: int,
    lang: str,
) -> str:
    """What `quiztutor stats` prints; a SetupError when the server has no daily question."""
    analytics = asyncio.run(_read(url, guild_id, weeks))
    if analytics.total_posts == 0:
        raise SetupError(
            f"no daily question was posted in server {guild_id} in this database",
            "check the server id (Discord: right-click the server, Copy Server ID) "
            "and DATABASE_URL",
            exit_code=1,
        )
    questions = question_rows(analytics, bank, lang)
    if as_csv:
        if table == "weeks":
            return to_csv(WEEK_HEADER, week_rows(analytics))
        return to_csv(QUESTION_HEADER, questions)
    shown = [r[:2] + r[3:6] + [r[7], r[8]] for r in questions]  # no posts / index columns
    header = ("question", "quiz", "answered", "correct", "accuracy", "most chosen wrong", "times")
    parts = []
    if table in (None, "questions"):
        parts.append(
            f"Server {guild_id}: questions, weakest first (settled days only)\n"
            + (to_text(header, shown) if shown else "(no revealed question with answers yet)\n")
        )
    if table in (None, "weeks"):
        parts.append(
            f"Server {guild_id}: members per week (weeks from Monday, last {weeks})\n"
            + to_text(WEEK_HEADER, week_rows(analytics))
        )
    return "\n".join(parts)


__all__ = ["QUESTION_HEADER", "WEEK_HEADER", "open_existing", "run_stats", "to_csv", "to_text"]
