"""What the outbox sends for live rounds: a question's reveal and a round's scoreboard.

Both are owed in the transaction that closes the question (or ends the round), so a
crash cannot lose them, and each goes out with a nonce derived from its outbox item, so
a resend cannot double them. A thread that is gone ends the round (its scores are kept);
the scoreboard then goes to the channel the round was started in.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from bot.common.errors import PublishRefused, StopReason
from bot.db.database import Database
from bot.db.tables.live import LiveRound
from bot.db.tables.outbox import Outbox
from bot.live import results_store, steps_store, store
from bot.live.publisher import LivePublisher, Reveal, RoundView, Scoreboard
from bot.live.rules import TOP, EndReason, distribution, fastest, rank
from bot.outbox.rules import nonce

log = logging.getLogger("quiztutor.live")


def refusal_reason(refused: PublishRefused) -> EndReason:
    return EndReason.GONE if refused.reason is StopReason.NOT_FOUND else EndReason.FORBIDDEN


class LiveAnnouncements:
    def __init__(
        self, db: Database, publisher: LivePublisher, changed: Callable[[int], None]
    ) -> None:
        self.db = db
        self.publisher = publisher
        self.changed = changed  # a round ended here: its driver looks at it now

    async def _round(self, item: Outbox) -> LiveRound:
        row = None if item.round_id is None else await store.get(self.db, item.round_id)
        if row is None or row.thread_id is None:
            raise PublishRefused(StopReason.NOT_FOUND)  # deleted with its server's data
        return row

    async def _gone(self, row: LiveRound, refused: PublishRefused) -> None:
        assert row.id is not None
        if await steps_store.end(self.db, row.id, refusal_reason(refused)):
            log.warning(
                "Discord refused a live round's reveal; the round ends",
                extra={"guild_id": row.guild_id, "round_id": row.id, "reason": refused.reason},
            )
            self.changed(row.id)

    async def send_reveal(self, item: Outbox) -> int | None:
        assert item.id is not None and item.number is not None
        row = await self._round(item)
        assert row.id is not None
        number = item.number
        question = await results_store.question(self.db, row.id, number)
        order = list(row.choice_orders[number - 1])
        answers = await results_store.answers_of(self.db, row.id, number)
        reveal = Reveal(
            RoundView.of(row),
            number,
            row.question_ids[number - 1],
            order,
            distribution(answers, len(order)),
            fastest(answers),
            len(answers),
            question.message_id if question is not None else None,
            (row.instances or {}).get(str(number - 1)),
        )
        try:
            return await self.publisher.post_reveal(reveal, nonce(item.kind, item.id))
        except PublishRefused as refused:
            await self._gone(row, refused)
            raise

    async def find_reveal(self, item: Outbox, since: datetime) -> int | None:
        """The reveal an attempt of unknown outcome may have left in the thread (the
        outbox asks before sending it again); a reveal replies to its question."""
        assert item.number is not None
        row = await self._round(item)
        assert row.id is not None
        question = await results_store.question(self.db, row.id, item.number)
        if question is None or question.message_id is None:
            return None
        return await self.publisher.find_reveal(RoundView.of(row), question.message_id, since)

    async def send_scoreboard(self, item: Outbox) -> int | None:
        assert item.id is not None
        row = await self._round(item)
        assert row.id is not None
        standings = rank(await results_store.standings(self.db, row.id))
        board = Scoreboard(
            RoundView.of(row),
            standings[:TOP],
            len(standings),
            max(0, row.position + 1),
            EndReason(row.end_reason or EndReason.FINISHED),
        )
        key = nonce(item.kind, item.id)
        try:
            return await self.publisher.post_scoreboard(board, key, in_channel=False)
        except PublishRefused:
            if not row.in_thread:
                raise
        # The thread is gone (or closed to the bot): the scores still reach the channel
        # the round was started in.
        return await self.publisher.post_scoreboard(board, key, in_channel=True)
