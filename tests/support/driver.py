"""The daily driver without Discord: a fake publisher, one service per "process" on the
test's database, and a clock moved by hand (a pytest plugin: see conftest.py).

Job functions are called directly; APScheduler only holds them (started paused).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, date, datetime
from typing import Any

import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from bot.common.errors import PublishRefused, StopReason
from bot.daily import posts_store
from bot.daily.jobs import DailyJobs
from bot.daily.service import DailyService
from bot.daily.types import RevealSummary
from bot.db.database import Database
from bot.db.tables.daily import DailyPost, GuildDailyConfig
from bot.quizbank import Question, QuizBank
from testkit.times import Clock

G1, G2 = 1, 2
CH1, CH2 = 10, 20
BOT = 999

# 07:30 in Jakarta (UTC+7) on 2026-05-01.
T0 = datetime(2026, 5, 1, 0, 30, tzinfo=UTC)

DAY1 = date(2026, 5, 1)


class FakePublisher:
    """Records what the driver asked Discord to do, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self.refuse: dict[int, StopReason] = {}  # channel id -> PublishRefused reason
        self.broken: set[int] = set()  # channel ids whose posts fail with a server error
        self.failing_reveals = 0  # the next N reveals fail with a server error
        self.reactions: dict[int, list[tuple[int, int]]] = {}  # message id -> (user, choice)
        # The channel as Discord holds it: (post message id, reply id, sent at) per reveal.
        self.replies: list[tuple[int, int, datetime]] = []
        self.clock: Any = None  # when set, reveals are stamped with it (for `find_reveal`)
        self._next_id = 5000

    @property
    def posts(self) -> list[tuple[int, date, str, int]]:
        return [e[1] for e in self.events if e[0] == "post"]

    @property
    def reveals(self) -> list[RevealSummary]:
        return [e[1] for e in self.events if e[0] == "reveal"]

    async def post(
        self, config: GuildDailyConfig, post: DailyPost, question: Question, nonce: str
    ) -> int:
        await asyncio.sleep(0)  # let a concurrent driver interleave
        if config.channel_id in self.refuse:
            raise PublishRefused(self.refuse[config.channel_id])
        if config.channel_id in self.broken:
            raise RuntimeError("503 Service Unavailable")
        self._next_id += 1
        self.events.append(("post", (config.guild_id, post.day, post.question_id, self._next_id)))
        return self._next_id

    async def add_reactions(self, channel_id: int, message_id: int, n_choices: int) -> None:
        self.events.append(("reactions", message_id))

    async def reveal(
        self,
        post: DailyPost,
        question: Question | None,
        summary: RevealSummary,
        locale: str,
        nonce: str,
    ) -> int:
        await asyncio.sleep(0)  # let a concurrent driver interleave
        if self.failing_reveals:
            self.failing_reveals -= 1
            raise RuntimeError("503 Service Unavailable")
        self.events.append(("reveal", summary))
        self._next_id += 1
        assert post.message_id is not None
        sent_at = self.clock() if self.clock is not None else datetime.now(UTC)
        self.replies.append((post.message_id, self._next_id, sent_at))
        return self._next_id

    async def open_discussion(self, post: DailyPost, question: Question | None, locale: str) -> int:
        if post.channel_id in self.refuse:
            raise PublishRefused(self.refuse[post.channel_id])
        assert post.message_id is not None
        self.events.append(("discussion", post.message_id))
        return post.message_id

    async def find_reveal(self, post: DailyPost, since: datetime) -> int | None:
        self.events.append(("find_reveal", post.message_id))
        for replied_to, reply_id, sent_at in self.replies:
            if replied_to == post.message_id and sent_at >= since:
                return reply_id
        return None

    async def fetch_reactions(self, post: DailyPost, n_choices: int) -> list[tuple[int, int]]:
        assert post.message_id is not None
        return list(self.reactions.get(post.message_id, []))


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def publisher(clock: Clock) -> FakePublisher:
    fake = FakePublisher()
    fake.clock = clock
    return fake


@pytest.fixture
async def make_daily(
    open_db: Callable[[], Awaitable[Database]], bank: QuizBank, clock: Clock
) -> AsyncIterator[Callable[[], Awaitable[DailyService]]]:
    """A DailyService on its own connection to the test's file (one per "process")."""
    services: list[DailyService] = []

    async def make() -> DailyService:
        service = DailyService(await open_db(), bank, clock=clock)
        await service.start()
        services.append(service)
        return service

    yield make
    for service in services:
        await service.close()


@pytest.fixture
async def daily(make_daily: Callable[[], Awaitable[DailyService]]) -> DailyService:
    return await make_daily()


@pytest.fixture
async def make_jobs(
    publisher: FakePublisher, clock: Clock
) -> AsyncIterator[Callable[[DailyService], DailyJobs]]:
    """A driver per "process". Its scheduler is started paused: jobs are stored (and
    replaced) as in production, but only ever run when a test calls them."""
    schedulers: list[AsyncIOScheduler] = []

    def make(daily: DailyService) -> DailyJobs:
        scheduler = AsyncIOScheduler(timezone=UTC)
        scheduler.start(paused=True)
        schedulers.append(scheduler)
        return DailyJobs(daily, publisher, scheduler, clock=clock, own_user_id=lambda: BOT)

    yield make
    for scheduler in schedulers:
        scheduler.shutdown(wait=False)


@pytest.fixture
async def jobs(daily: DailyService, make_jobs: Callable[[DailyService], DailyJobs]) -> DailyJobs:
    return make_jobs(daily)


@pytest.fixture
def new_jobs(
    make_daily: Callable[[], Awaitable[DailyService]],
    make_jobs: Callable[[DailyService], DailyJobs],
) -> Callable[[], Awaitable[DailyJobs]]:
    """The driver of a new "process" on the test's database, with its own service and
    connection: a restart, or a second process running at the same time."""

    async def make() -> DailyJobs:
        return make_jobs(await make_daily())

    return make


async def configure(daily: DailyService, guild_id: int = G1, **kw: Any) -> GuildDailyConfig:
    values: dict[str, Any] = {
        "channel_id": CH1 if guild_id == G1 else CH2,
        "time": "07:30",
        "timezone": "Asia/Jakarta",
        "topic": "mixed",
    }
    values.update(kw)
    return await daily.configs.configure(guild_id, **values)


async def post_of(daily: DailyService, guild_id: int, day: date) -> DailyPost:
    post = await posts_store.for_day(daily.db, guild_id, day)
    assert post is not None and post.id is not None and post.message_id is not None
    return post
