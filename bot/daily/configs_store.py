"""A server's daily configuration (`guild_daily_config`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import update
from sqlmodel import col, select

from bot.common.errors import StopReason
from bot.db.database import Database
from bot.db.tables.daily import GuildDailyConfig


async def get(db: Database, guild_id: int) -> GuildDailyConfig | None:
    async with db.session() as session:
        return await session.get(GuildDailyConfig, guild_id)


async def save(
    db: Database,
    guild_id: int,
    now: datetime,
    *,
    channel_id: int,
    post_time: str,
    timezone: str,
    topic: str | None,
    reveal_after_hours: int | None,
    locale: str,
    repeat_after_days: int | None,
    retention: float | None = None,
    answer_mode: str | None = None,
    discussion: bool | None = None,
) -> GuildDailyConfig:
    """Create or replace the configuration, enabled again (`repeat_after_days`,
    `retention`, `answer_mode` and `discussion` None keep theirs)."""
    async with db.session() as session:
        config = await session.get(GuildDailyConfig, guild_id) or GuildDailyConfig(
            guild_id=guild_id, channel_id=channel_id, post_time="", timezone=""
        )
        config.channel_id = channel_id
        config.post_time = post_time
        config.timezone = timezone
        config.topic = topic
        config.reveal_after_hours = reveal_after_hours
        config.locale = locale
        if repeat_after_days is not None:
            config.repeat_after_days = repeat_after_days
        if retention is not None:
            config.retention = retention
        if answer_mode is not None:
            config.answer_mode = answer_mode
        if discussion is not None:
            config.discussion = discussion
        # Reconfiguring is how an admin answers "posting failed": start again.
        config.enabled = True
        config.disabled_reason = None
        config.admin_notified = False
        config.updated_at = now
        session.add(config)
        await session.commit()
    return config


async def disable(db: Database, guild_id: int, reason: StopReason | None, now: datetime) -> bool:
    async with db.session() as session:
        config = await session.get(GuildDailyConfig, guild_id)
        if config is None:
            return False
        config.enabled = False
        config.disabled_reason = reason
        config.admin_notified = False
        config.updated_at = now
        await session.commit()
    return True


async def refuse_discussion(db: Database, guild_id: int, now: datetime) -> None:
    """Discord refused a discussion thread for good: discussion off, the admin told at
    their next `/daily` command (posting goes on)."""
    async with db.session() as session:
        await session.exec(
            update(GuildDailyConfig)
            .where(col(GuildDailyConfig.guild_id) == guild_id)
            .values(
                discussion=False,
                disabled_reason=StopReason.THREADS_FORBIDDEN,
                admin_notified=False,
                updated_at=now,
            )
        )
        await session.commit()


async def mark_admin_notified(db: Database, guild_id: int) -> None:
    async with db.session() as session:
        await session.exec(
            update(GuildDailyConfig)
            .where(col(GuildDailyConfig.guild_id) == guild_id)
            .values(admin_notified=True)
        )
        await session.commit()


async def enabled(db: Database) -> list[GuildDailyConfig]:
    async with db.session() as session:
        query = select(GuildDailyConfig).where(col(GuildDailyConfig.enabled).is_(True))
        return list((await session.exec(query)).all())


async def channel_ids(db: Database) -> set[int]:
    """Every channel a server posts its daily question in (enabled or not)."""
    async with db.session() as session:
        return set((await session.exec(select(GuildDailyConfig.channel_id))).all())
