"""The daily question, Discord-free: one module per job.

* `config`: a server's settings (`/daily setup|off|status`) and the schedule they imply.
* `posts`: the post lifecycle and its SQL; the claim (UNIQUE(guild_id, day)) decides who
  posts, also across bot processes.
* `choice`: which question a server gets (weakest first, no repeat within K days) and why.
* `grading`: the open-post cache and the grading of reactions (live and read back).
* `settling`: closing a day, streaks, the reveal's summary (and owing the reveal).
* `stats`: participation and accuracy (`/daily stats`).
* `service`: `DailyService`, the one object over those parts.
* `reactions`: which emoji is which answer, reading reaction lists back, the live path.
* `jobs`: `DailyJobs`, the scheduler driver (when to post, reveal, catch up, recover).
* `announcements`: what the outbox sends (answer reactions, reveals).
* `publisher`: what the driver needs from Discord (implemented by the daily cog).

One post: `claim_post` -> the publisher posts -> `set_message` (answer reactions owed)
-> reactions are graded -> at reveal time `settle` (reveal owed) -> the outbox sends.
"""

from bot.services.daily.config import LOCALES, DailyStatus, schedule_for
from bot.services.daily.grading_types import AnswerStatus, DailyAnswerOutcome, OpenPost
from bot.services.daily.jobs import DailyJobs, PostResult, guild_job_id, post_trigger, reveal_job_id
from bot.services.daily.publisher import DailyPublisher
from bot.services.daily.reactions import (
    ANSWER_EMOJI,
    EMOJI_CHOICE,
    AwaitableCount,
    one_answer_each,
    several_answers,
)
from bot.services.daily.service import DailyService
from bot.services.daily.settling import RevealSummary
from bot.services.daily.stats import DayParticipation, GuildOverview

__all__ = [
    "ANSWER_EMOJI",
    "EMOJI_CHOICE",
    "LOCALES",
    "AnswerStatus",
    "AwaitableCount",
    "DailyAnswerOutcome",
    "DailyJobs",
    "DailyPublisher",
    "DailyService",
    "DailyStatus",
    "DayParticipation",
    "GuildOverview",
    "OpenPost",
    "PostResult",
    "RevealSummary",
    "guild_job_id",
    "one_answer_each",
    "post_trigger",
    "reveal_job_id",
    "schedule_for",
    "several_answers",
]
