"""Embeds and button rows: how questions, answers, reveals and demos look on Discord."""

from __future__ import annotations

import string
from collections.abc import Sequence
from datetime import timedelta

import discord

from bot.daily import RevealSummary
from bot.i18n import t
from bot.quizbank import Question, Quiz, pick_locale
from cogs.common import BRAND_COLOUR, RIGHT_COLOUR, WRONG_COLOUR

LETTERS = string.ascii_uppercase
# Regional indicator letters 🇦 🇧 🇨 ...: the daily question's answer reactions.
ANSWER_EMOJI = [chr(0x1F1E6 + i) for i in range(6)]
EMBED_FIELD_MAX = 1024
EMBED_DESCRIPTION_MAX = 4096


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def choice_lines(
    question: Question, order: Sequence[int], locale: str, prefixes: Sequence[str]
) -> str:
    texts = question.choice_texts(locale)
    return "\n".join(
        f"{prefix} {texts[index]}" for prefix, index in zip(prefixes, order, strict=False)
    )


def references_text(question: Question) -> str:
    return "\n".join(f"[{clip(ref.title, 200)}]({ref.url})" for ref in question.references[:4])


def question_embed(
    quiz: Quiz, question: Question, order: Sequence[int], locale: str, number: int, total: int
) -> discord.Embed:
    embed = discord.Embed(
        title=t("quiz.question_title", locale, number=number, total=total),
        description=clip(
            f"**{question.text('prompt', locale)}**\n\n"
            + choice_lines(question, order, locale, [f"**{letter})**" for letter in LETTERS]),
            EMBED_DESCRIPTION_MAX,
        ),
        colour=BRAND_COLOUR,
    )
    embed.set_footer(text=pick_locale(quiz.title, locale))
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
        description=clip(
            f"**{question.text('prompt', locale)}**\n\n"
            + choice_lines(question, order, locale, marks),
            EMBED_DESCRIPTION_MAX,
        ),
        colour=RIGHT_COLOUR if right else WRONG_COLOUR,
    )
    verdict = (
        t("quiz.right", locale)
        if right
        else t("quiz.wrong", locale, letter=LETTERS[correct_position])
    )
    embed.add_field(
        name=verdict,
        value=clip(question.text("explanation", locale), EMBED_FIELD_MAX),
        inline=False,
    )
    if question.references:
        embed.add_field(
            name=t("quiz.sources", locale),
            value=clip(references_text(question), EMBED_FIELD_MAX),
            inline=False,
        )
    embed.set_footer(text=pick_locale(quiz.title, locale))
    return embed


def format_duration(elapsed: timedelta) -> str:
    seconds = int(elapsed.total_seconds())
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes}:{seconds:02d}"


def summary_embed(
    locale: str, score: int, total: int, elapsed: timedelta, title: str | None = None
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
    if title:
        embed.set_footer(text=title)
    return embed


def daily_embed(quiz: Quiz, question: Question, locale: str, day: str) -> discord.Embed:
    order = list(range(question.n_choices))
    embed = discord.Embed(
        title=t("daily.post_title", locale, day=day),
        description=clip(
            f"**{question.text('prompt', locale)}**\n\n"
            + choice_lines(question, order, locale, ANSWER_EMOJI),
            EMBED_DESCRIPTION_MAX,
        ),
        colour=BRAND_COLOUR,
    )
    embed.set_footer(text=t("daily.post_footer", locale, quiz=pick_locale(quiz.title, locale)))
    return embed


def reveal_embed(
    question: Question, locale: str, summary: RevealSummary, mentions: str = ""
) -> discord.Embed:
    """The answer of a daily question, with the distribution and the day's records."""
    texts = question.choice_texts(locale)
    # Answers per choice as written (the daily post shows choices unshuffled).
    counts = dict(enumerate(summary.distribution))
    answered = max(summary.answered, 1)
    lines = []
    for index, text in enumerate(texts):
        count = counts.get(index, 0)
        bar = "█" * round(10 * count / answered)
        mark = "✅" if index == question.answer else ANSWER_EMOJI[index]
        lines.append(f"{mark} {clip(text, 60)} — **{count}** {bar}")
    embed = discord.Embed(
        title=t("daily.reveal_title", locale, letter=LETTERS[question.answer]),
        description=f"**{question.text('prompt', locale)}**\n\n" + "\n".join(lines),
        colour=RIGHT_COLOUR,
    )
    embed.add_field(
        name=t("quiz.why", locale),
        value=clip(question.text("explanation", locale), EMBED_FIELD_MAX),
        inline=False,
    )
    embed.add_field(
        name=t("daily.result_name", locale),
        value=t(
            "daily.result",
            locale,
            correct=summary.correct,
            answered=summary.answered,
        )
        + (
            "\n" + t("daily.result_unclear", locale, count=summary.unclear)
            if summary.unclear
            else ""
        ),
        inline=False,
    )
    if mentions:
        embed.add_field(
            name=t("daily.records_name", locale),
            value=clip(mentions, EMBED_FIELD_MAX),
            inline=False,
        )
    return embed
