"""What the reaction handler knows about an open post, and the outcome of grading one answer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum

from bot.storage import (
    DailyPost,
)


@dataclass(frozen=True)
class OpenPost:
    """What the reaction handler needs about a posted, unsettled daily question."""

    post_id: int
    guild_id: int
    day: date
    question_id: str
    channel_id: int
    message_id: int
    reveal_at: datetime


class AnswerStatus(StrEnum):
    RECORDED = "recorded"  # the member's first answer, stored
    DUPLICATE = "duplicate"  # the member had answered already: ignored
    CLOSED = "closed"  # revealed/settled, or the question is gone: ignored
    INVALID = "invalid"  # not one of the choices


@dataclass(frozen=True)
class DailyAnswerOutcome:
    status: AnswerStatus
    correct: bool | None = None


def _open_post(post: DailyPost) -> OpenPost:
    assert post.id is not None and post.message_id is not None
    return OpenPost(
        post.id,
        post.guild_id,
        post.day,
        post.question_id,
        post.channel_id,
        post.message_id,
        post.reveal_at,
    )
