"""The question a daily post asks: a written one from the bank, or the generated instance
stored with the post (fixed for the post: the same for every member, after a restart too)."""

from __future__ import annotations

from typing import Any

from bot.quizbank import Question, QuizBank
from bot.quizbank.generated import GeneratedQuestion, asked_question


def post_question(
    bank: QuizBank, question_id: str, instance: dict[str, Any] | None
) -> Question | None:
    """The post's question; None when a written question has left the bank since."""
    try:
        return asked_question(bank, question_id, instance)
    except KeyError:
        return None


def instance_grading(instance: dict[str, Any] | None) -> tuple[int, int] | None:
    """(right choice, number of choices) of a stored instance; None without one."""
    if instance is None:
        return None
    question = GeneratedQuestion.model_validate(instance)
    return question.answer, question.n_choices
