"""The numbers of `/daily stats` and `quiztutor stats`: per-question accuracy and the wrong
answer chosen most (settled posts only), members per week, recent days' participation.

Read from the tallies of settled posts (`bot.daily.tallies_store`, a row per question,
wrong choice and week) plus the posts still open, counted live: the work follows the
open posts and the bank, not a year of answers. Plain SQLAlchemy Core, the same on
SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from sqlalchemy import case, exists, false, func
from sqlalchemy import select as sa_select
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlmodel import SQLModel

from bot.daily.analytics_rules import (
    DEFAULT_WEEKS,
    ClassAnalytics,
    DayParticipation,
    GuildOverview,
    QuestionStat,
    WeekParticipation,
    week_starts,
    worst_first,
)
from bot.daily.tallies_store import monday
from bot.db.database import Database
from bot.db.tables.aggregates import QuestionTally, WeekMember, WeekTally, WrongTally
from bot.db.tables.daily import DailyAnswer, DailyPost, MemberStats
from bot.quizbank.generated import template_of


async def class_analytics(
    db: Database, guild_id: int, today: date, weeks: int = DEFAULT_WEEKS
) -> ClassAnalytics:
    starts = week_starts(today, weeks)
    async with db.engine.connect() as conn:
        total_posts = int(
            (
                await conn.execute(
                    sa_select(func.count()).select_from(_POST).where(_POST.c.guild_id == guild_id)
                )
            ).scalar_one()
        )
        question_rows = (
            await conn.execute(
                sa_select(_Q.c.question_id, _Q.c.posts, _Q.c.answered, _Q.c.correct).where(
                    _Q.c.guild_id == guild_id
                )
            )
        ).all()
        wrong_rows = (
            await conn.execute(
                sa_select(_W.c.question_id, _W.c.choice, _W.c.picks).where(
                    _W.c.guild_id == guild_id
                )
            )
        ).all()
        by_week = await _weeks(conn, guild_id, starts, today)

    top: dict[str, tuple[int, int]] = {}  # question -> (count, choice)
    for question_id, choice, count in wrong_rows:
        if template_of(question_id) is not None:
            continue  # a template's choices differ per post: no one "most chosen" wrong one
        best = top.get(question_id)
        if count and (best is None or (count, -choice) > (best[0], -best[1])):
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
    return ClassAnalytics(
        guild_id=guild_id,
        questions=questions,
        weeks=[WeekParticipation(start, *by_week.get(start, (0, 0, 0))) for start in starts],
        total_posts=total_posts,
    )


async def _weeks(
    conn: AsyncConnection, guild_id: int, starts: list[date], today: date
) -> dict[date, tuple[int, int, int]]:
    """(members, answers, posts) per week: the tallies of settled posts, plus the posts
    of those weeks still open, counted live (their members once per week)."""
    found: dict[date, list[int]] = {}
    rows = await conn.execute(
        sa_select(_WK.c.week, _WK.c.members, _WK.c.answers, _WK.c.posts).where(
            _WK.c.guild_id == guild_id, _WK.c.week >= starts[0], _WK.c.week <= starts[-1]
        )
    )
    for week, members, answers, posts in rows:
        found[week] = [int(members), int(answers), int(posts)]
    open_posts = (
        await conn.execute(
            sa_select(_POST.c.id, _POST.c.day).where(
                _POST.c.guild_id == guild_id,
                _POST.c.settled == false(),
                _POST.c.day >= starts[0],
                _POST.c.day <= today,
            )
        )
    ).all()
    for post_id, day in open_posts:
        week = monday(day)
        answers = _ANSWER.c
        seen = exists().where(
            _WM.c.guild_id == guild_id, _WM.c.week == week, _WM.c.user_id == answers.user_id
        )
        n, new = (
            await conn.execute(
                sa_select(
                    func.count(), func.coalesce(func.sum(case((~seen, 1), else_=0)), 0)
                ).where(answers.post_id == post_id)
            )
        ).one()
        totals = found.setdefault(week, [0, 0, 0])
        totals[0] += int(new)
        totals[1] += int(n)
        totals[2] += 1
    if len(open_posts) > 1:  # a member who answered two open posts of one week counts once
        await _dedupe_open(conn, guild_id, open_posts, found)
    return {week: (m, a, p) for week, (m, a, p) in found.items()}


async def _dedupe_open(
    conn: AsyncConnection, guild_id: int, open_posts: Sequence[Any], found: dict[date, list[int]]
) -> None:
    weeks: dict[date, list[int]] = {}
    for post_id, day in open_posts:
        weeks.setdefault(monday(day), []).append(post_id)
    for week, post_ids in weeks.items():
        if len(post_ids) < 2:
            continue
        answers = _ANSWER.c
        seen = exists().where(
            _WM.c.guild_id == guild_id, _WM.c.week == week, _WM.c.user_id == answers.user_id
        )
        per_post, distinct = (
            await conn.execute(
                sa_select(func.count(), func.count(func.distinct(answers.user_id))).where(
                    answers.post_id.in_(post_ids), ~seen
                )
            )
        ).one()
        found[week][0] -= int(per_post) - int(distinct)


async def guild_overview(db: Database, guild_id: int, days: int) -> GuildOverview:
    """The latest `days` posts with their answers, and the server's totals: the tallies
    of settled posts plus the open ones, members from the member stats of settled days."""
    answers = _ANSWER.c
    latest = (
        sa_select(_POST.c.id, _POST.c.day, _POST.c.question_id)
        .where(_POST.c.guild_id == guild_id)
        .order_by(_POST.c.day.desc())
        .limit(days)
        .subquery()
    )
    per_day = (
        sa_select(
            latest.c.day,
            latest.c.question_id,
            func.count(answers.user_id),
            func.coalesce(func.sum(case((answers.correct, 1), else_=0)), 0),
        )
        .select_from(latest.outerjoin(_ANSWER, answers.post_id == latest.c.id))
        .group_by(latest.c.id, latest.c.day, latest.c.question_id)
        .order_by(latest.c.day.desc())
    )
    settled = sa_select(
        func.coalesce(func.sum(_Q.c.answered), 0), func.coalesce(func.sum(_Q.c.correct), 0)
    ).where(_Q.c.guild_id == guild_id)
    stats = _STATS.c
    known = exists().where(stats.guild_id == guild_id, stats.user_id == answers.user_id)
    open_answers = (
        sa_select(
            func.count(),
            func.coalesce(func.sum(case((answers.correct, 1), else_=0)), 0),
            func.count(func.distinct(case((~known, answers.user_id)))),
        )
        .select_from(_ANSWER.join(_POST, _POST.c.id == answers.post_id))
        .where(_POST.c.guild_id == guild_id, _POST.c.settled == false())
    )
    members_known = sa_select(func.count()).select_from(_STATS).where(stats.guild_id == guild_id)
    async with db.engine.connect() as conn:
        rows = (await conn.execute(per_day)).all()
        answered, correct = (await conn.execute(settled)).one()
        open_n, open_right, open_new = (await conn.execute(open_answers)).one()
        members = (await conn.execute(members_known)).scalar_one()
    return GuildOverview(
        days=[DayParticipation(day, qid, int(n), int(c)) for day, qid, n, c in rows],
        members=int(members) + int(open_new),
        answered=int(answered) + int(open_n),
        correct=int(correct) + int(open_right),
    )


_POST = SQLModel.metadata.tables[DailyPost.__tablename__]
_ANSWER = SQLModel.metadata.tables[DailyAnswer.__tablename__]
_STATS = SQLModel.metadata.tables[MemberStats.__tablename__]
_Q = SQLModel.metadata.tables[QuestionTally.__tablename__]
_W = SQLModel.metadata.tables[WrongTally.__tablename__]
_WK = SQLModel.metadata.tables[WeekTally.__tablename__]
_WM = SQLModel.metadata.tables[WeekMember.__tablename__]
