"""The quiz bank: every loaded quiz, looked up by quiz id or question id, and the one rule
of what a server may see (shipped quizzes, its own uploads and community quiz, less the
questions it hid until they are fixed).

A quiz's `generated` entries (templates) share the id space of its questions. The
question-only methods (`visible_questions`, `question`, `all_questions`, `pick_questions`)
see written questions alone; `pick_items` and `visible_generated` see the templates too.
A generated question has no fixed text, so it is never hidden.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterable, Sequence
from typing import cast

from bot.common.errors import UserError
from bot.quizbank.generated import GeneratedQuestion, template_of
from bot.quizbank.schema import Generated, Question, Quiz

#: What one quiz run asks: a written question or a template to draw an instance of.
Item = Question | Generated


class QuizBank:
    def __init__(self, quizzes: Iterable[Quiz]):
        self.quizzes: dict[str, Quiz] = {}
        # Which server a quiz belongs to; shipped quizzes (None) are visible everywhere.
        self._owner: dict[str, int] = {}
        self._questions: dict[str, tuple[Quiz, Question]] = {}
        self._generated: dict[str, tuple[Quiz, Generated]] = {}  # by entry id
        self._template_quizzes: dict[str, list[str]] = {}  # template -> quiz ids, in order
        # Per server: question id -> the fingerprint of the version it hid (see `hide`).
        self._hidden: dict[int, dict[str, str]] = {}
        for quiz in quizzes:
            self.add(quiz)

    def add(self, quiz: Quiz, owner: int | None = None) -> None:
        """Add (or replace) a quiz; `owner` is the server of an uploaded quiz, None if shipped."""
        ids = [q.id for q in quiz.questions] + [e.id for e in quiz.generated]
        clash = [
            item_id
            for item_id in ids
            if (holder := self._holder(item_id)) is not None and holder.id != quiz.id
        ]
        if clash:
            raise ValueError(f"question ids already used by another quiz: {', '.join(clash)}")
        self.remove(quiz.id)
        self.quizzes[quiz.id] = quiz
        if owner is not None:
            self._owner[quiz.id] = owner
        for question in quiz.questions:
            self._questions[question.id] = (quiz, question)
        for entry in quiz.generated:
            self._generated[entry.id] = (quiz, entry)
            self._template_quizzes.setdefault(entry.template, []).append(quiz.id)

    def remove(self, quiz_id: str) -> None:
        old = self.quizzes.pop(quiz_id, None)
        self._owner.pop(quiz_id, None)
        if old is not None:
            for question in old.questions:
                self._questions.pop(question.id, None)
            for entry in old.generated:
                self._generated.pop(entry.id, None)
                holders = self._template_quizzes.get(entry.template, [])
                if quiz_id in holders:
                    holders.remove(quiz_id)
                if not holders:
                    self._template_quizzes.pop(entry.template, None)

    def _holder(self, item_id: str) -> Quiz | None:
        """The quiz of a question id, a generated entry's id or a template's key."""
        if item_id in self._questions:
            return self._questions[item_id][0]
        if item_id in self._generated:
            return self._generated[item_id][0]
        template = template_of(item_id)
        if template is not None and self._template_quizzes.get(template):
            return self.quizzes[self._template_quizzes[template][0]]
        return None

    def owner_of(self, quiz_id: str) -> int | None:
        """The server that uploaded the quiz; None for a shipped quiz (or an unknown id)."""
        return self._owner.get(quiz_id)

    def is_shipped(self, quiz_id: str) -> bool:
        return quiz_id in self.quizzes and quiz_id not in self._owner

    def is_visible(self, quiz_id: str, guild_id: int | None) -> bool:
        """The one visibility rule: shipped quizzes everywhere, an upload in its own server."""
        return quiz_id in self.quizzes and self._owner.get(quiz_id) in (None, guild_id)

    def hide(self, guild_id: int, question_id: str, fingerprint: str) -> None:
        """Hide a question from one server until it is fixed: while the question's
        fingerprint is still `fingerprint` (the version that was reported)."""
        self._hidden.setdefault(guild_id, {})[question_id] = fingerprint

    def unhide(self, guild_id: int, question_id: str) -> None:
        self._hidden.get(guild_id, {}).pop(question_id, None)

    def is_hidden(self, guild_id: int | None, question_id: str) -> bool:
        """Hidden from this server, and not changed since (a fixed question comes back)."""
        if guild_id is None:
            return False
        hid = self._hidden.get(guild_id, {}).get(question_id)
        if hid is None or question_id not in self._questions:
            return False
        return hid == question_fingerprint(self.question(question_id))

    def visible_quizzes(self, guild_id: int | None) -> list[Quiz]:
        """The quizzes a server may see, sorted by id (for lists, autocomplete, daily topics)."""
        return [self.quizzes[i] for i in sorted(self.quizzes) if self.is_visible(i, guild_id)]

    def visible_questions(
        self, guild_id: int | None, topic: str | None = None, *, unknown: str = "quiz.unknown_topic"
    ) -> list[Question]:
        """The questions a server may be asked: of `topic`, or of every quiz it may see,
        less those it hid until they are fixed.

        A topic the server may not see is refused as unknown (the message key `unknown`),
        listing the ones it may see.
        """
        if topic is None:
            quizzes = self.visible_quizzes(guild_id)
        elif not self.is_visible(topic, guild_id):
            available = ", ".join(quiz.id for quiz in self.visible_quizzes(guild_id))
            raise UserError(unknown, topic=topic, available=available)
        else:
            quizzes = [self.quizzes[topic]]
        hidden = self._hidden.get(guild_id, {}) if guild_id is not None else {}
        return [
            question
            for quiz in quizzes
            for question in quiz.questions
            if not hidden or not self.is_hidden(guild_id, question.id)
        ]

    def pick_questions(
        self,
        guild_id: int | None,
        topic: str | None,
        count: int | None,
        rng: random.Random,
        *,
        shuffle: bool = True,
    ) -> list[Question]:
        """The questions of one quiz run, for every front end (Discord and the terminal).

        `count` of them (all when None) from `topic` or from every quiz the server may see,
        in a random order; with `shuffle=False` a whole single quiz keeps its file order.
        """
        return cast(list[Question], self.pick_items(guild_id, topic, count, rng, shuffle=shuffle))

    def visible_generated(self, guild_id: int | None, topic: str | None = None) -> list[Generated]:
        """The generated entries a server may be asked, one per template (the first quiz's
        entry when several quizzes name a template): of `topic`, or of every visible quiz."""
        quizzes = self.visible_quizzes(guild_id) if topic is None else [self.quizzes[topic]]
        seen: set[str] = set()
        entries = []
        for quiz in quizzes:
            for entry in quiz.generated:
                if entry.template not in seen:
                    seen.add(entry.template)
                    entries.append(entry)
        return entries

    def templates(self) -> list[str]:
        """Every template some quiz in the bank names (what the instance pool keeps ready)."""
        return list(self._template_quizzes)

    def pick_items(
        self,
        guild_id: int | None,
        topic: str | None,
        count: int | None,
        rng: random.Random,
        *,
        generated: Callable[[str], bool] | None = None,
        shuffle: bool = True,
    ) -> list[Item]:
        """`pick_questions` with the quizzes' templates mixed in: those for which
        `generated(template)` says an instance is ready now (None: no templates). A
        template comes at most once per run; a whole single quiz unshuffled keeps its
        file order, its templates after its questions."""
        items: list[Item] = list(self.visible_questions(guild_id, topic))
        if generated is not None:
            items += [e for e in self.visible_generated(guild_id, topic) if generated(e.template)]
        return _pick(items, topic, count, rng, shuffle)

    def quiz(self, quiz_id: str) -> Quiz:
        return self.quizzes[quiz_id]

    def question(self, question_id: str) -> Question:
        return self._questions[question_id][1]

    def quiz_of(self, question_id: str) -> Quiz:
        """The quiz of a question, of a generated entry, or (a template's key, `gen:NAME`)
        the first quiz that names the template; KeyError when none does."""
        quiz = self._holder(question_id)
        if quiz is None:
            raise KeyError(question_id)
        return quiz

    def all_questions(self, quiz_id: str | None = None) -> list[Question]:
        if quiz_id is not None:
            return list(self.quizzes[quiz_id].questions)
        return [question for quiz in self.quizzes.values() for question in quiz.questions]


def _pick(
    items: Sequence[Item], topic: str | None, count: int | None, rng: random.Random, shuffle: bool
) -> list[Item]:
    if not items:
        raise UserError("quiz.no_questions")
    if count is None:
        count = len(items)
    if isinstance(count, bool) or count < 1:
        raise UserError("quiz.bad_count", count=count, max=len(items))
    count = min(count, len(items))  # more than there are: all of them (the caller says so)
    if shuffle or topic is None or count < len(items):
        return rng.sample(list(items), count)
    return list(items)


def choice_order(n_choices: int, rng: random.Random) -> list[int]:
    """A shuffled display order: position -> index of the choice as written."""
    order = list(range(n_choices))
    rng.shuffle(order)
    return order


def display_order(question: Question, rng: random.Random) -> list[int]:
    """Display position -> choice index for one showing of `question`: shuffled, except a
    generated question's, which its seed already placed, so that `quiztutor generate NAME
    --seed S` shows the same letters as play and Discord. `rng` advances alike either way."""
    shuffled = choice_order(question.n_choices, rng)
    if isinstance(question, GeneratedQuestion):
        return list(range(question.n_choices))
    return shuffled


def question_fingerprint(question: Question) -> str:
    """A short hash of everything a question says: a fix changes it. A question without a
    title (the field came later) hashes as it did before the field existed."""
    data = question.model_dump(mode="json", exclude={"title"} if question.title is None else None)
    canonical = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]
