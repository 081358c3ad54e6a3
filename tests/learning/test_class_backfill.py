"""The first day after an upgrade is like any other (issue 37): the members revision 0005
left "not yet counted" are folded into the class recall in the background after start,
and a daily choice that comes first does not do that whole fold itself."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import sqlalchemy as sa
from fsrs import Rating
from sqlmodel import SQLModel

from bot.daily import choice_store
from bot.daily.choice_store import signals_of
from bot.daily.service import DailyService
from bot.db.database import Database
from bot.learning.recall_backfill import ClassBackfill, unfolded_guilds
from bot.learning.recall_rules import CARDS
from bot.learning.recall_store import FOLD_CHUNK, fold
from bot.learning.review_rules import review
from bot.quizbank import QuizBank
from testkit.times import Clock

NOW = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)
BIG, SMALL = 71, 72
MEMBERS = 8000  # hundreds of transactions of fold: far more than a choice may wait for
QUESTIONS = ("mx-01", "mx-02")
MEMBER = SQLModel.metadata.tables["class_member"]
CARD = SQLModel.metadata.tables["review_card"]


async def upgraded_server(
    db: Database,
    guild_id: int,
    members: range,
    questions: tuple[str, ...] = QUESTIONS,
    now: datetime = NOW,
) -> None:
    """What revision 0005 leaves: active members not yet counted, with their cards."""
    rows, cards = [], []
    for user in members:
        rows.append(
            dict(
                guild_id=guild_id,
                user_id=user,
                counted=False,
                last_answered_at=now - timedelta(days=1 + user % 20),
            )
        )
        for k, question in enumerate(questions):
            when = now - timedelta(days=2 + (user + k) % 25)
            card = review(None, Rating.Good if (user + k) % 3 else Rating.Again, when)
            cards.append(
                dict(
                    user_id=user,
                    question_id=question,
                    card=card.to_dict(),
                    due=card.due,
                    last_review=when,
                    reviews=1,
                    lapses=0,
                    open_mistake=False,
                )
            )
    async with db.engine.begin() as conn:
        await conn.execute(sa.insert(MEMBER), rows)
        await conn.execute(sa.insert(CARD), cards)


async def uncounted(db: Database, guild_id: int) -> int:
    async with db.engine.connect() as conn:
        query = sa.select(sa.func.count()).where(
            MEMBER.c.guild_id == guild_id, MEMBER.c.counted == sa.false()
        )
        return int((await conn.execute(query)).scalar_one())


async def test_the_first_choice_after_an_upgrade_leaves_the_fold_to_the_background(
    db: Database, bank: QuizBank
) -> None:
    await upgraded_server(db, BIG, range(1, MEMBERS + 1))
    daily = DailyService(db, bank, clock=Clock(NOW))
    await daily.start()
    try:
        choice = await daily.posts.choose(BIG, date(2026, 6, 1), None, 5)
        assert choice.question_id in {q.id for q in bank.all_questions(None)}
        await choice_store.folds_done()
        # The choice folded for its budget only: most of the class is still to count.
        left = await uncounted(db, BIG)
        assert left > MEMBERS // 2
        backfill = ClassBackfill(db, Clock(NOW))  # as the bot starts it
        backfill.start()
        await backfill.done()
        assert (await uncounted(db, BIG), backfill.folded) == (0, left)
        async with db.session() as session:
            members, found = await signals_of(session, BIG, list(QUESTIONS), NOW)
        assert members == MEMBERS
        assert {q: (s.basis, s.n) for q, s in found.items()} == {
            q: (CARDS, MEMBERS) for q in QUESTIONS
        }
    finally:
        await daily.close()


async def test_the_backfill_folds_every_server_and_stops_between_transactions(
    db: Database,
) -> None:
    await upgraded_server(db, BIG, range(1, 2001))
    await upgraded_server(db, SMALL, range(5001, 5051))
    assert await unfolded_guilds(db) == [BIG, SMALL]
    stopped = ClassBackfill(db, Clock(NOW))
    stopped.start()
    await stopped.close()  # a bot stopped at once: nothing half done, the rest stays
    assert await uncounted(db, BIG) + await uncounted(db, SMALL) == 2050 - stopped.folded
    backfill = ClassBackfill(db, Clock(NOW))
    backfill.start()
    await backfill.done()
    assert await unfolded_guilds(db) == []
    assert stopped.folded + backfill.folded == 2050
    for guild_id, count in ((BIG, 2000), (SMALL, 50)):
        async with db.session() as session:
            members, found = await signals_of(session, guild_id, list(QUESTIONS), NOW)
        assert members == count and all(s.n == count for s in found.values())


class RacedBackfill(ClassBackfill):
    """Its first slice finds another process's fold counting the same members first."""

    raced = False

    async def _slice(self, guild_id: int) -> int:
        if not self.raced:
            self.raced = True
            await fold(self.db, guild_id, NOW, 0.0)  # the other process: one chunk
            return 0
        return await super()._slice(guild_id)


async def test_a_slice_that_counts_no_one_does_not_end_the_backfill(db: Database) -> None:
    await upgraded_server(db, BIG, range(1, 1001))
    backfill = RacedBackfill(db, Clock(NOW))
    backfill.start()
    await backfill.done()
    assert backfill.raced and await unfolded_guilds(db) == []
    assert backfill.folded == 1000 - FOLD_CHUNK  # the other process's chunk
