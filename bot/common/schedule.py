"""When the daily question is posted and revealed: pure functions, no I/O.

Times are handled as aware datetimes; functions return UTC. A guild's "day" is its
local calendar day in its IANA timezone.

DST rules (documented behaviour):
* a post time that does not exist on a day (spring-forward gap, e.g. 02:30 in
  Los Angeles on 2026-03-08) moves forward by the gap: it is posted at 03:30;
* a post time that happens twice (fall-back fold, 01:30 on 2026-11-01) is posted
  at the first occurrence.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apscheduler.triggers.cron import CronTrigger

from bot.common.errors import UserError

REVEAL_AFTER_MIN_HOURS = 1
REVEAL_AFTER_MAX_HOURS = 23
# By default the answer is revealed this long before the next day's post.
DEFAULT_REVEAL_LEAD = timedelta(minutes=1)

_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")
_ZONE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*$")


@dataclass(frozen=True)
class DailySchedule:
    post_time: time
    tz: ZoneInfo
    reveal_after_hours: int | None = None


def parse_post_time(value: str) -> time:
    """ "HH:MM" on a 24-hour clock ("7:05" is accepted too); anything else is refused."""
    match = _TIME.match(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise UserError("daily.bad_time", value=value)
    return time(int(match.group(1)), int(match.group(2)))


def format_post_time(value: time) -> str:
    return f"{value.hour:02d}:{value.minute:02d}"


def parse_timezone(name: str) -> ZoneInfo:
    """An IANA zone such as Asia/Jakarta; empty, path-like or unknown names are refused."""
    cleaned = name.strip() if isinstance(name, str) else ""
    # The pattern refuses "", "/etc/passwd", "../x" and backslashes before zoneinfo
    # turns the name into a file path.
    if not _ZONE_NAME.match(cleaned) or ".." in cleaned:
        raise UserError("daily.bad_timezone", value=name)
    try:
        return ZoneInfo(cleaned)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise UserError("daily.bad_timezone", value=name) from None


def parse_reveal_after(hours: int | None) -> int | None:
    """Whole hours 1..23 after the post, or None for "just before the next post"."""
    if hours is None:
        return None
    if (
        isinstance(hours, bool)
        or not isinstance(hours, int)
        or not REVEAL_AFTER_MIN_HOURS <= hours <= REVEAL_AFTER_MAX_HOURS
    ):
        raise UserError(
            "daily.bad_reveal_after",
            value=hours,
            min=REVEAL_AFTER_MIN_HOURS,
            max=REVEAL_AFTER_MAX_HOURS,
        )
    return hours


def _require_aware(now: datetime) -> None:
    if now.tzinfo is None:
        raise ValueError("pass an aware datetime (UTC)")


def local_day(now: datetime, tz: ZoneInfo) -> date:
    _require_aware(now)
    return now.astimezone(tz).date()


def post_datetime(day: date, post_time: time, tz: ZoneInfo) -> datetime:
    """The UTC instant of `post_time` on local `day` (DST: see the module docstring)."""
    # fold=0 gives the first occurrence in a fold and, in a gap, the offset from before
    # the change, which lands the same distance past the gap's end (02:30 -> 03:30).
    local = datetime.combine(day, post_time, tzinfo=tz).replace(fold=0)
    return local.astimezone(UTC)


def post_trigger(schedule: DailySchedule) -> CronTrigger:
    """The daily post's trigger: the scheduler's job runs on it, and `next_post_at` asks
    it, so `/daily status` and the job never disagree (APScheduler's own DST handling)."""
    return CronTrigger(
        hour=schedule.post_time.hour, minute=schedule.post_time.minute, timezone=schedule.tz
    )


def next_post_at(now: datetime, schedule: DailySchedule) -> datetime:
    """The first post instant strictly after `now` (UTC), from the job's own trigger."""
    # The trigger answers "at or after", rounded up to a whole second.
    fire = post_trigger(schedule).get_next_fire_time(None, now + timedelta(microseconds=1))
    assert fire is not None  # a cron trigger without an end date always fires again
    return fire.astimezone(UTC)


def reveal_at(post_day: date, schedule: DailySchedule) -> datetime:
    """Post time + reveal_after hours, never later than just before the next post."""
    posted = post_datetime(post_day, schedule.post_time, schedule.tz)
    before_next = (
        post_datetime(post_day + timedelta(days=1), schedule.post_time, schedule.tz)
        - DEFAULT_REVEAL_LEAD
    )
    if schedule.reveal_after_hours is None:
        return before_next
    # On a 23-hour DST day "+23 h" would reach the next post; cap it.
    return min(posted + timedelta(hours=schedule.reveal_after_hours), before_next)


def should_catch_up(now: datetime, schedule: DailySchedule, last_post_day: date | None) -> bool:
    """Post now (at start-up) for a missed post time?

    Yes when today's post time has passed, today has no post yet, and today's
    question would still be open (before its reveal time). A post whose local day
    is over is never made late: `today` is always the current local day.
    """
    today = local_day(now, schedule.tz)
    if last_post_day is not None and last_post_day >= today:
        return False
    return post_datetime(today, schedule.post_time, schedule.tz) <= now < reveal_at(today, schedule)


def choose_question(
    guild_id: int, day: date, questions: Sequence[str], recently_used: Sequence[str]
) -> str:
    """Today's question id: deterministic for (guild, day), no repeats until all are used.

    `recently_used` is the guild's past daily question ids, oldest first. Walking it
    splits the history into cycles that each cover the whole pool; the question is
    drawn from those the current cycle has not used yet. When a new cycle starts, the
    last posted question is avoided so a question never comes twice in a row.
    """
    pool = sorted(set(questions))
    if not pool:
        raise UserError("daily.no_questions")
    members = set(pool)
    used: set[str] = set()
    for question_id in recently_used:
        if question_id in members:
            used.add(question_id)
            if len(used) == len(members):
                used = set()
    candidates = [q for q in pool if q not in used]
    if not used and len(pool) > 1 and recently_used and recently_used[-1] in members:
        candidates.remove(recently_used[-1])
    # A str seed is hashed with SHA-512: the same on every run and every process.
    rng = random.Random(f"{guild_id}:{day.isoformat()}")
    return rng.choice(candidates)
