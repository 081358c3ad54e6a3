"""Shared gateway state of the shard processes on one database."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from bot.db.base import when


class IdentifyBucket(SQLModel, table=True):
    """One of Discord's IDENTIFY buckets (`shard_id % max_concurrency`): when a process
    last took its turn to IDENTIFY, so the next one in the bucket waits out the window."""

    __tablename__ = "identify_bucket"

    bucket: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    last_at: datetime = when()
    holder: str = Field(max_length=64)
