"""The tables (SQLModel), one module per feature; every table is importable from here.

Alembic's autogenerate and the schema test compare `SQLModel.metadata` (all of these
modules) with the migrations in `bot/storage/migrations`.
"""

from bot.storage.models.aggregates import (
    ClassMember,
    ClassRecall,
    QuestionTally,
    WeekMember,
    WeekTally,
    WrongTally,
)
from bot.storage.models.base import UTCDateTime
from bot.storage.models.community import (
    CommunityAction,
    HiddenQuestion,
    MemberNotice,
    QuestionReport,
    ReportSummary,
    Suggestion,
)
from bot.storage.models.daily import DailyAnswer, DailyPost, GuildDailyConfig, MemberStats
from bot.storage.models.gateway import IdentifyBucket
from bot.storage.models.learning import MemberActivity, MemoryModel, Reminder
from bot.storage.models.live import LiveAnswer, LiveConfig, LivePlayer, LiveQuestion, LiveRound
from bot.storage.models.outbox import Outbox
from bot.storage.models.quiz import CustomQuiz, QuizResult, QuizSession
from bot.storage.models.review import ReviewCard, ReviewLog

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
