"""Every persistent button, registered once in `setup_hook`, and what a press does.

Buttons are `DynamicItem`s: their custom_id carries the state they need (a session id,
a demo name, a leaderboard page), so they keep working after a restart. They share one
base whose failures go to the one error handler: a press never ends in a dead button.
"""

from __future__ import annotations

import io
import logging
import re
from typing import Any

import discord

from bot.core.cooldowns import Cooldown
from bot.core.errors import UserError
from bot.core.i18n import SUPPORTED_LOCALES, t
from bot.core.quizbank import QuizBank
from bot.core.streaks import LEADERBOARD_ORDERS
from bot.services.sessions import QuizAnswerOutcome, QuizStep, QuizSummary
from cogs.common import services_of
from cogs.ui.embeds import (
    answered_embed,
    demo_embed,
    empty_text,
    leaderboard_embed,
    question_embed,
    summary_embed,
)
from cogs.ui.replies import (
    ERROR_PREFIX,
    handle_interaction_error,
    interaction_locale,
    log_context,
)
from cogs.ui.style import LETTERS, clip

log = logging.getLogger("quiztutor.discord")

SESSION_ID = r"[A-Za-z0-9_-]{4,32}"
PER_PAGE = 10
# Page numbers travel in custom ids (4 digits at most); a board this long is clamped.
MAX_PAGE = 9999


class PersistentButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"(?!)"):
    """A persistent button; subclasses say what a press does in `pressed`."""

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await self.pressed(interaction)
        except Exception as exc:  # every failure becomes a clear message, never a dead button
            await handle_interaction_error(interaction, exc)

    async def pressed(self, interaction: discord.Interaction) -> None:
        raise NotImplementedError


# -- quiz sessions ------------------------------------------------------------------


class AnswerButton(
    PersistentButton,
    template=rf"qz:(?P<sid>{SESSION_ID}):(?P<num>[0-9]{{1,4}}):a:(?P<pos>[0-5])",
):
    """Choice `position` of question `number`; the number refuses clicks on old questions."""

    def __init__(
        self,
        session_id: str,
        number: int,
        position: int,
        *,
        style: discord.ButtonStyle = discord.ButtonStyle.primary,
        disabled: bool = False,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=LETTERS[position],
                style=style,
                disabled=disabled,
                custom_id=f"qz:{session_id}:{number}:a:{position}",
            ),
            # Five buttons fit a row: a sixth choice goes to the row of Next / Show me.
            row=position // 5,
        )
        self.session_id = session_id
        self.number = number
        self.position = position

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> AnswerButton:
        return cls(match["sid"], int(match["num"]), int(match["pos"]))

    async def pressed(self, interaction: discord.Interaction) -> None:
        await answer_question(interaction, self.session_id, self.number, self.position)


class NextButton(PersistentButton, template=rf"qz:(?P<sid>{SESSION_ID}):n"):
    def __init__(self, session_id: str, *, label: str = "→") -> None:
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.primary, custom_id=f"qz:{session_id}:n"
            ),
            row=1,
        )
        self.session_id = session_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> NextButton:
        return cls(match["sid"])

    async def pressed(self, interaction: discord.Interaction) -> None:
        await next_question(interaction, self.session_id)


def question_view(session_id: str, number: int, n_choices: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for position in range(n_choices):
        view.add_item(AnswerButton(session_id, number, position))
    return view


def answered_view(session_id: str, outcome: QuizAnswerOutcome) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for position in range(len(outcome.order)):
        if position == outcome.correct_position:
            style = discord.ButtonStyle.success
        elif position == outcome.chosen_position:
            style = discord.ButtonStyle.danger
        else:
            style = discord.ButtonStyle.secondary
        view.add_item(
            AnswerButton(session_id, outcome.number, position, style=style, disabled=True)
        )
    label = t("quiz.finish" if outcome.is_last else "quiz.next", outcome.locale)
    view.add_item(NextButton(session_id, label=label))
    if outcome.question.demo:
        view.add_item(
            ShowDemoButton(outcome.question.demo, label=t("quiz.show_me", outcome.locale))
        )
    return view


def render_step(bank: QuizBank, step: QuizStep) -> tuple[discord.Embed, discord.ui.View]:
    quiz = bank.quiz_of(step.question.id)
    locale = step.session.locale
    embed = question_embed(quiz, step.question, step.order, locale, step.number, step.total)
    return embed, question_view(step.session.id, step.number, len(step.order))


async def answer_question(
    interaction: discord.Interaction, session_id: str, number: int, position: int
) -> None:
    services = services_of(interaction)
    outcome = await services.sessions.answer(session_id, interaction.user.id, position, number)
    quiz = services.bank.quiz_of(outcome.question.id)
    embed = answered_embed(
        quiz,
        outcome.question,
        outcome.order,
        outcome.locale,
        outcome.number,
        outcome.total,
        outcome.chosen_position,
    )
    await interaction.response.edit_message(embed=embed, view=answered_view(session_id, outcome))


async def next_question(interaction: discord.Interaction, session_id: str) -> None:
    services = services_of(interaction)
    step = await services.sessions.next(session_id, interaction.user.id)
    if isinstance(step, QuizSummary):
        locale = interaction_locale(interaction)
        # What the answers left to practise: mistakes are due at once (/quiz review).
        reviews = await services.sessions.reviews.counts(interaction.user.id, interaction.guild_id)
        embed = summary_embed(locale, step.score, step.total, step.elapsed, reviews=reviews)
        await interaction.response.edit_message(embed=embed, view=None)
        return
    embed, view = render_step(services.bank, step)
    await interaction.response.edit_message(embed=embed, view=view)


# -- demos ----------------------------------------------------------------------------


class ShowDemoButton(PersistentButton, template=r"demo:(?P<name>[a-z][a-z0-9-]{1,39})"):
    """After an answer: run the question's demo for whoever clicks (privately)."""

    def __init__(self, name: str, *, label: str = "Show me") -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                emoji="🔬",
                style=discord.ButtonStyle.secondary,
                custom_id=f"demo:{name}",
            ),
            row=1,
        )
        self.name = name

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ShowDemoButton:
        return cls(match["name"])

    async def pressed(self, interaction: discord.Interaction) -> None:
        await run_demo_for(interaction, self.name, {}, ephemeral=True)


