"""The tables (SQLModel), one module per feature; every table is importable from here.

Alembic's autogenerate and the schema test compare `SQLModel.metadata` (all of these
modules) with the migrations in `bot/storage/migrations`.
"""

from bot.community.models import (
    CommunityAction,
    HiddenQuestion,
    MemberNotice,
    QuestionReport,
    ReportSummary,
    Suggestion,
)
from bot.daily.models import DailyAnswer, DailyPost, GuildDailyConfig, MemberStats
from bot.daily.tally_models import (
    ClassMember,
    ClassRecall,
    QuestionTally,
    WeekMember,
    WeekTally,
    WrongTally,
)
from bot.db.base import UTCDateTime
from bot.discord.identify_models import IdentifyBucket
from bot.learning.card_models import ReviewCard, ReviewLog
from bot.learning.models import MemberActivity, MemoryModel, Reminder
from bot.live.models import LiveAnswer, LiveConfig, LivePlayer, LiveQuestion, LiveRound
from bot.outbox.models import Outbox
from bot.quiz.models import CustomQuiz, QuizResult, QuizSession

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
