"""Embeds of live rounds: the lobby, a question (with its live count), its reveal, the
scoreboard and a player's own result."""

from __future__ import annotations

from datetime import datetime

import discord

from bot.common.i18n import t
from bot.common.text import clip
from bot.live.publisher import QuestionView, Reveal, RoundView, Scoreboard
from bot.live.rounds import MyResult
from bot.live.rules import Standing
from bot.quizbank import Question, QuizBank, pick_locale
from bot.quizbank.generated import GeneratedQuestion, asked_question
from cogs.ui.embeds import choice_lines
from cogs.ui.style import (
    BRAND_COLOUR,
    EMBED_DESCRIPTION_MAX,
    EMBED_FIELD_MAX,
    LETTERS,
    RIGHT_COLOUR,
)

THREAD_NAME_MAX = 100  # Discord's limit on a thread's name


def topic_title(bank: QuizBank, topic: str | None, locale: str) -> str:
    if topic is None or topic not in bank.quizzes:
        return t("live.all_topics", locale)
    return pick_locale(bank.quiz(topic).title, locale)


def thread_name(bank: QuizBank, view: RoundView) -> str:
    title = topic_title(bank, view.topic, view.locale)
    return clip(t("live.thread_name", view.locale, title=title), THREAD_NAME_MAX)


def lobby_embed(
    bank: QuizBank, view: RoundView, starts_at: datetime | None, *, started: bool
) -> discord.Embed:
    """The lobby: who hosts, how the round goes, when it starts (or that it has)."""
    locale = view.locale
    if started or starts_at is None:
        description = t("live.lobby_started", locale)
    else:
        description = t(
            "live.lobby",
            locale,
            host=f"<@{view.host_id}>",
            questions=view.total,
            seconds=view.seconds,
            when=discord.utils.format_dt(starts_at, "R"),
        )
    return discord.Embed(
        title=t("live.lobby_title", locale, title=topic_title(bank, view.topic, locale)),
        description=description,
        colour=BRAND_COLOUR,
    )


def question_embed(bank: QuizBank, view: QuestionView) -> discord.Embed:
    locale = view.round.locale
    question = asked_question(bank, view.question_id, view.instance)
    embed = discord.Embed(
        title=t("live.question_title", locale, number=view.number, total=view.round.total),
        description=clip(
            f"**{question.text('prompt', locale)}**\n\n"
            + choice_lines(question, view.order, locale, [f"**{letter})**" for letter in LETTERS]),
            EMBED_DESCRIPTION_MAX,
        ),
        colour=BRAND_COLOUR,
    )
    timing = (
        t("live.closed", locale)
        if view.closed
        else t("live.closes", locale, when=discord.utils.format_dt(view.closes_at, "R"))
    )
    embed.add_field(name=timing, value=t("live.answered", locale, count=view.answered))
    footer = pick_locale(bank.quiz_of(view.question_id).title, locale)
    if isinstance(question, GeneratedQuestion):
        origin = t("generate.origin", locale, template=question.template, seed=question.seed)
        footer = f"{footer} · {origin}"
    embed.set_footer(text=footer)
    return embed


def reveal_embed(question: Question, reveal: Reveal) -> discord.Embed:
    locale = reveal.round.locale
    order = reveal.order
    right = order.index(question.answer)
    texts = question.choice_texts(locale)
    most = max(reveal.answered, 1)
    lines = []
    for position, index in enumerate(order):
        count = reveal.distribution[position] if position < len(reveal.distribution) else 0
        mark = "✅" if position == right else "▫️"
        bar = "█" * round(10 * count / most)
        lines.append(
            f"{mark} **{LETTERS[position]})** {clip(texts[index], 60)} — **{count}** {bar}"
        )
    embed = discord.Embed(
        title=t(
            "live.reveal_title",
            locale,
            number=reveal.number,
            total=reveal.round.total,
            letter=LETTERS[right],
        ),
        description=clip(
            f"**{question.text('prompt', locale)}**\n\n" + "\n".join(lines), EMBED_DESCRIPTION_MAX
        ),
        colour=RIGHT_COLOUR,
    )
    embed.add_field(
        name=t("live.distribution", locale, count=reveal.answered),
        value=t("live.no_answers", locale) if not reveal.answered else "\u200b",
        inline=False,
    )
    embed.add_field(
        name=t("quiz.why", locale),
        value=clip(question.text("explanation", locale), EMBED_FIELD_MAX),
        inline=False,
    )
    fastest = [
        t(
            "live.fastest_line",
            locale,
            place=place,
            player=f"<@{answer.user_id}>",
            seconds=f"{answer.ms / 1000:.1f}",
        )
        for place, answer in enumerate(reveal.fastest, start=1)
    ]
    embed.add_field(
        name=t("live.fastest", locale),
        value="\n".join(fastest) if fastest else t("live.nobody_right", locale),
        inline=False,
    )
    return embed


def scoreboard_embed(bank: QuizBank, board: Scoreboard) -> discord.Embed:
    locale = board.round.locale
    lines = [
        t(
            "live.board_line",
            locale,
            rank=row.rank,
            player=f"<@{row.user_id}>",
            points=f"{row.points:,}",
            right=row.right,
        )
        for row in board.top
    ]
    body = "\n".join(lines) if lines else t("live.board_empty", locale)
    reason = t(f"live.ended_{board.reason.value}", locale)
    embed = discord.Embed(
        title=t("live.board_title", locale, title=topic_title(bank, board.round.topic, locale)),
        description=clip(f"{reason}\n\n{body}", EMBED_DESCRIPTION_MAX),
        colour=RIGHT_COLOUR,
    )
    embed.set_footer(text=t("live.board_footer", locale, players=board.players, asked=board.asked))
    return embed


def result_text(result: MyResult, locale: str) -> str:
    mine: Standing | None = result.standing
    if mine is None:
        return t("live.result_none", locale)
    lines = [
        t(
            "live.result",
            locale,
            rank=mine.rank,
            players=result.players,
            points=f"{mine.points:,}",
            right=mine.right,
            answered=mine.answered,
        )
    ]
    if result.wrong:
        lines.append(t("live.result_wrong", locale))
        lines += [f"• {clip(q.text('prompt', locale), 150)}" for q in result.wrong]
    else:
        lines.append(t("live.result_all_right", locale))
    return clip("\n".join(lines), 1900)
