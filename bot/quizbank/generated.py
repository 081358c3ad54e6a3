"""Generated questions in the bank's terms (pure): a template's key and one instance shown
as a question.

A quiz file names a template (`generated: [{id, template}]`, `bot.quizbank.schema`);
the instance a member sees is made in the demo worker (torch) and arrives as plain data
(`experiments.generators.Instance`). Answers and review cards are per **template**, not
per instance: their question id is the template's key, ``gen:fp16-round``. The key
cannot clash with a written question's id (ids have no colon), so a member who gets
``fp16-round`` wrong meets a new instance of it in `/quiz review`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import Field

from bot.quizbank.schema import Generated, Question
from experiments.generators.instance import Instance

if TYPE_CHECKING:
    from bot.quizbank.bank import QuizBank

KEY_PREFIX = "gen:"


def template_key(template: str) -> str:
    """The question id of a template's answers and review card."""
    return KEY_PREFIX + template


def template_of(question_id: str) -> str | None:
    """The template a question id stands for; None for a written question's id."""
    return question_id[len(KEY_PREFIX) :] if question_id.startswith(KEY_PREFIX) else None


class GeneratedQuestion(Question):
    """One instance of a template, asked, graded and explained like a written question.

    `id` is the template's key (`template_key`); `template`, `seed` and `params` say which
    instance it is (`quiztutor generate TEMPLATE --seed SEED` prints it again).
    """

    id: str = Field(pattern=r"^gen:[a-z0-9][a-z0-9-]{0,35}$")
    template: str
    seed: int
    params: dict[str, Any]

    def stored(self) -> dict[str, Any]:
        """Plain JSON data for the session row; `GeneratedQuestion.model_validate` reads it."""
        return self.model_dump(mode="json", exclude={"references"})


def generated_question(instance: Instance, entry: Generated | None = None) -> GeneratedQuestion:
    """The question an instance asks; the quiz entry may override its topic and difficulty."""
    fields = instance.question_fields()
    if entry is not None:
        fields["topic"] = entry.topic or fields["topic"]
        fields["difficulty"] = entry.difficulty or fields["difficulty"]
    return GeneratedQuestion.model_validate(
        {
            "id": template_key(instance.template),
            "template": instance.template,
            "seed": instance.seed,
            "params": instance.params,
            **fields,
        }
    )


def asked_question(bank: QuizBank, question_id: str, instance: dict[str, Any] | None) -> Question:
    """The question a post or a round asked: its stored instance (a template's), else the
    bank's written question (KeyError when that has left the bank since)."""
    if instance is not None:
        return GeneratedQuestion.model_validate(instance)
    return bank.question(question_id)
