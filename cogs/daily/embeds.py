"""Embeds of the daily question: the post, the reveal, /daily status and /daily stats
(with its class analytics)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import discord

from bot.common.errors import StopReason
from bot.common.i18n import t
from bot.common.scores import percent
from bot.common.text import clip
from bot.daily.analytics_rules import ClassAnalytics, GuildOverview, choice_text
from bot.daily.choice_rules import NEW, ROTATION, TARGET_RECALL, Reason
from bot.daily.configs import DailyStatus
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.daily.types import BUTTONS, REACTIONS, RevealSummary
from bot.db.tables.daily import GuildDailyConfig
from bot.learning.recall_rules import ACTIVE_DAYS
from bot.quizbank import Question, Quiz, QuizBank, pick_locale
from bot.quizbank.generated import GeneratedQuestion, template_of
from cogs.ui.embeds import choice_lines, explanation_text, question_text
from cogs.ui.style import (
    BRAND_COLOUR,
    EMBED_FIELD_MAX,
    LETTERS,
    RIGHT_COLOUR,
    discord_time,
    message_link,
)


def answer_marks(mode: str) -> tuple[str, ...]:
    """What marks a shown position: its reaction emoji, or (buttons) its letter."""
    return tuple(f"**{letter})**" for letter in LETTERS) if mode == BUTTONS else ANSWER_EMOJI


def daily_embed(
    quiz: Quiz,
    question: Question,
    locale: str,
    day: str,
    order: Sequence[int] | None = None,
    mode: str = REACTIONS,
) -> discord.Embed:
    """The post: its choices in the post's shown order (file order without one)."""
    shown = list(order) if order is not None else list(range(question.n_choices))
    embed = discord.Embed(
        title=t("daily.post_title", locale, day=day),
        description=question_text(
            question, locale, choice_lines(question, shown, locale, answer_marks(mode))
        ),
        colour=BRAND_COLOUR,
    )
    key = "daily.post_footer_buttons" if mode == BUTTONS else "daily.post_footer"
    footer = t(key, locale, quiz=pick_locale(quiz.title, locale))
    if isinstance(question, GeneratedQuestion):
        origin = t("generate.origin", locale, template=question.template, seed=question.seed)
        footer = f"{footer} · {origin}"
    embed.set_footer(text=footer)
    return embed


