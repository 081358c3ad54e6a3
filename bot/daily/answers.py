"""Grading answers to open posts: live reactions and button presses (the first answer
counts), answered from the open-post cache, and reactions read back after downtime.

Members answer a *shown position* (the letter on the post); the post's stored order
(`daily_post.choice_order`) says which choice as written it is, and that is what is
graded and stored. A post without an order (made before the shuffle) shows file order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime

from bot.daily import configs_store, posts_store
from bot.daily.answers_store import AnswerWriter, Pending
from bot.daily.open_posts import OpenPosts, open_post
from bot.daily.questions import instance_grading
from bot.daily.types import BUTTONS, AnswerStatus, DailyAnswerOutcome, OpenPost, written_choice
from bot.db.database import Database
from bot.db.tables.daily import DailyPost
from bot.quizbank import QuizBank


class DailyAnswers:
    def __init__(
        self,
        db: Database,
        bank: QuizBank,
        clock: Callable[[], datetime],
        open_posts: OpenPosts,
        writer: AnswerWriter,
    ) -> None:
        self.db = db
        self.bank = bank
        self.clock = clock
        self.open_posts = open_posts
        self.writer = writer

    async def refresh_cache(self) -> None:
        self.open_posts.reset(
            await posts_store.open_posts(self.db), await configs_store.channel_ids(self.db)
        )

    async def post_by_message(
        self, message_id: int, channel_id: int | None = None
    ) -> OpenPost | None:
        """The open post behind a message, for the raw reaction handler.

        Answered from memory for posts this process knows. Pass `channel_id` so a
        reaction outside every daily channel is dismissed without a query; otherwise a
        miss costs one indexed lookup (the post may come from another bot process).
        """
        known = self.open_posts.get(message_id)
        if known is not None:
            return known
        if channel_id is not None and channel_id not in self.open_posts.channels:
            return None
        post = await posts_store.open_by_message(self.db, message_id)
        return None if post is None else self.open_posts.add(post)

    def grading(self, post: OpenPost | DailyPost) -> tuple[int, int] | None:
        """(correct index as written, number of choices) of a post's question; None if a
        written question is gone. A generated post is graded by its stored instance."""
        fixed = (
            post.fixed_grading if isinstance(post, OpenPost) else instance_grading(post.instance)
        )
        if fixed is not None:
            return fixed
        try:
            question = self.bank.question(post.question_id)
        except KeyError:
            return None
        return question.answer, question.n_choices

    async def record(
        self, post: OpenPost, user_id: int, position: int, now: datetime | None = None
    ) -> DailyAnswerOutcome:
        """Grade one answer (the letter shown at `position`); only a member's first counts."""
        queued = self.record_nowait(post, user_id, position, now)
        if isinstance(queued, DailyAnswerOutcome):
            return queued
        correct, written = queued
        if not await written:
            return DailyAnswerOutcome(AnswerStatus.DUPLICATE)
        return DailyAnswerOutcome(AnswerStatus.RECORDED, correct)

    def record_nowait(
        self, post: OpenPost, user_id: int, position: int, now: datetime | None = None
    ) -> DailyAnswerOutcome | tuple[bool, asyncio.Future[bool]]:
        """Grade and queue without awaiting the commit (the gateway and button hot path).

        Returns the outcome when nothing is written (closed, invalid), else whether the
        answer is correct and the writer's future: True once committed as the member's
        first answer, False for a duplicate.
        """
        now = now or self.clock()
        grading = self.grading(post)
        if self.open_posts.is_closed(post.post_id) or now >= post.reveal_at or grading is None:
            return DailyAnswerOutcome(AnswerStatus.CLOSED)
        answer, n_choices = grading
        choice = written_choice(post.order, position)
        if choice is None or not 0 <= choice < n_choices:
            return DailyAnswerOutcome(AnswerStatus.INVALID)
        correct = choice == answer
        return correct, self.writer.submit(Pending(post.post_id, user_id, choice, correct, now))

    async def button_post(self, post_id: int, channel_id: int, message_id: int) -> OpenPost | None:
        """The open buttons post a press names (its button's custom id carries the post id);
        None when it is closed (or forged). Found by the post id from the moment its message
        exists, before the message id is stored; in the channel it was made in, also after
        `/daily setup` moved the next posts."""
        post = self.open_posts.get(message_id)
        if post is None or post.post_id != post_id:
            row = await posts_store.get(self.db, post_id)
            if row is None or row.settled or row.message_id not in (None, message_id):
                return None
            post = (
                self.open_posts.add(row)
                if row.message_id is not None
                else open_post(row, message_id)
            )
        if post.channel_id != channel_id or post.answer_mode != BUTTONS:
            return None
        return post

    async def recover(
        self,
        post: OpenPost | DailyPost,
        reactions: Sequence[tuple[int, int]],
        now: datetime | None = None,
    ) -> int:
        """Store reactions made while the bot was away, in reaction order; idempotent.

        `reactions`: (user, shown position). Unlike live answers this ignores the reveal
        time (the reactions came earlier), but a settled post is never changed. Returns
        how many answers were new.
        """
        post_id = post.post_id if isinstance(post, OpenPost) else post.id
        assert post_id is not None
        grading = self.grading(post)
        if self.open_posts.is_closed(post_id) or grading is None or getattr(post, "settled", False):
            return 0
        answer, n_choices = grading
        order = post.order if isinstance(post, OpenPost) else post.choice_order
        now = now or self.clock()
        valid = [
            (user, choice)
            for user, position in reactions
            if (choice := written_choice(order, position)) is not None and 0 <= choice < n_choices
        ]
        # Submitted together, they reach the writer's queue (and the INSERT) in order.
        results = await asyncio.gather(
            *(
                self.writer.submit(Pending(post_id, user, choice, choice == answer, now))
                for user, choice in valid
            )
        )
        return sum(results)
