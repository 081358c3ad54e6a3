"""What every import format shares: a parsed question (`Draft`), the parse result with its
problems, and the one way a parse becomes a quiz (`build_quiz`).

Each question is checked on its own against the quiz rules, in words ("choice B is 206
characters; the limit is 200"): a bad question is skipped and listed once with its line,
the good ones import (`strict`: any bad question imports nothing). The quiz is then
validated by the same schema as a YAML file (`bot.quizbank.parse.validate_data`).

The explanation is the general feedback, then one line per choice that has feedback,
`- choice: feedback` (choices are shown shuffled, so a line names its choice, not a
letter); `split_explanation` reads it back for the GIFT export. A question without any
feedback gets its right answer as the explanation: quizzes always explain.

Formats hold one language. The import fills every other locale of the quiz with the same
text and lists those locales in each question's `untranslated` field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bot.common.i18n import SUPPORTED_LOCALES, t
from bot.common.text import clip
from bot.quizbank.formats.markup import Converted
from bot.quizbank.parse import Problem, QuizFileError, validate_data
from bot.quizbank.schema import (
    CHOICE_LETTERS,
    CHOICE_MAX,
    EXPLANATION_MAX,
    ID_PATTERN,
    MAX_CHOICES,
    MIN_CHOICES,
    PROMPT_MAX,
    TITLE_MAX,
    Quiz,
)
from bot.quizbank.schema import Path as FieldPath

QUESTION_ID = re.compile(ID_PATTERN)
MAX_ID = 40
MAX_QUESTIONS = 200


@dataclass
class Draft:
    """One multiple-choice question as a format wrote it, in one language."""

    line: int
    prompt: str
    choices: list[str]
    answer: int
    explanation: str
    name: str | None = None  # Moodle's ::name::, the question's title (and id when one)
    idnumber: str | None = None  # Moodle's [id:...], the question's id when one
    notes: list[str] = field(default_factory=list)  # what changed on the way in

    @classmethod
    def of(
        cls,
        *,
        line: int,
        prompt: Converted,
        choices: list[Converted],
        answer: int,
        general: Converted | None = None,
        feedback: list[Converted] | None = None,
        name: str | None = None,
        idnumber: str | None = None,
        notes: list[str] | None = None,
    ) -> Draft:
        """A question from converted texts: the explanation composed, images noted."""
        said = [f.text for f in feedback] if feedback else []
        texts = [prompt, *choices, *(feedback or []), *([general] if general else [])]
        images = [image for text in texts for image in text.images]
        notes = list(notes or [])
        if images:
            notes.append("images dropped (Discord shows no image here): " + ", ".join(images))
        return cls(
            line=line,
            prompt=prompt.text,
            choices=[c.text for c in choices],
            answer=answer,
            explanation=compose_explanation(
                general.text if general else "", [c.text for c in choices], said
            ),
            name=name or None,
            idnumber=idnumber or None,
            notes=notes,
        )


@dataclass
class Parsed:
    """A format's reading of a file: the questions, what it skipped and what is wrong.

    `skipped`: questions of a type quizzes do not have; `errors`: malformed questions.
    """

    drafts: list[Draft] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    category: str | None = None


@dataclass(frozen=True)
class ImportResult:
    quiz: Quiz
    skipped: list[Problem]  # questions not imported, each with its reason
    format: str
    notes: list[Problem] = field(default_factory=list)  # imported, with a change


def compose_explanation(general: str, choices: list[str], feedback: list[str]) -> str:
    lines = [
        f"- {choice}: {' '.join(said.split())}"
        for choice, said in zip(choices, feedback, strict=False)
        if said.strip()
    ]
    parts = [part for part in (general.strip(), "\n".join(lines)) if part]
    return "\n\n".join(parts)


def split_explanation(explanation: str, choices: list[str]) -> tuple[str, list[str]]:
    """(general feedback, each choice's feedback) of an explanation `compose_explanation`
    wrote; an explanation of another shape is all general feedback."""
    feedback = [""] * len(choices)
    head, _, tail = explanation.rpartition("\n\n")
    index = 0
    for line in tail.split("\n"):
        while index < len(choices) and not line.startswith(f"- {choices[index]}: "):
            index += 1
        if index == len(choices) or "\n" in choices[index]:
            return explanation, [""] * len(choices)
        feedback[index] = line[len(choices[index]) + 4 :]
        index += 1
    if compose_explanation(head, choices, feedback) != explanation:
        return explanation, [""] * len(choices)
    return head, feedback


def slug(text: str, fallback: str = "imported") -> str:
    """A quiz id made of `text`: lower case letters, digits and dashes, at most 40."""
    cut = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:MAX_ID].strip("-")
    return cut or fallback


def _named_answer(draft: Draft, locale: str) -> str:
    """The explanation of a question imported without feedback, in `locale`: its right
    answer by its text (a letter would not match the shuffled order a learner sees)."""
    return t("import.default_explanation", locale, choice=draft.choices[draft.answer])


def _length(what: str, text: str, limit: int) -> str | None:
    if not text.strip():
        return f"{what} is empty"
    if len(text.strip()) > limit:
        return f"{what} is {len(text.strip())} characters; the limit is {limit}"
    return None


def draft_problems(draft: Draft, explanation: str) -> list[str]:
    """What keeps a question out of a quiz, in words."""
    found: list[str] = []
    n = len(draft.choices)
    if not MIN_CHOICES <= n <= MAX_CHOICES:
        return [f"it has {n} choices; a question has {MIN_CHOICES} to {MAX_CHOICES}"]
    checks = [("the question", draft.prompt, PROMPT_MAX)]
    checks += [(f"choice {CHOICE_LETTERS[i]}", c, CHOICE_MAX) for i, c in enumerate(draft.choices)]
    checks.append(("the explanation (all its feedback)", explanation, EXPLANATION_MAX))
    found += [p for what, text, limit in checks if (p := _length(what, text, limit))]
    seen: dict[str, int] = {}
    for index, choice in enumerate(draft.choices):
        key = " ".join(choice.lower().split())
        if key in seen:
            first = CHOICE_LETTERS[seen[key]]
            found.append(f"choices {first} and {CHOICE_LETTERS[index]} are the same")
        seen.setdefault(key, index)
    return found


class _Ids:
    """Question ids and titles, each unique in the quiz."""

    def __init__(self, quiz_id: str) -> None:
        self.quiz_id = quiz_id
        self.ids: set[str] = set()
        self.titles: set[str] = set()

    def title(self, name: str | None) -> tuple[str | None, str | None]:
        """(the title, a note when it was renamed)."""
        if name is None:
            return None, None
        title = clip(name, TITLE_MAX)
        wanted, count = title, 1
        while title.lower() in self.titles:
            count += 1
            title = clip(wanted, TITLE_MAX - 5) + f" ({count})"
        self.titles.add(title.lower())
        renamed = f"another question is named '{wanted}': this one is '{title}'"
        return title, renamed if title != wanted else None

    def id(self, draft: Draft, title: str | None, number: int) -> str:
        for wanted in (draft.idnumber, title):
            if wanted is not None and QUESTION_ID.fullmatch(wanted) and wanted not in self.ids:
                self.ids.add(wanted)
                return wanted
        while True:
            suffix = f"-{number:02d}"
            made = self.quiz_id[: MAX_ID - len(suffix)].rstrip("-") + suffix
            if made not in self.ids:
                self.ids.add(made)
                return made
            number += 1


def build_quiz(
    parsed: Parsed,
    *,
    file: str,
    quiz_id: str,
    title: str,
    locale: str,
    strict: bool = False,
    locales: tuple[str, ...] = SUPPORTED_LOCALES,
) -> ImportResult:
    """The quiz of a parse: the good questions, every other one listed with its line.

    QuizFileError (nothing imported) when no question is good, or with `strict` when any
    question is malformed or breaks a quiz rule."""
    errors = list(parsed.errors)
    good: list[tuple[Draft, str]] = []
    for draft in parsed.drafts:
        explanation = draft.explanation or _named_answer(draft, locale)
        found = draft_problems(draft, explanation)
        if not found and len(good) == MAX_QUESTIONS:
            found = [f"a quiz holds at most {MAX_QUESTIONS} questions"]
        errors += [Problem(file, draft.line, "", message) for message in found[:1]]
        if not found:
            good.append((draft, explanation))
    if strict and errors:
        raise QuizFileError(sorted(errors))
    skipped = sorted(
        [*parsed.skipped, *(Problem(p.file, p.line, "", f"skipped: {p.message}") for p in errors)]
    )
    if not good:
        raise QuizFileError(
            [Problem(file, 1, "", "no multiple-choice question to import"), *skipped]
        )
    others = [other for other in locales if other != locale]
    ordered = [locale, *others]

    def every(value: Any) -> dict[str, Any]:
        return {loc: value for loc in ordered}

    ids = _Ids(quiz_id)
    notes: list[Problem] = []
    questions = []
    for number, (draft, explanation) in enumerate(good, start=1):
        named, renamed = ids.title(draft.name)
        for note in [*draft.notes, *([renamed] if renamed else [])]:
            notes.append(Problem(file, draft.line, "", f"note: {note}"))
        questions.append(
            {
                "id": ids.id(draft, named, number),
                **({"title": named} if named else {}),
                "prompt": every(draft.prompt),
                "choices": every(list(draft.choices)),
                "answer": draft.answer,
                "explanation": every(explanation)
                if draft.explanation
                else {loc: _named_answer(draft, loc) for loc in ordered},
                **({"untranslated": others} if others else {}),
            }
        )
    data = {
        "id": quiz_id,
        "title": every(title),
        "description": {loc: t("import.description", loc, file=clip(file, 200)) for loc in ordered},
        "questions": questions,
    }

    def line(path: FieldPath) -> int:
        if len(path) >= 2 and path[0] == "questions" and isinstance(path[1], int):
            if 0 <= path[1] < len(good):
                return good[path[1]][0].line
        return 1

    return ImportResult(validate_data(data, file, line), skipped, "", sorted(notes))
