"""The export contract (`quiztutor export --format json`) and the generated JSON Schema."""

from __future__ import annotations

import json
from typing import Any

from bot.quizbank.bank import QuizBank
from bot.quizbank.schema import Quiz


def export_bank(bank: QuizBank) -> dict[str, Any]:
    """Other tools rely on this shape: keep it stable."""
    return {
        "quizzes": [
            {
                "id": quiz.id,
                "title": dict(quiz.title),
                "questions": [
                    {
                        "id": question.id,
                        "prompt": dict(question.prompt),
                        "choices": {
                            locale: list(texts) for locale, texts in question.choices.items()
                        },
                        "answer": question.answer,
                        "explanation": dict(question.explanation),
                        "demo": question.demo,
                    }
                    for question in quiz.questions
                ],
                "generated": [entry.model_dump(exclude_none=True) for entry in quiz.generated],
            }
            for quiz in bank.quizzes.values()
        ]
    }


def json_schema_text() -> str:
    schema = Quiz.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "quiztutor quiz file"
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
