"""Review reminders, the rules: when a member's reminder is due, which day it is for, and
how the reminders of one moment are spread out.

A member turns reminders on in a server (`/quiz remind on [time] [min_due] [timezone]`):
at most once a day, at `time` in their timezone (default: the server's daily-question
timezone, else UTC), when at least `min_due` of their reviews of that server's questions
are due, the bot sends a DM with the count and a button that starts `/quiz review` there.
DST: a time that does not exist that day moves forward by the gap, a time that happens
twice counts once, at the first (as the daily post: `bot.common.schedule`).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.common.errors import UserError
from bot.common.schedule import DailySchedule, next_post_at, parse_post_time

DEFAULT_TIME = "19:00"
MIN_DUE_DEFAULT, MIN_DUE_MIN, MIN_DUE_MAX = 5, 1, 100
# A reminder the bot could not send near its time (the bot was down) is skipped when it
# is this late: a 19:00 reminder should not arrive at 03:00.
MAX_LATE = timedelta(hours=3)
# Each run (every RUN_EVERY) owes at most BATCH reminders, spread evenly over SPREAD: at
# most BATCH / SPREAD = 5 DMs a second per process (each DM is two requests: the DM
# channel and the message), well inside Discord's global 50 requests a second.
RUN_EVERY = timedelta(seconds=60)
SPREAD = timedelta(seconds=60)
BATCH = 300


def parse_remind_time(value: str | None) -> time:
    return parse_post_time(DEFAULT_TIME if value is None else value)


def parse_min_due(value: int | None) -> int:
    if value is None:
        return MIN_DUE_DEFAULT
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError("remind.bad_min_due", value=value, min=MIN_DUE_MIN, max=MIN_DUE_MAX)
    if not MIN_DUE_MIN <= value <= MIN_DUE_MAX:
        raise UserError("remind.bad_min_due", value=value, min=MIN_DUE_MIN, max=MIN_DUE_MAX)
    return value


def next_reminder_at(after: datetime, at: time, tz: ZoneInfo) -> datetime:
    """The first reminder instant strictly after `after` (UTC)."""
    return next_post_at(after, DailySchedule(at, tz))


def too_late(scheduled: datetime, now: datetime) -> bool:
    return now - scheduled > MAX_LATE


def spread(n: int) -> list[timedelta]:
    """Offsets of `n` reminders owed at once: evenly over SPREAD (none for one)."""
    return [SPREAD * i / n for i in range(n)]


def outbox_ref(user_id: int, day: date) -> str:
    """The outbox item's key: one reminder per member and local day."""
    return f"{user_id}:{day.isoformat()}"


def user_of_ref(ref: str) -> int:
    return int(ref.split(":", 1)[0])
