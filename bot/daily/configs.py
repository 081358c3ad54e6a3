"""A server's daily configuration: `/daily setup|off|status`, and the schedule it implies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from bot.common.errors import UserError
from bot.common.i18n import DEFAULT_LOCALE
from bot.common.schedule import (
    DailySchedule,
    format_post_time,
    next_post_at,
    parse_post_time,
    parse_reveal_after,
    parse_timezone,
)
from bot.daily import configs_store, posts_store
from bot.daily.choice_rules import parse_repeat_after
from bot.daily.open_posts import OpenPosts
from bot.daily.types import ANSWER_MODES, LOCALES
from bot.db.database import Database
from bot.db.tables.daily import DailyPost, GuildDailyConfig
from bot.learning.memory_rules import parse_retention
from bot.quizbank import QuizBank


def schedule_for(config: GuildDailyConfig) -> DailySchedule:
    return DailySchedule(
        post_time=parse_post_time(config.post_time),
        tz=parse_timezone(config.timezone),
        reveal_after_hours=config.reveal_after_hours,
    )


@dataclass(frozen=True)
class DailyStatus:
    config: GuildDailyConfig
    next_post_at: datetime | None  # None while disabled
    last_post: DailyPost | None


class DailyConfigs:
    def __init__(
        self, db: Database, bank: QuizBank, clock: Callable[[], datetime], open_posts: OpenPosts
    ) -> None:
        self.db = db
        self.bank = bank
        self.clock = clock
        self.open_posts = open_posts

    async def configure(
        self,
        guild_id: int,
        channel_id: int,
        time: str,
        timezone: str,
        topic: str | None = None,
        reveal_after: int | None = None,
        locale: str = DEFAULT_LOCALE,
        repeat_after: int | None = None,
        retention: float | None = None,
        answer_mode: str | None = None,
        discussion: bool | None = None,
    ) -> GuildDailyConfig:
        """`repeat_after`: days without a repeat; `retention`: the target retention
        (0.80-0.97); `answer_mode`: reactions | buttons (from the next post on);
        `discussion`: a thread at each reveal. None keeps the current setting (30 days,
        0.90, reactions, no discussion at first)."""
        post_time = parse_post_time(time)
        parse_timezone(timezone)
        parse_reveal_after(reveal_after)
        parse_repeat_after(repeat_after)
        retention = parse_retention(retention)
        if not self.bank.visible_questions(guild_id, topic, unknown="daily.unknown_topic"):
            raise UserError("daily.no_questions")
        if locale not in LOCALES:
            raise UserError("daily.bad_locale", value=locale, allowed=", ".join(LOCALES))
        if answer_mode is not None and answer_mode not in ANSWER_MODES:
            raise UserError(
                "daily.bad_answer_mode", value=answer_mode, allowed=", ".join(ANSWER_MODES)
            )
        config = await configs_store.save(
            self.db,
            guild_id,
            self.clock(),
            channel_id=channel_id,
            post_time=format_post_time(post_time),
            timezone=timezone.strip(),
            topic=topic,
            reveal_after_hours=reveal_after,
            locale=locale,
            repeat_after_days=repeat_after,
            retention=retention,
            answer_mode=answer_mode,
            discussion=discussion,
        )
        self.open_posts.channels.add(channel_id)
        return config

    async def status(self, guild_id: int) -> DailyStatus | None:
        config = await configs_store.get(self.db, guild_id)
        if config is None:
            return None
        last = await posts_store.latest(self.db, guild_id)
        upcoming = next_post_at(self.clock(), schedule_for(config)) if config.enabled else None
        return DailyStatus(config, upcoming, last)
