"""The state every part of the daily service shares: the database, the bank, the clock,
the answer writer and the open-post cache (filled by `grading`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from bot.core.quizbank import QuizBank
from bot.services.daily.grading_types import OpenPost
from bot.storage import (
    AnswerWriter,
    Database,
    utcnow,
)

# A closed post's id is kept this long after its settle, to refuse answers still in flight.
MAX_CLOSED_REMEMBERED = 4096


class DailyBase:
    def __init__(self, db: Database, bank: QuizBank, clock: Callable[[], datetime] = utcnow):
        self.db = db
        self.bank = bank
        self.clock = clock
        self.writer = AnswerWriter(db)
        # message id -> open post: a reaction on any other message costs no query.
        self._open: dict[int, OpenPost] = {}
        # Posts being settled or settled by this process: answers to them are refused.
        self._closed: dict[int, None] = {}
        self._daily_channels: set[int] = set()