async def run_demo_for(
    interaction: discord.Interaction, name: str, params: dict[str, Any], *, ephemeral: bool
) -> None:
    """Defer, queue the demo, report the queue place, then answer with the result."""
    from bot.services.demo_runner import (
        DemoCrashed,
        DemoFailed,
        DemoQueueFull,
        DemoRunnerClosed,
        DemoTimeout,
        check_demo,
    )

    locale = interaction_locale(interaction)
    services = services_of(interaction)
    # The per-member cooldown belongs to the /demo cog (absent when it is not loaded).
    client: Any = interaction.client
    cooldown: Cooldown | None = getattr(client.get_cog("DemoCog"), "cooldown", None)
    clean = check_demo(name, params)
    if services.demos is None:
        raise UserError("demo.disabled")
    if cooldown is not None:
        wait = cooldown.use(interaction.user.id)
        if wait:
            raise UserError("cooldown", seconds=max(1, round(wait)))
    await interaction.response.defer(ephemeral=ephemeral, thinking=True)

    async def tell_position(position: int) -> None:
        if position > 0:
            await interaction.edit_original_response(
                content=t("demo.queued", locale, position=position)
            )

    try:
        result = await services.demos.run(name, clean, on_queue_position=tell_position)
    except DemoQueueFull:
        if cooldown is not None:
            cooldown.reset(interaction.user.id)
        await interaction.edit_original_response(content=ERROR_PREFIX + t("demo.busy", locale))
        return
    except DemoTimeout:
        await interaction.edit_original_response(content=ERROR_PREFIX + t("demo.timeout", locale))
        log.warning("demo timed out", extra=log_context(interaction))
        return
    except (DemoCrashed, DemoFailed, DemoRunnerClosed):
        await interaction.edit_original_response(content=ERROR_PREFIX + t("demo.crashed", locale))
        log.exception("demo failed", extra=log_context(interaction))
        return
    snippet = clip(result.snippet, 1900)
    await interaction.edit_original_response(
        content=f"```python\n{snippet}\n```",
        embed=demo_embed(result, locale),
        attachments=[discord.File(io.BytesIO(result.png), filename=f"{result.demo}.png")],
    )


# -- leaderboard ------------------------------------------------------------------------


class PageButton(
    PersistentButton,
    template=(
        rf"lb:(?P<by>{'|'.join(LEADERBOARD_ORDERS)}):(?P<page>[0-9]{{1,4}})"
        rf":(?P<locale>{'|'.join(SUPPORTED_LOCALES)})"
    ),
):
    """Shows page `page` of the `by` leaderboard when clicked; the locale keeps the
    message in one language whoever pages it."""

    def __init__(
        self, by: str, page: int, locale: str, *, label: str = "▶", disabled: bool = False
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                disabled=disabled,
                custom_id=f"lb:{by}:{page}:{locale}",
            )
        )
        self.by = by
        self.page = page
        self.locale = locale

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> PageButton:
        return cls(match["by"], int(match["page"]), match["locale"])

    async def pressed(self, interaction: discord.Interaction) -> None:
        await show_page(interaction, self.by, self.page, self.locale)


def leaderboard_view(by: str, page: int, pages: int, locale: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(PageButton(by, page - 1, locale, label="◀", disabled=page <= 1))
    view.add_item(PageButton(by, page + 1, locale, label="▶", disabled=page >= pages))
    return view


async def render_page(
    interaction: discord.Interaction, by: str, page: int, locale: str
) -> tuple[discord.Embed | None, discord.ui.View | None, str | None]:
    """The page to show, clamped into range: the board may have shrunk since it was posted."""
    if interaction.guild_id is None:
        raise UserError("perm.guild_only")
    streaks = services_of(interaction).streaks
    page = min(max(page, 1), MAX_PAGE)
    rows, pages = await streaks.leaderboard(interaction.guild_id, by, page, PER_PAGE)
    if pages == 0:
        return None, None, empty_text(by, locale)
    if page > pages:
        page = pages
        rows, pages = await streaks.leaderboard(interaction.guild_id, by, page, PER_PAGE)
    embed = leaderboard_embed(rows, by, page, pages, locale)
    return embed, leaderboard_view(by, page, pages, locale), None


async def show_page(interaction: discord.Interaction, by: str, page: int, locale: str) -> None:
    embed, view, text = await render_page(interaction, by, page, locale)
    # Editing the clicked message (callback type 7) keeps one board per command.
    await interaction.response.edit_message(content=text, embed=embed, view=view)


# Registered once by the bot's setup_hook: a press is handled whichever cogs are loaded.
PERSISTENT_ITEMS: tuple[type[PersistentButton], ...] = (
    AnswerButton,
    NextButton,
    ShowDemoButton,
    PageButton,
)
