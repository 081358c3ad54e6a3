"""Embeds of the quiz, the streak and leaderboard, /me, and the demos."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import discord

from bot.common.i18n import t
from bot.common.text import clip
from bot.daily.streak_rules import MIN_ANSWERED_FOR_ACCURACY, LeaderboardRow, MemberStreak
from bot.learning.review_rules import ReviewCounts
from bot.quizbank import Question, Quiz, QuizBank, pick_locale
from bot.quizbank.generated import GeneratedQuestion
from bot.stats.progress_rules import Progress
from cogs.ui.style import (
    BRAND_COLOUR,
    EMBED_DESCRIPTION_MAX,
    EMBED_FIELD_MAX,
    LETTERS,
    RIGHT_COLOUR,
    WRONG_COLOUR,
    format_duration,
)
from experiments.catalog import CATALOG


def choice_lines(
    question: Question, order: Sequence[int], locale: str, prefixes: Sequence[str]
) -> str:
    texts = question.choice_texts(locale)
    return "\n".join(
        f"{prefix} {texts[index]}" for prefix, index in zip(prefixes, order, strict=False)
    )


def question_text(question: Question, locale: str, lines: str) -> str:
    """An embed's description: the prompt in bold, then `lines` (its choices)."""
    return clip(f"**{question.text('prompt', locale)}**\n\n" + lines, EMBED_DESCRIPTION_MAX)


def references_text(question: Question) -> str:
    return "\n".join(f"[{clip(ref.title, 200)}]({ref.url})" for ref in question.references[:4])


def explanation_text(question: Question, locale: str) -> str:
    """The explanation, and who suggested the question when it is credited."""
    text = question.text("explanation", locale)
    if question.credit:
        credit = t("quiz.credit", locale, who=question.credit)
        return clip(text, EMBED_FIELD_MAX - len(credit) - 4) + f"\n\n*{credit}*"
    return clip(text, EMBED_FIELD_MAX)


def question_footer(quiz: Quiz, question: Question, locale: str) -> str:
    """The quiz's title, and a note when the text shown is a copy of another language's;
    for a generated question, which instance it is (template and seed)."""
    title = pick_locale(quiz.title, locale)
    if isinstance(question, GeneratedQuestion):
        origin = t("generate.origin", locale, template=question.template, seed=question.seed)
        return f"{title} · {origin}"
    shown = locale if locale in question.prompt else next(iter(question.prompt))
    if shown in question.untranslated:
        return f"{title} · {t('quiz.untranslated', locale)}"
    return title


def question_embed(
    quiz: Quiz, question: Question, order: Sequence[int], locale: str, number: int, total: int
) -> discord.Embed:
    embed = discord.Embed(
        title=t("quiz.question_title", locale, number=number, total=total),
        description=question_text(
            question,
            locale,
            choice_lines(question, order, locale, [f"**{letter})**" for letter in LETTERS]),
        ),
        colour=BRAND_COLOUR,
    )
    embed.set_footer(text=question_footer(quiz, question, locale))
    return embed


def answered_embed(
    quiz: Quiz,
    question: Question,
    order: Sequence[int],
    locale: str,
    number: int,
    total: int,
    chosen_position: int,
) -> discord.Embed:
    correct_position = list(order).index(question.answer)
    right = chosen_position == correct_position
    marks = []
    for position, _ in enumerate(order):
        if position == correct_position:
            marks.append(f"✅ **{LETTERS[position]})**")
        elif position == chosen_position:
            marks.append(f"❌ **{LETTERS[position]})**")
        else:
            marks.append(f"▫️ **{LETTERS[position]})**")
    embed = discord.Embed(
        title=t("quiz.question_title", locale, number=number, total=total),
        description=question_text(question, locale, choice_lines(question, order, locale, marks)),
        colour=RIGHT_COLOUR if right else WRONG_COLOUR,
    )
    verdict = (
        t("quiz.right", locale)
        if right
        else t("quiz.wrong", locale, letter=LETTERS[correct_position])
    )
    embed.add_field(name=verdict, value=explanation_text(question, locale), inline=False)
    if question.references:
        embed.add_field(
            name=t("quiz.sources", locale),
            value=clip(references_text(question), EMBED_FIELD_MAX),
            inline=False,
        )
    embed.set_footer(text=question_footer(quiz, question, locale))
    return embed


def summary_embed(
    locale: str,
    score: int,
    total: int,
    elapsed: timedelta,
    title: str | None = None,
    reviews: ReviewCounts | None = None,
) -> discord.Embed:
    percent = round(100 * score / total) if total else 0
    embed = discord.Embed(
        title=t("quiz.done_title", locale),
        description=t(
            "quiz.done",
            locale,
            score=score,
            total=total,
            percent=percent,
            time=format_duration(elapsed),
        ),
        colour=RIGHT_COLOUR if percent >= 70 else BRAND_COLOUR,
    )
    if reviews is not None and reviews.due_now:
        embed.add_field(
            name=t("me.reviews", locale), value=t("quiz.review_now", locale, count=reviews.due_now)
        )
    elif reviews is not None and reviews.next_due is not None:
        when = discord.utils.format_dt(reviews.next_due, "R")
        embed.add_field(name=t("me.reviews", locale), value=t("me.next_review", locale, when=when))
    if title:
        embed.set_footer(text=title)
    return embed


