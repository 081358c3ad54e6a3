"""A server's daily configuration: `/daily setup|off|status`, and the schedule it implies."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import update
from sqlmodel import col, select

from bot.core.errors import StopReason, UserError
from bot.core.schedule import (
    DailySchedule,
    format_post_time,
    next_post_at,
    parse_post_time,
    parse_reveal_after,
    parse_timezone,
)
from bot.services.daily.base import DailyBase
from bot.services.daily.choice import parse_repeat_after
from bot.storage import (
    DailyPost,
    GuildDailyConfig,
)

LOCALES = ("id", "en")


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


class DailyConfigs(DailyBase):
    async def configure(
        self,
        guild_id: int,
        channel_id: int,
        time: str,
        timezone: str,
        topic: str | None = None,
        reveal_after: int | None = None,
        locale: str = "id",
        repeat_after: int | None = None,
    ) -> GuildDailyConfig:
        """`repeat_after`: days without a repeat; None keeps the current setting (30 at first)."""
        post_time = parse_post_time(time)
        parse_timezone(timezone)
        parse_reveal_after(reveal_after)
        parse_repeat_after(repeat_after)
        if not self.bank.visible_questions(guild_id, topic, unknown="daily.unknown_topic"):
            raise UserError("daily.no_questions")
        if locale not in LOCALES:
            raise UserError("daily.bad_locale", value=locale, allowed=", ".join(LOCALES))
        async with self.db.session() as session:
            config = await session.get(GuildDailyConfig, guild_id) or GuildDailyConfig(
                guild_id=guild_id, channel_id=channel_id, post_time="", timezone=""
            )
            config.channel_id = channel_id
            config.post_time = format_post_time(post_time)
            config.timezone = timezone.strip()
            config.topic = topic
            config.reveal_after_hours = reveal_after
            config.locale = locale
            if repeat_after is not None:
                config.repeat_after_days = repeat_after
            # Reconfiguring is how an admin answers "posting failed": start again.
            config.enabled = True
            config.disabled_reason = None
            config.admin_notified = False
            config.updated_at = self.clock()
            session.add(config)
            await session.commit()
        self._daily_channels.add(channel_id)
        return config

    async def config(self, guild_id: int) -> GuildDailyConfig | None:
        async with self.db.session() as session:
            return await session.get(GuildDailyConfig, guild_id)

    async def status(self, guild_id: int) -> DailyStatus | None:
        config = await self.config(guild_id)
        if config is None:
            return None
        async with self.db.session() as session:
            last = (
                await session.exec(
                    select(DailyPost)
                    .where(DailyPost.guild_id == guild_id)
                    .order_by(col(DailyPost.day).desc())
                    .limit(1)
                )
            ).first()
        upcoming = next_post_at(self.clock(), schedule_for(config)) if config.enabled else None
        return DailyStatus(config, upcoming, last)

    async def disable(self, guild_id: int, reason: StopReason | None = None) -> bool:
        """Stop posting. `reason` is set when Discord refused for good."""
        async with self.db.session() as session:
            config = await session.get(GuildDailyConfig, guild_id)
            if config is None:
                return False
            config.enabled = False
            config.disabled_reason = reason
            config.admin_notified = False
            config.updated_at = self.clock()
            await session.commit()
        return True

    async def mark_admin_notified(self, guild_id: int) -> None:
        async with self.db.session() as session:
            await session.exec(
                update(GuildDailyConfig)
                .where(col(GuildDailyConfig.guild_id) == guild_id)
                .values(admin_notified=True)
            )
            await session.commit()

    async def enabled_configs(self) -> list[GuildDailyConfig]:
        async with self.db.session() as session:
            query = select(GuildDailyConfig).where(col(GuildDailyConfig.enabled).is_(True))
            return list((await session.exec(query)).all())
