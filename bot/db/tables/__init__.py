"""The tables (SQLModel), one module per feature; every table is importable from here.

Alembic's autogenerate and the schema test compare `SQLModel.metadata` (all of these
modules) with the migrations in `bot/storage/migrations`.
"""

from bot.db.base import UTCDateTime
from bot.db.tables.aggregates import (
    ClassMember,
    ClassRecall,
    QuestionTally,
    WeekMember,
    WeekTally,
    WrongTally,
)
from bot.db.tables.community import (
    CommunityAction,
    HiddenQuestion,
    MemberNotice,
    QuestionReport,
    ReportSummary,
    Suggestion,
)
from bot.db.tables.daily import DailyAnswer, DailyPost, GuildDailyConfig, MemberStats
from bot.db.tables.gateway import IdentifyBucket
from bot.db.tables.learning import MemberActivity, MemoryModel, Reminder
from bot.db.tables.live import LiveAnswer, LiveConfig, LivePlayer, LiveQuestion, LiveRound
from bot.db.tables.outbox import Outbox
from bot.db.tables.quiz import CustomQuiz, QuizResult, QuizSession
from bot.db.tables.review import ReviewCard, ReviewLog

__all__ = [
    "ClassMember",
    "ClassRecall",
    "CommunityAction",
    "CustomQuiz",
    "DailyAnswer",
    "DailyPost",
    "GuildDailyConfig",
    "HiddenQuestion",
    "IdentifyBucket",
    "LiveAnswer",
    "LiveConfig",
    "LivePlayer",
    "LiveQuestion",
    "LiveRound",
    "MemberActivity",
    "MemberNotice",
    "MemberStats",
    "MemoryModel",
    "Outbox",
    "QuestionReport",
    "QuestionTally",
    "QuizResult",
    "QuizSession",
    "Reminder",
    "ReportSummary",
    "ReviewCard",
    "ReviewLog",
    "Suggestion",
    "UTCDateTime",
    "WeekMember",
    "WeekTally",
    "WrongTally",
]
