"""The post lifecycle: the day's question and why, the claim that decides who posts
(UNIQUE(guild_id, day), also across processes), the message id, and the posts the
scheduler driver asks about."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date, datetime
from typing import Any

from bot.core.daily.choice import REPEAT_AFTER_DEFAULT, Choice, choose
from bot.core.quizbank import QuizBank
from bot.services.daily.open_posts import OpenPosts
from bot.storage import DailyPost, Database
from bot.storage.daily import choice, posts
from bot.storage.memory import rules_for


class DailyPosts:
    def __init__(
        self, db: Database, bank: QuizBank, clock: Callable[[], datetime], open_posts: OpenPosts
    ) -> None:
        self.db = db
        self.bank = bank
        self.clock = clock
        self.open_posts = open_posts
        self.before_choice: Callable[[int], Awaitable[None]] | None = None

    async def pick_question(
        self, guild_id: int, day: date, topic: str | None, repeat_after: int = REPEAT_AFTER_DEFAULT
    ) -> str:
        """The day's question id (see `choose`)."""
        return (await self.choose(guild_id, day, topic, repeat_after)).question_id

    async def choose(
        self, guild_id: int, day: date, topic: str | None, repeat_after: int = REPEAT_AFTER_DEFAULT
    ) -> Choice:
        """The day's question and why: not posted within K days, the one the server's
        active members are weakest at, ties by the seeded rotation (`bot.core.daily.choice`)."""
        if self.before_choice is not None:
            await self.before_choice(guild_id)
        # All quizzes this server may see: shipped ones and its own, never another's.
        questions = sorted({q.id for q in self.bank.visible_questions(guild_id, topic)})
        # Learning II: recall by the server's memory model, against its target retention.
        rules = await rules_for(self.db, guild_id)
        history, members, signals = await choice.choice_inputs(
            self.db, guild_id, day, questions, repeat_after, self.clock(), rules.scheduler
        )
        return choose(
            guild_id, day, questions, history, signals, repeat_after, members, rules.retention
        )

    async def claim(
        self,
        guild_id: int,
        day: date,
        question_id: str,
        channel_id: int,
        reveal_at: datetime,
        choice: dict[str, Any] | None = None,
    ) -> DailyPost | None:
        """Reserve (guild, day); None when that day's post exists already (maybe in another process)."""
        return await posts.claim(
            self.db, guild_id, day, question_id, channel_id, reveal_at, self.clock(), choice
        )

    async def release_claim(self, post_id: int) -> None:
        """Give a claim back when posting failed before any message existed (retry later)."""
        await posts.release_claim(self.db, post_id)

    async def set_message(
        self, post_id: int, message_id: int, posted_at: datetime | None = None
    ) -> DailyPost:
        post = await posts.set_message(self.db, post_id, message_id, posted_at or self.clock())
        if not post.settled:
            self.open_posts.add(post)
        return post

    async def get(self, post_id: int) -> DailyPost | None:
        return await posts.get(self.db, post_id)

    async def open(self) -> list[DailyPost]:
        """Posted and not yet settled."""
        return await posts.open_posts(self.db)

    async def due_reveals(self, now: datetime) -> list[DailyPost]:
        """Unsettled posts whose reveal time has come (claimed-but-unposted ones too)."""
        return await posts.due_reveals(self.db, now)

    async def for_day(self, guild_id: int, day: date) -> DailyPost | None:
        return await posts.for_day(self.db, guild_id, day)

    async def unsettled(self, guild_id: int) -> list[DailyPost]:
        """The guild's posts not yet settled, oldest first (`/daily reveal`)."""
        return await posts.unsettled(self.db, guild_id)

    async def unsettled_before(self, guild_id: int, today: date, now: datetime) -> list[DailyPost]:
        """Earlier days' open posts and any whose reveal time has come (before a new post)."""
        return await posts.unsettled_before(self.db, guild_id, today, now)

    async def last_post_days(self) -> dict[int, date]:
        """Each guild's latest post day, in one query (10,000 guilds at start-up)."""
        return await posts.last_post_days(self.db)
