"""The quiz file format: pydantic models that are the single source of truth.

`quizzes/quiz.schema.json` is generated from these models (`quiztutor schema`) so
editors can check files while they are written; a test keeps it up to date.
Structural rules (types, unknown keys, lengths) live in the field declarations;
rules that relate fields to each other (every text in every locale, the answer
index inside the choices) are checked by `cross_field_problems`, so each problem
can be reported at the exact path where it occurs.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from experiments.catalog import CATALOG
from experiments.generators.registry import TEMPLATES

# The experiments a question may point at (the torch-free catalog; no torch import).
DEMO_NAMES: tuple[str, ...] = tuple(CATALOG)
# The question templates a quiz may include (the torch-free registry; no torch import).
TEMPLATE_NAMES: tuple[str, ...] = tuple(TEMPLATES)
MAX_GENERATED = 50

LOCALE_PATTERN = r"^[a-z]{2,3}(-[A-Z]{2})?$"
ID_PATTERN = r"^[a-z0-9][a-z0-9-]{0,39}$"
MIN_CHOICES = 2
MAX_CHOICES = 6
# How a choice is named on screen: A, B, ... (one letter per choice a question may have).
CHOICE_LETTERS = "ABCDEF"[:MAX_CHOICES]

Locale = Annotated[str, StringConstraints(pattern=LOCALE_PATTERN)]


# Limits that keep every text inside Discord's: an embed description holds 4096 characters
# (prompt + up to 6 choices), a field 1024 (the explanation), a command choice name 100.
TEXT_MAX = 300
TITLE_MAX = 100
PROMPT_MAX = 1000
CHOICE_MAX = 200
EXPLANATION_MAX = 1000
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=TEXT_MAX)]
TitleText = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=TITLE_MAX)
]
PromptText = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=PROMPT_MAX)
]
ChoiceText = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=CHOICE_MAX)
]
ExplanationText = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=EXPLANATION_MAX)
]
Identifier = Annotated[str, StringConstraints(pattern=ID_PATTERN)]
LocalizedText = dict[Locale, Text]


class _Strict(BaseModel):
    # Unknown keys are almost always typos ("explaination"); say so instead of ignoring them.
    model_config = ConfigDict(extra="forbid", frozen=True)


class Reference(_Strict):
    title: Text
    # No brackets or parentheses: they would close a markdown link around the address.
    url: Annotated[str, StringConstraints(pattern=r"^https?://[^\s\[\]()]+$")]


class Question(_Strict):
    id: Identifier = Field(description="Stable id, unique across all quizzes, e.g. mp-01.")
    title: TitleText | None = Field(
        default=None, description="A name for the question, e.g. Moodle's ::name:: (optional)."
    )
    prompt: dict[Locale, PromptText]
    choices: dict[Locale, list[ChoiceText]] = Field(
        description=f"{MIN_CHOICES} to {MAX_CHOICES} choices per locale, in the same order."
    )
    answer: int = Field(description="0-based index of the correct choice, as written.")
    explanation: dict[Locale, ExplanationText]
    demo: str | None = Field(
        default=None,
        description="An experiment that shows the point: " + ", ".join(DEMO_NAMES),
        json_schema_extra={"enum": [*DEMO_NAMES, None]},
    )
    references: list[Reference] = Field(default_factory=list)
    topic: Identifier | None = Field(
        default=None, description="The idea the question is about, e.g. fp8 or loss-scaling."
    )
    difficulty: Literal[1, 2, 3] | None = Field(
        default=None, description="1 basic, 2 practitioner, 3 expert."
    )
    untranslated: list[Locale] = Field(
        default_factory=list,
        description="Locales whose texts are a copy of another locale's, not yet translated "
        "(an import or a suggestion in one language); `quiztutor validate` warns about them.",
    )
    credit: Text | None = Field(
        default=None, description="Who wrote or suggested the question, shown with its answer."
    )

    def text(self, field: str, locale: str) -> str:
        return pick_locale(getattr(self, field), locale)

    def choice_texts(self, locale: str) -> list[str]:
        return pick_locale(self.choices, locale)

    @property
    def n_choices(self) -> int:
        """Every locale has the same number of choices (checked when the file is loaded)."""
        return len(next(iter(self.choices.values())))


class Generated(_Strict):
    """A generated question: a template (experiments/generators) whose every instance has
    fresh numbers and a right answer computed by torch. It has no text of its own."""

    id: Identifier = Field(
        description="Stable id, unique across all quizzes (questions and generated), e.g. mp-g1."
    )
    template: str = Field(
        description="The template's name (`quiztutor generate --list`).",
        json_schema_extra={"enum": list(TEMPLATE_NAMES)},
    )
    topic: Identifier | None = Field(
        default=None, description="Overrides the template's topic, e.g. fp8 or loss-scaling."
    )
    difficulty: Literal[1, 2, 3] | None = Field(
        default=None, description="Overrides the template's difficulty: 1, 2 or 3."
    )


class Quiz(_Strict):
    id: Identifier = Field(description="Stable quiz id; also the topic name users pick.")
    title: dict[Locale, TitleText]
    description: LocalizedText
    questions: list[Question] = Field(min_length=1, max_length=200)
    generated: list[Generated] = Field(
        default_factory=list,
        max_length=MAX_GENERATED,
        description="Generated questions the quiz mixes in, one per template; without the "
        "demo worker the quiz asks its written questions only.",
    )

    @property
    def locales(self) -> list[str]:
        # The title decides which locales a quiz offers; every other text must follow it.
        return list(self.title)

    def question(self, question_id: str) -> Question:
        for question in self.questions:
            if question.id == question_id:
                return question
        raise KeyError(question_id)


FALLBACK_LOCALE = "en"
T = TypeVar("T")


def pick_locale(localized: dict[str, T], locale: str) -> T:
    """The text for `locale`, falling back to English, then to the first locale given."""
    if locale in localized:
        return localized[locale]
    base = locale.split("-")[0]
    if base in localized:
        return localized[base]
    if FALLBACK_LOCALE in localized:
        return localized[FALLBACK_LOCALE]
    return next(iter(localized.values()))


Path = tuple[str | int, ...]


def cross_field_problems(quiz: Quiz) -> list[tuple[Path, str]]:
    """Rules between fields that pydantic's per-field checks cannot express."""
    problems: list[tuple[Path, str]] = []
    locales = quiz.locales

    def check_locales(path: Path, present: list[str]) -> None:
        for locale in locales:
            if locale not in present:
                problems.append(
                    (path, f"missing the '{locale}' text (the quiz offers {', '.join(locales)})")
                )
        for locale in present:
            if locale not in locales:
                problems.append(
                    (
                        (*path, locale),
                        f"locale '{locale}' is not in the quiz title's locales ({', '.join(locales)})",
                    )
                )

    check_locales(("description",), list(quiz.description))
    seen: dict[str, int] = {}
    for index, question in enumerate(quiz.questions):
        base: Path = ("questions", index)
        if question.id in seen:
            problems.append(
                (
                    (*base, "id"),
                    f"duplicate question id '{question.id}' (also questions[{seen[question.id]}])",
                )
            )
        seen.setdefault(question.id, index)
        for field in ("prompt", "choices", "explanation"):
            check_locales((*base, field), list(getattr(question, field)))
        counts = {locale: len(texts) for locale, texts in question.choices.items()}
        for locale, count in counts.items():
            if not MIN_CHOICES <= count <= MAX_CHOICES:
                problems.append(
                    (
                        (*base, "choices", locale),
                        f"has {count} choices; a question needs {MIN_CHOICES} to {MAX_CHOICES}",
                    )
                )
        if len(set(counts.values())) > 1:
            listed = ", ".join(f"{locale}: {count}" for locale, count in counts.items())
            problems.append(
                ((*base, "choices"), f"every locale needs the same number of choices ({listed})")
            )
        for locale, texts in question.choices.items():
            seen_texts: dict[str, int] = {}
            for position, text in enumerate(texts):
                key = " ".join(text.lower().split())
                if key in seen_texts:
                    problems.append(
                        (
                            (*base, "choices", locale, position),
                            f"duplicate choice (the same as choice {seen_texts[key]})",
                        )
                    )
                seen_texts.setdefault(key, position)
        for locale in question.untranslated:
            if locale not in locales:
                problems.append(
                    (
                        (*base, "untranslated"),
                        f"locale '{locale}' is not in the quiz title's locales ({', '.join(locales)})",
                    )
                )
        if locales and set(locales) <= set(question.untranslated):
            problems.append(
                ((*base, "untranslated"), "at least one locale must be the original text")
            )
        n_choices = min(counts.values(), default=0)
        if n_choices and not 0 <= question.answer < n_choices:
            problems.append(
                (
                    (*base, "answer"),
                    f"answer {question.answer} is out of range: choose 0 to {n_choices - 1}",
                )
            )
        if question.demo is not None and question.demo not in DEMO_NAMES:
            problems.append(
                ((*base, "demo"), f"unknown demo '{question.demo}'; known: {', '.join(DEMO_NAMES)}")
            )
    problems += _generated_problems(quiz, seen)
    return problems


def _generated_problems(quiz: Quiz, seen: dict[str, int]) -> list[tuple[Path, str]]:
    """Generated entries: known templates, each once, ids unique beside the questions'."""
    problems: list[tuple[Path, str]] = []
    ids: dict[str, int] = {}
    templates: dict[str, int] = {}
    for index, entry in enumerate(quiz.generated):
        base: Path = ("generated", index)
        if entry.id in seen:
            problems.append(
                ((*base, "id"), f"duplicate id '{entry.id}' (also questions[{seen[entry.id]}])")
            )
        elif entry.id in ids:
            problems.append(
                ((*base, "id"), f"duplicate id '{entry.id}' (also generated[{ids[entry.id]}])")
            )
        ids.setdefault(entry.id, index)
        if entry.template not in TEMPLATE_NAMES:
            problems.append(
                (
                    (*base, "template"),
                    f"unknown template '{entry.template}'; known: {', '.join(TEMPLATE_NAMES)}",
                )
            )
        elif entry.template in templates:
            problems.append(
                (
                    (*base, "template"),
                    f"template '{entry.template}' is already in generated[{templates[entry.template]}]",
                )
            )
        templates.setdefault(entry.template, index)
    return problems
