"""Storage: the async database (SQLite or PostgreSQL), its tables, the batched answer
writer, backups and health checks."""

from bot.storage.backup import backup
from bot.storage.database import DEFAULT_URL, Database
from bot.storage.models import (
    ClassMember,
    CustomQuiz,
    DailyAnswer,
    DailyPost,
    GuildDailyConfig,
    MemberStats,
    Outbox,
    QuizResult,
    QuizSession,
    ReviewCard,
    ReviewLog,
)
from bot.storage.writer import AnswerWriter, WriterClosed

__all__ = [
    "DEFAULT_URL",
    "AnswerWriter",
    "ClassMember",
    "CustomQuiz",
    "DailyAnswer",
    "DailyPost",
    "Database",
    "GuildDailyConfig",
    "MemberStats",
    "Outbox",
    "QuizResult",
    "QuizSession",
    "ReviewCard",
    "ReviewLog",
    "WriterClosed",
    "backup",
]
