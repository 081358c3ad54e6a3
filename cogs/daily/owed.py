"""What the outbox owes a server's daily channel, as `/daily status` and `/daily reveal`
tell an admin: the attempts and the next try, and what an explicit retry did."""

from __future__ import annotations

from datetime import datetime

from bot.common.i18n import t
from bot.common.text import clip
from bot.daily import posts_store
from bot.daily.jobs import DailyJobs
from bot.db.tables.outbox import Outbox
from bot.outbox.rules import Owed
from cogs.ui.style import EMBED_FIELD_MAX, discord_time, message_link


def _next_try(item: Outbox) -> datetime:
    # A claim left behind by a stopped process is taken over when its lease ends.
    if item.claimed_until is not None and item.claimed_until > item.due_at:
        return item.claimed_until
    return item.due_at


async def owed_text(jobs: DailyJobs, guild_id: int, locale: str, now: datetime) -> str:
    """One line per owed item: being sent, cut off, or failed with its next try."""
    lines = []
    for item in await jobs.outbox.pending(guild_id):
        post = None if item.post_id is None else await posts_store.get(jobs.db, item.post_id)
        if post is None:
            continue
        params = {
            "what": t(f"daily.owed_{item.kind}", locale),
            "day": post.day.isoformat(),
            "link": message_link(guild_id, post.channel_id, post.message_id),
            "next": discord_time(_next_try(item)),
        }
        if item.claimed_until is not None and item.claimed_until > now:
            line = t("daily.owed_sending", locale, **params)
        elif item.claimed_by is not None:
            # The process holding it stopped between sending and recording.
            line = t("daily.owed_interrupted", locale, **params)
            line += " " + t("daily.owed_unsure", locale)
        else:
            error = clip(item.last_error or "?", 200)
            line = t("daily.owed_value", locale, attempts=item.attempts, error=error, **params)
            if item.unsure_since is not None:
                line += " " + t("daily.owed_unsure", locale)
        lines.append(line)
    return clip("\n".join(lines), EMBED_FIELD_MAX)


async def retry_reveals_text(jobs: DailyJobs, guild_id: int, locale: str) -> str | None:
    """`/daily reveal` with nothing left to settle: send the owed reveals now (through the
    outbox, still once) and say what happened; None when no reveal is owed."""
    outcomes = await jobs.outbox.retry_owed(guild_id, Owed.REVEAL)
    if not outcomes:
        return None
    now = jobs.clock()
    lines = []
    for delivery, item in outcomes:
        post = None if item.post_id is None else await posts_store.get(jobs.db, item.post_id)
        if post is None:
            continue
        day = post.day.isoformat()
        if item.delivered_at is not None:
            key = "daily.reveal_retry_found" if delivery.found else "daily.reveal_retry_sent"
            link = message_link(guild_id, post.channel_id, item.message_id)
            lines.append(t(key, locale, day=day, link=link))
        elif item.gave_up is not None:
            lines.append(t("daily.reveal_retry_refused", locale, day=day, reason=item.gave_up))
        elif item.claimed_until is not None and item.claimed_until > now:
            lines.append(t("daily.reveal_retry_busy", locale, day=day))
        else:
            error = clip(item.last_error or "?", 200)
            next_try = discord_time(_next_try(item))
            lines.append(
                t(
                    "daily.reveal_retry_failed",
                    locale,
                    day=day,
                    error=error,
                    attempts=item.attempts,
                    next=next_try,
                )
            )
    return "\n".join(lines) or None
