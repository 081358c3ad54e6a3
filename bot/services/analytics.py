"""Class analytics of a server's daily question: which questions the class gets wrong,
which wrong answer it picks most (the common misconception), and how many take part
each week. Plain data for `/daily stats`, its chart and `quiztutor stats`.

Per-question figures count settled posts only: a question still open must not give its
answer away, not even to an admin. Participation counts every answer. Weeks are ISO
weeks (Monday first) of the server's local days, the last `weeks` of them up to `today`,
oldest first; a week without answers is listed with zeros. The SQL is plain SQLAlchemy
Core (GROUP BY, CASE, COUNT DISTINCT), the same on SQLite and PostgreSQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import case, func, literal_column
from sqlalchemy import select as sa_select
from sqlalchemy.sql.elements import ColumnElement

from bot.core.quizbank import QuizBank
from bot.core.schedule import local_day, parse_timezone
from bot.storage import DailyAnswer, DailyPost, Database, GuildDailyConfig

DEFAULT_WEEKS = 8


@dataclass(frozen=True)
class QuestionStat:
    question_id: str
    posts: int  # settled posts of this question in the server
    answered: int
    correct: int
    # The wrong choice picked most often (index as written in the quiz file), None when
    # nobody answered wrong; ties go to the lower index.
    top_wrong: int | None
    top_wrong_count: int

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.answered if self.answered else None


@dataclass(frozen=True)
class WeekParticipation:
    week_start: date  # a Monday
    members: int  # distinct members who answered that week
    answers: int
    posts: int  # daily questions posted that week


@dataclass(frozen=True)
class ClassAnalytics:
    guild_id: int
    questions: list[QuestionStat]  # worst first: lowest accuracy, then most answers
    weeks: list[WeekParticipation]  # oldest first
    total_posts: int  # every daily post of the server, open or settled, of any age

    def worst(self, n: int) -> list[QuestionStat]:
        """The `n` weakest questions that have answers."""
        return [q for q in self.questions if q.answered][:n]


def choice_text(bank: QuizBank, question_id: str, index: int | None, locale: str) -> str | None:
    """The text of choice `index` (as written), None if the question or choice is gone."""
    if index is None:
        return None
    try:
        texts = bank.question(question_id).choice_texts(locale)
    except KeyError:  # the question left the bank
        return None
    return texts[index] if 0 <= index < len(texts) else None


def week_starts(today: date, weeks: int) -> list[date]:
    """The Mondays of the last `weeks` ISO weeks up to `today`, oldest first."""
    this_monday = today - timedelta(days=today.weekday())
    return [this_monday - timedelta(weeks=k) for k in range(weeks - 1, -1, -1)]


def _worst_first(stat: QuestionStat) -> tuple[float, int, str]:
    accuracy = stat.accuracy
    return (2.0 if accuracy is None else accuracy, -stat.answered, stat.question_id)


async def class_analytics(
    db: Database, guild_id: int, today: date, weeks: int = DEFAULT_WEEKS
) -> ClassAnalytics:
    answers = DailyAnswer.__table__  # type: ignore[attr-defined]
    posts = DailyPost.__table__  # type: ignore[attr-defined]
    right = func.coalesce(func.sum(case((answers.c.correct, 1), else_=0)), 0)
    per_question = (
        sa_select(
            posts.c.question_id,
            func.count(func.distinct(posts.c.id)),
            func.count(answers.c.user_id),
            right,
        )
        .select_from(posts.outerjoin(answers, answers.c.post_id == posts.c.id))
        .where(posts.c.guild_id == guild_id, posts.c.settled.is_(True))
        .group_by(posts.c.question_id)
    )
    wrong_choices = (
        sa_select(posts.c.question_id, answers.c.choice, func.count())
        .select_from(answers.join(posts, answers.c.post_id == posts.c.id))
        .where(
            posts.c.guild_id == guild_id,
            posts.c.settled.is_(True),
            answers.c.correct.is_(False),
        )
        .group_by(posts.c.question_id, answers.c.choice)
    )
    starts = week_starts(today, weeks)
    # Week index of a post's day as a CASE over the Mondays: portable, no date functions.
    week_of: ColumnElement[int] = case(
        *(
            (posts.c.day >= start, literal_column(str(i)))
            for i, start in reversed(list(enumerate(starts)))
        ),
        else_=literal_column("-1"),
    )
    window = (posts.c.guild_id == guild_id) & (posts.c.day >= starts[0]) & (posts.c.day <= today)
    week = week_of.label("week")
    participation = (
        sa_select(
            week,
            func.count(func.distinct(answers.c.user_id)),
            func.count(answers.c.user_id),
            func.count(func.distinct(posts.c.id)),
        )
        .select_from(posts.outerjoin(answers, answers.c.post_id == posts.c.id))
        .where(window)
        .group_by(week)
    )
    total = sa_select(func.count()).select_from(posts).where(posts.c.guild_id == guild_id)
    async with db.engine.connect() as conn:
        total_posts = int((await conn.execute(total)).scalar_one())
        question_rows = (await conn.execute(per_question)).all()
        wrong_rows = (await conn.execute(wrong_choices)).all()
        week_rows = (await conn.execute(participation)).all()

    top: dict[str, tuple[int, int]] = {}  # question -> (count, choice)
    for question_id, choice, count in wrong_rows:
        best = top.get(question_id)
        if best is None or (count, -choice) > (best[0], -best[1]):
            top[question_id] = (int(count), int(choice))
    questions = sorted(
        (
            QuestionStat(
                question_id=qid,
                posts=int(n_posts),
                answered=int(n),
                correct=int(c),
                top_wrong=top[qid][1] if qid in top else None,
                top_wrong_count=top[qid][0] if qid in top else 0,
            )
            for qid, n_posts, n, c in question_rows
        ),
        key=_worst_first,
    )
    by_week = {int(i): (int(m), int(a), int(p)) for i, m, a, p in week_rows}
    return ClassAnalytics(
        guild_id=guild_id,
        questions=questions,
        weeks=[
            WeekParticipation(start, *by_week.get(i, (0, 0, 0))) for i, start in enumerate(starts)
        ],
        total_posts=total_posts,
    )


async def server_today(db: Database, guild_id: int, now: datetime) -> date:
    """The server's local day: its `/daily setup` time zone, UTC before any setup."""
    async with db.session() as session:
        config = await session.get(GuildDailyConfig, guild_id)
    tz = parse_timezone(config.timezone) if config and config.timezone else ZoneInfo("UTC")
    return local_day(now, tz)


__all__ = [
    "DEFAULT_WEEKS",
    "ClassAnalytics",
    "QuestionStat",
    "WeekParticipation",
    "choice_text",
    "class_analytics",
    "server_today",
    "week_starts",
]