def reveal_embed(
    question: Question,
    locale: str,
    summary: RevealSummary,
    mentions: str = "",
    order: Sequence[int] | None = None,
    mode: str = REACTIONS,
) -> discord.Embed:
    """The answer of a daily question, with the distribution and the day's records; the
    choices as the post showed them (`order`), the counts kept per choice as written."""
    texts = question.choice_texts(locale)
    shown = list(order) if order is not None else list(range(len(texts)))
    counts = dict(enumerate(summary.distribution))
    answered = max(summary.answered, 1)
    marks = answer_marks(mode)
    lines = []
    for position, index in enumerate(shown):
        count = counts.get(index, 0)
        bar = "█" * round(10 * count / answered)
        mark = "✅" if index == question.answer else marks[position]
        lines.append(f"{mark} {clip(texts[index], 60)} — **{count}** {bar}")
    embed = discord.Embed(
        title=t("daily.reveal_title", locale, letter=LETTERS[shown.index(question.answer)]),
        description=f"**{question.text('prompt', locale)}**\n\n" + "\n".join(lines),
        colour=RIGHT_COLOUR,
    )
    embed.add_field(
        name=t("quiz.why", locale), value=explanation_text(question, locale), inline=False
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


def records_text(summary: RevealSummary, locale: str) -> str:
    # Mentions render as names; allowed_mentions is none bot-wide, so nobody is pinged.
    lines = [t("daily.milestone", locale, user=f"<@{u}>", days=d) for u, d in summary.milestones]
    lines += [t("daily.new_best", locale, user=f"<@{u}>", days=d) for u, d in summary.new_bests]
    return clip("\n".join(lines), EMBED_FIELD_MAX)


def disabled_notice(config: GuildDailyConfig, locale: str) -> str:
    channel = f"<#{config.channel_id}>"
    try:
        reason = StopReason(config.disabled_reason or "")
    except ValueError:
        return t("daily.disabled_other", locale, channel=channel, reason=config.disabled_reason)
    return t(reason.message_key, locale, channel=channel)


def answer_unavailable_embed(day: date, summary: RevealSummary, locale: str) -> discord.Embed:
    """The reveal of a question that has left the bank since it was posted."""
    return discord.Embed(
        description=t(
            "daily.answer_unavailable",
            locale,
            day=day.isoformat(),
            correct=summary.correct,
            answered=summary.answered,
        ),
        colour=BRAND_COLOUR,
    )


def status_embed(status: DailyStatus, locale: str, owed: str = "") -> discord.Embed:
    """`/daily status`: the settings, the next post, the open question, what is owed."""
    config = status.config
    embed = discord.Embed(title=t("daily.status_title", locale), colour=BRAND_COLOUR)
    embed.add_field(name=t("daily.status_channel", locale), value=f"<#{config.channel_id}>")
    embed.add_field(
        name=t("daily.status_time", locale), value=f"{config.post_time} ({config.timezone})"
    )
    embed.add_field(
        name=t("daily.status_topic", locale),
        value=config.topic or t("daily.status_all_topics", locale),
    )
    embed.add_field(
        name=t("daily.status_reveal", locale),
        value=t("daily.reveal_hours", locale, hours=config.reveal_after_hours)
        if config.reveal_after_hours
        else t("daily.reveal_default", locale),
    )
    embed.add_field(name=t("daily.status_language", locale), value=config.locale)
    embed.add_field(
        name=t("daily.status_repeat", locale),
        value=t("daily.repeat_days", locale, days=config.repeat_after_days),
    )
    embed.add_field(
        name=t("daily.status_retention", locale), value=f"{round(100 * config.retention)} %"
    )
    embed.add_field(
        name=t("daily.status_answers", locale),
        value=t(f"daily.answers_{config.answer_mode}", locale),
    )
    embed.add_field(
        name=t("daily.status_discussion", locale),
        value=t("daily.discussion_on" if config.discussion else "daily.discussion_off", locale),
    )
    embed.add_field(
        name=t("daily.status_next", locale),
        value=discord_time(status.next_post_at)
        if status.next_post_at
        else t("daily.status_off", locale),
        inline=False,
    )
    last = status.last_post
    open_text = t("daily.status_none_open", locale)
    if last is not None and not last.settled and last.message_id is not None:
        open_text = t(
            "daily.status_open_value",
            locale,
            day=last.day.isoformat(),
            link=message_link(config.guild_id, last.channel_id, last.message_id),
            reveal=discord_time(last.reveal_at),
        )
    embed.add_field(name=t("daily.status_open", locale), value=open_text, inline=False)
    if last is not None and last.choice:
        embed.add_field(
            name=t("daily.status_why", locale, question=last.question_id, day=last.day.isoformat()),
            value=clip(choice_reason_text(Reason.from_dict(last.choice), locale), EMBED_FIELD_MAX),
            inline=False,
        )
    if owed:
        embed.add_field(name=t("daily.owed_title", locale), value=owed, inline=False)
    return embed


def choice_reason_text(reason: Reason, locale: str) -> str:
    """Why a day's question was chosen, in words (`bot.daily.choice`)."""
    percent = round(100 * reason.recall) if reason.recall is not None else 0
    if reason.rule == ROTATION:
        why = t("daily.why_rotation", locale, active=ACTIVE_DAYS)
    elif reason.rule == NEW:
        why = t("daily.why_new", locale, members=reason.members, target=round(100 * TARGET_RECALL))
    else:
        key = f"daily.why_{reason.rule}_{reason.basis}"
        why = t(key, locale, members=reason.members, recall=percent, n=reason.n)
    parts = [why, t("daily.why_window", locale, window=reason.window, candidates=reason.candidates)]
    if reason.tied > 1:
        parts.append(t("daily.why_tied", locale, tied=reason.tied))
    return " ".join(parts)


def stats_embed(overview: GuildOverview, locale: str) -> discord.Embed:
    """`/daily stats`: participation and accuracy of recent days, and the totals."""
    lines = [
        t(
            "daily.stats_day",
            locale,
            day=d.day.isoformat(),
            question=d.question_id,
            answered=d.answered,
            correct=d.correct,
            percent=f" ({percent(d.correct, d.answered)}%)" if d.answered else "",
        )
        for d in overview.days
    ]
    accuracy = overview.accuracy
    totals = t(
        "daily.stats_totals",
        locale,
        members=overview.members,
        answered=overview.answered,
        correct=overview.correct,
        percent=f"{round(100 * accuracy)}%" if accuracy is not None else "–",
    )
    embed = discord.Embed(
        title=t("daily.stats_title", locale),
        description=clip("\n".join(lines), 4000),
        colour=BRAND_COLOUR,
    )
    embed.add_field(name="Σ", value=totals, inline=False)
    return embed


CLASS_ROWS = 5  # questions in the table; the chart shows up to MAX_BARS
STATS_CHART = "daily-stats.png"


def add_class_analytics(
    embed: discord.Embed, analytics: ClassAnalytics, bank: QuizBank, locale: str, chart: bool
) -> discord.Embed:
    """`/daily stats`: the weakest questions with their most chosen wrong answer, the
    members per week, and the chart (attached as STATS_CHART) as the embed's image."""
    rows = []
    for q in analytics.worst(CLASS_ROWS):
        text = choice_text(bank, q.question_id, q.top_wrong, locale)
        if template_of(q.question_id) is not None:
            choice = t("class.generated_wrong", locale)
        elif q.top_wrong is None:
            choice = t("class.no_wrong", locale)
        else:
            shown = clip(text, 60) if text is not None else f"#{q.top_wrong}"
            choice = t("class.choice", locale, text=shown, count=q.top_wrong_count)
        rows.append(
            t(
                "class.row",
                locale,
                question=q.question_id,
                percent=f"{percent(q.correct, q.answered)}%",
                correct=q.correct,
                answered=q.answered,
                choice=choice,
            )
        )
    embed.add_field(
        name=t("class.weakest", locale),
        value=clip("\n".join(rows), EMBED_FIELD_MAX) if rows else t("class.none_settled", locale),
        inline=False,
    )
    weeks = [
        t(
            "class.week_row",
            locale,
            week=w.week_start.isoformat(),
            members=w.members,
            answers=w.answers,
        )
        for w in analytics.weeks[-4:]
    ]
    embed.add_field(name=t("class.weeks", locale), value="\n".join(weeks), inline=False)
    if chart:
        embed.set_image(url=f"attachment://{STATS_CHART}")
    return embed
