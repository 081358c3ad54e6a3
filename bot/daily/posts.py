"""The post lifecycle: the day's question and why, and the message id once posted (the
claim that decides who posts, UNIQUE(guild_id, day), is `posts_store.claim`).

The day's question (`plan`) is chosen among the server's written questions and, while
the instance pool has one ready, its quizzes' templates: a template is one candidate
under its key (gen:NAME), with the same repeat window and the same class-recall signal
(its review cards are per template). A chosen template's instance is taken from the
pool and stored with the post; none ready after all: the choice is made again among
the written questions. Every post's choices are shuffled once, the order stored.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from bot.daily import choice_store, posts_store
from bot.daily.choice_rules import REPEAT_AFTER_DEFAULT, Choice, choose
from bot.daily.open_posts import OpenPosts
from bot.db.database import Database
from bot.db.tables.daily import DailyPost
from bot.demos.generated import InstancePool
from bot.learning.memory_store import rules_for
from bot.quizbank import Question, QuizBank, display_order
from bot.quizbank.generated import GeneratedQuestion, generated_question, template_key, template_of


@dataclass(frozen=True)
class Plan:
    """What a day's post will ask: the choice and why, the question, its shown order."""

    choice: Choice
    question: Question
    order: list[int]  # shown position -> index of the choice as written

    @property
    def instance(self) -> dict[str, Any] | None:
        """The generated instance to store with the post (None: a written question)."""
        return self.question.stored() if isinstance(self.question, GeneratedQuestion) else None


class DailyPosts:
    def __init__(
        self,
        db: Database,
        bank: QuizBank,
        clock: Callable[[], datetime],
        open_posts: OpenPosts,
        pool: InstancePool | None = None,
        before_choice: Callable[[int], Awaitable[None]] | None = None,
    ) -> None:
        self.db = db
        self.bank = bank
        self.clock = clock
        self.open_posts = open_posts
        self.pool = pool  # ready generated instances; None: written questions only
        # Awaited before a server's choice (the class recall its last settled day updates).
        self.before_choice = before_choice
        self.rng = random.Random()  # the shuffle of each post's choices (tests seed it)

    async def plan(
        self, guild_id: int, day: date, topic: str | None, repeat_after: int = REPEAT_AFTER_DEFAULT
    ) -> Plan:
        """The day's question (written, or a template's instance) and its shown order."""
        entries = {
            template_key(e.template): e
            for e in self.bank.visible_generated(guild_id, topic)
            if self.pool is not None and self.pool.ready(e.template)
        }
        choice = await self.choose(guild_id, day, topic, repeat_after, list(entries))
        question: Question | None = None
        name = template_of(choice.question_id)
        if name is not None:
            instance = self.pool.take(name) if self.pool is not None else None
            if instance is not None:
                question = generated_question(instance, entries[choice.question_id])
            else:  # taken meanwhile: a written question after all
                choice = await self.choose(guild_id, day, topic, repeat_after)
        if question is None:
            question = self.bank.question(choice.question_id)
        return Plan(choice, question, display_order(question, self.rng))

    async def choose(
        self,
        guild_id: int,
        day: date,
        topic: str | None,
        repeat_after: int = REPEAT_AFTER_DEFAULT,
        templates: Sequence[str] = (),
    ) -> Choice:
        """The day's question and why: not posted within K days, the one the server's
        active members are weakest at, ties by the seeded rotation (`bot.daily.choice_rules`).
        `templates`: the keys (gen:NAME) of templates that may be asked too."""
        # The class's new members folded in and the server's settled day on its cards,
        # each within its budget, side by side.
        waits: list[Awaitable[None]] = [choice_store.fold_briefly(self.db, guild_id, self.clock())]
        if self.before_choice is not None:
            waits.append(self.before_choice(guild_id))
        await asyncio.gather(*waits)
        # All quizzes this server may see: shipped ones and its own, never another's.
        questions = sorted({q.id for q in self.bank.visible_questions(guild_id, topic)})
        questions += sorted(set(templates))
        # Learning II: recall by the server's memory model, against its target retention.
        rules = await rules_for(self.db, guild_id)
        history, members, signals = await choice_store.choice_inputs(
            self.db, guild_id, day, questions, repeat_after, self.clock(), rules.scheduler
        )
        return choose(
            guild_id, day, questions, history, signals, repeat_after, members, rules.retention
        )

    async def set_message(
        self, post_id: int, message_id: int, posted_at: datetime | None = None
    ) -> DailyPost:
        post = await posts_store.set_message(
            self.db, post_id, message_id, posted_at or self.clock()
        )
        if not post.settled:
            self.open_posts.add(post)
        return post
