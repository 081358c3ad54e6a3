"""What a live round's driver needs from Discord (the live cog implements it with
discord.py), and the views of a round its messages are drawn from."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from bot.db.tables.live import LiveRound
from bot.live.rules import Answer, EndReason, Standing


@dataclass(frozen=True)
class RoundView:
    """What every message of a round needs to know about it."""

    round_id: int
    guild_id: int
    channel_id: int  # where /quiz live ran
    thread_id: int  # where the round plays (the channel itself without a thread)
    in_thread: bool
    host_id: int
    locale: str
    topic: str | None
    total: int
    seconds: int

    @classmethod
    def of(cls, row: LiveRound) -> RoundView:
        assert row.id is not None
        return cls(
            row.id,
            row.guild_id,
            row.channel_id,
            row.thread_id if row.thread_id is not None else row.channel_id,
            row.in_thread,
            row.host_id,
            row.locale,
            row.topic,
            len(row.question_ids),
            row.seconds,
        )


@dataclass(frozen=True)
class QuestionView:
    round: RoundView
    number: int  # 1-based
    question_id: str
    order: list[int]  # display position -> index of the choice as written
    closes_at: datetime
    answered: int
    closed: bool = False
    instance: dict[str, Any] | None = None  # a generated question's, stored with the round


@dataclass(frozen=True)
class Reveal:
    round: RoundView
    number: int
    question_id: str
    order: list[int]
    distribution: list[int]  # answers per display position
    fastest: list[Answer]  # the fastest right answers
    answered: int
    message_id: int | None  # the question's message (the reveal replies to it)
    instance: dict[str, Any] | None = None  # a generated question's, stored with the round


@dataclass(frozen=True)
class Scoreboard:
    round: RoundView
    top: list[Standing]
    players: int  # who answered at least once
    asked: int  # questions revealed
    reason: EndReason


class LivePublisher(Protocol):
    """Every call raises `PublishRefused` for 403 (FORBIDDEN) or 404 (NOT_FOUND)."""

    async def post_question(self, view: QuestionView, nonce: str) -> int:
        """Send the question with its buttons; the message id. A resend with the same
        nonce returns the message already sent."""
        ...

    async def edit_question(self, view: QuestionView, message_id: int) -> None:
        """The live count, or (closed) the buttons disabled."""
        ...

    async def edit_lobby(self, round: RoundView, message_id: int, started: bool) -> None: ...

    async def post_reveal(self, reveal: Reveal, nonce: str) -> int:
        """The reveal, as a reply to the question's message when there is one."""
        ...

    async def find_reveal(
        self, round: RoundView, question_message_id: int, since: datetime
    ) -> int | None:
        """The bot's reply to the question sent after `since` (a reveal an attempt of
        unknown outcome may have left), or None."""
        ...

    async def post_scoreboard(self, board: Scoreboard, nonce: str, in_channel: bool) -> int:
        """The scoreboard in the round's thread, or (in_channel) in the channel where the
        round was started (its thread is gone)."""
        ...
