"""The daily question service, Discord-free: its parts built once over one shared state.

`daily = DailyService(db, bank); await daily.start(); ...; await daily.close()`, then
`daily.configs` (`/daily setup|off|status`), `daily.posts` (the post lifecycle),
`daily.answers` (grading) and `daily.settling` (closing a day); the queries that need no
more than the database are the store modules' (`bot.daily.posts_store`, ...). With `pool`
(the generated questions' instance pool) a day may ask a template's instance.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime

from bot.common.times import utcnow
from bot.daily.answers import DailyAnswers
from bot.daily.answers_store import answer_writer
from bot.daily.configs import DailyConfigs
from bot.daily.open_posts import OpenPosts
from bot.daily.posts import DailyPosts
from bot.daily.settling import DailySettling
from bot.db.database import Database
from bot.demos.generated import InstancePool
from bot.quizbank import QuizBank

# How long a daily choice waits for the review cards of the server's day settled just
# before (`DailySettling.graded`): the rest of `/daily now`'s 500 ms is the choice's own.
CARDS_WAIT_S = 0.2


class DailyService:
    def __init__(
        self,
        db: Database,
        bank: QuizBank,
        clock: Callable[[], datetime] = utcnow,
        pool: InstancePool | None = None,
    ) -> None:
        self.db = db
        self.bank = bank
        self.clock = clock
        self.writer = answer_writer(db)
        self.open_posts = OpenPosts()
        self.configs = DailyConfigs(db, bank, clock, self.open_posts)
        self.answers = DailyAnswers(db, bank, clock, self.open_posts, self.writer)
        self.settling = DailySettling(db, clock, self.open_posts, self.writer, self.answers)
        # A day's choice reads the class recall its last settled day updates (in the
        # background): the choice waits for the server's pending review cards, within its
        # budget (a big day settled at start-up goes on behind it).
        self.posts = DailyPosts(
            db,
            bank,
            clock,
            self.open_posts,
            pool,
            before_choice=functools.partial(self.settling.graded, within_s=CARDS_WAIT_S),
        )

    async def start(self) -> None:
        await self.writer.start()
        await self.answers.refresh_cache()

    async def close(self) -> None:
        await self.settling.graded()  # the review cards of days settled just now
        await self.writer.close()
