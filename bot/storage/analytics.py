"""The numbers of `/daily stats` and `quiztutor stats`: per-question accuracy and the wrong
answer chosen most (settled posts only), members per week, recent days' participation.
Plain SQLAlchemy Core (GROUP BY, CASE, COUNT DISTINCT), the same on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import date

from sqlalchemy import case, func, literal_column
from sqlalchemy import select as sa_select
from sqlalchemy.sql.elements import ColumnElement

from bot.core.analytics import (
    DEFAULT_WEEKS,
    ClassAnalytics,
    DayParticipation,
    GuildOverview,
    QuestionStat,
    WeekParticipation,
    week_starts,
    worst_first,
)
from bot.core.quizbank.generated import template_of
from bot.storage.database import Database
from bot.storage.models import DailyAnswer, DailyPost


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
        if template_of(question_id) is not None:
            continue  # a template's choices differ per post: no one "most chosen" wrong one
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
        key=worst_first,
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


async def guild_overview(db: Database, guild_id: int, days: int) -> GuildOverview:
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
    async with db.engine.connect() as conn:
        rows = (await conn.execute(per_day)).all()
        members, answered, correct = (await conn.execute(totals)).one()
    return GuildOverview(
        days=[DayParticipation(day, qid, n, c) for day, qid, n, c in rows],
        members=members,
        answered=answered,
        correct=correct,
    )
