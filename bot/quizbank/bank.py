"""The quiz bank: every loaded quiz, looked up by quiz id or question id."""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path

from bot.quizbank.loader import SHIPPED_DIR, QuizFileError, load_quizzes
from bot.quizbank.schema import Question, Quiz


class QuizBank:
    def __init__(self, quizzes: Iterable[Quiz]):
        self.quizzes: dict[str, Quiz] = {}
        # Which server a quiz belongs to; shipped quizzes (None) are visible everywhere.
        self.owner: dict[str, int | None] = {}
        self._questions: dict[str, tuple[Quiz, Question]] = {}
        for quiz in quizzes:
            self.add(quiz)

    @classmethod
    def load(cls, paths: Iterable[Path] = (SHIPPED_DIR,)) -> QuizBank:
        """Load and validate; any problem in any file raises QuizFileError."""
        quizzes, problems = load_quizzes(paths)
        if problems:
            raise QuizFileError(problems)
        return cls(quizzes)

    def add(self, quiz: Quiz) -> None:
        clash = [
            q.id
            for q in quiz.questions
            if q.id in self._questions and self._questions[q.id][0].id != quiz.id
        ]
        if clash:
            raise ValueError(f"question ids already used by another quiz: {', '.join(clash)}")
        self.remove(quiz.id)
        self.quizzes[quiz.id] = quiz
        for question in quiz.questions:
            self._questions[question.id] = (quiz, question)

    def remove(self, quiz_id: str) -> None:
        old = self.quizzes.pop(quiz_id, None)
        self.owner.pop(quiz_id, None)
        if old is not None:
            for question in old.questions:
                self._questions.pop(question.id, None)

    def visible_quizzes(self, guild_id: int | None) -> list[Quiz]:
        return [
            quiz
            for quiz_id, quiz in self.quizzes.items()
            if self.owner.get(quiz_id) in (None, guild_id)
        ]

    def is_visible(self, quiz_id: str, guild_id: int | None) -> bool:
        return quiz_id in self.quizzes and self.owner.get(quiz_id) in (None, guild_id)

    def quiz(self, quiz_id: str) -> Quiz:
        return self.quizzes[quiz_id]

    def question(self, question_id: str) -> Question:
        return self._questions[question_id][1]

    def quiz_of(self, question_id: str) -> Quiz:
        return self._questions[question_id][0]

    def all_questions(self, quiz_id: str | None = None) -> list[Question]:
        if quiz_id is not None:
            return list(self.quizzes[quiz_id].questions)
        return [question for quiz in self.quizzes.values() for question in quiz.questions]


def choice_order(n_choices: int, rng: random.Random) -> list[int]:
    """A shuffled display order: position -> index of the choice as written."""
    order = list(range(n_choices))
    rng.shuffle(order)
    return order
