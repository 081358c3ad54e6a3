"""Storage: the async SQLite database, its tables and the batched answer writer."""

from bot.storage.database import DEFAULT_URL, Database, backup
from bot.storage.models import (
    CustomQuiz,
    DailyAnswer,
    DailyPost,
    GuildDailyConfig,
    MemberStats,
    Outbox,
    QuizResult,
    QuizSession,
    utcnow,
)
from bot.storage.writer import AnswerWriter, WriterClosed

__all__ = [
    "DEFAULT_URL",
    "AnswerWriter",
    "CustomQuiz",
    "DailyAnswer",
    "DailyPost",
    "Database",
    "GuildDailyConfig",
    "MemberStats",
    "Outbox",
    "QuizResult",
    "QuizSession",
    "WriterClosed",
    "backup",
    "utcnow",
]