def _percent(value: float) -> str:
    return f"{round(value * 100)}%"


def streak_embed(name: str, streak: MemberStreak, locale: str) -> discord.Embed:
    embed = discord.Embed(title=t("streak.title", locale, name=name), colour=BRAND_COLOUR)
    days = "streak.days"
    embed.add_field(name=t("streak.current", locale), value=t(days, locale, count=streak.current))
    embed.add_field(name=t("streak.longest", locale), value=t(days, locale, count=streak.longest))
    embed.add_field(name="\u200b", value="\u200b")  # ends the first row of inline fields
    embed.add_field(name=t("streak.answered", locale), value=str(streak.answered))
    embed.add_field(name=t("streak.correct", locale), value=str(streak.correct))
    accuracy = streak.accuracy
    embed.add_field(
        name=t("streak.accuracy", locale),
        value=_percent(accuracy) if accuracy is not None else t("streak.no_accuracy", locale),
    )
    if not streak.answered:
        embed.description = t("streak.no_answers", locale)
    return embed


def progress_embed(name: str, progress: Progress, bank: QuizBank, locale: str) -> discord.Embed:
    embed = discord.Embed(title=t("me.title", locale, name=name), colour=BRAND_COLOUR)
    days = "streak.days"
    if progress.streak is not None:
        current, longest = progress.streak.current, progress.streak.longest
        embed.add_field(name=t("streak.current", locale), value=t(days, locale, count=current))
        embed.add_field(name=t("streak.longest", locale), value=t(days, locale, count=longest))
    else:
        embed.add_field(name=t("streak.current", locale), value=t("me.no_streak", locale))
    counts = progress.reviews
    lines = [t("me.reviews_value", locale, now=counts.due_now, week=counts.due_this_week)]
    if counts.due_now:
        lines.append(t("me.practise", locale))
    elif counts.next_due is not None:
        when = discord.utils.format_dt(counts.next_due, "R")
        lines.append(t("me.next_review", locale, when=when))
    embed.add_field(name=t("me.reviews", locale), value="\n".join(lines), inline=False)
    topics = [
        f"{clip(pick_locale(bank.quiz(topic.quiz_id).title, locale), 80)} — "
        f"{_percent(topic.accuracy)} ({topic.correct}/{topic.answered})"
        for topic in progress.topics
    ]
    embed.add_field(
        name=t("me.topics", locale),
        value=clip("\n".join(topics), EMBED_FIELD_MAX) if topics else t("me.no_answers", locale),
        inline=False,
    )
    return embed


def _row_value(row: LeaderboardRow, by: str, locale: str) -> str:
    if by == "accuracy":
        return f"{_percent(row.value)} ({row.correct}/{row.answered})"
    return t(f"leaderboard.value.{by}", locale, value=int(row.value))


def leaderboard_embed(
    rows: list[LeaderboardRow], by: str, page: int, pages: int, locale: str
) -> discord.Embed:
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    lines = [
        f"{medals.get(row.rank, f'**{row.rank}.**')} <@{row.user_id}> — {_row_value(row, by, locale)}"
        for row in rows
    ]
    embed = discord.Embed(
        title=t(f"leaderboard.title.{by}", locale),
        description="\n".join(lines),
        colour=BRAND_COLOUR,
    )
    embed.set_footer(
        text=t(
            "leaderboard.footer",
            locale,
            page=page,
            pages=pages,
            min_answered=MIN_ANSWERED_FOR_ACCURACY,
        )
    )
    return embed


def empty_text(by: str, locale: str) -> str:
    if by == "accuracy":
        return t("leaderboard.empty_accuracy", locale, min_answered=MIN_ANSWERED_FOR_ACCURACY)
    return t("leaderboard.empty", locale)


def demo_embed(result: Any, locale: str) -> discord.Embed:
    info = CATALOG[result.demo]
    embed = discord.Embed(
        title=info.title(locale), description=info.summary(locale), colour=BRAND_COLOUR
    )
    # 25 fields at most per embed; two more follow (device, parameters).
    for label, value in result.highlights[:20]:
        embed.add_field(name=clip(str(label), 256), value=clip(str(value), 1024), inline=True)
    embed.add_field(
        name=t("demo.ran_on", locale),
        value=t(
            "demo.device_time", locale, device=result.device, seconds=f"{result.elapsed_s:.2f}"
        ),
        inline=False,
    )
    if result.params:
        params = ", ".join(f"{k}={v}" for k, v in result.params.items())
        embed.add_field(name=t("demo.params", locale), value=f"`{params}`", inline=False)
    embed.set_image(url=f"attachment://{result.demo}.png")
    return embed
