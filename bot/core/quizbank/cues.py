"""Answer cues: patterns that let members guess the right answer without knowing it.

Two cues are caught, both over a whole quiz:

- **length**: the right answer is the longest choice (strictly longer than every other
  choice, in characters) in more than 40% of the questions, counted per locale. Shuffling
  the choices on screen does not hide this cue.
- **slot**: one answer index holds more than half of the quiz's answers. The bot shuffles
  choices, but the file, the export and any client that shows choices as written keep the
  pattern. A one-question quiz cannot spread its answers and is not warned about.

`answer_cues` is pure (a Quiz in, warnings out); `bot.storage.quiz_files.file_cue_warnings`
applies it to files for `quiztutor validate`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

from bot.core.quizbank.schema import Question, Quiz

#: A cue is reported when it holds in more than these shares of a quiz's questions.
LONGEST_LIMIT = 0.40
SLOT_LIMIT = 0.50


@dataclass(frozen=True)
class CueWarning:
    kind: Literal["longest", "slot"]
    count: int
    total: int
    locale: str | None = None  # the locale of a length cue
    slot: int | None = None  # the answer index of a slot cue

    def message(self) -> str:
        if self.kind == "longest":
            return (
                f"the right answer is the longest choice in {self.count} of {self.total} "
                f"questions ({self.locale}); members can guess it from length"
            )
        letter = "ABCDEF"[self.slot] if self.slot is not None and self.slot < 6 else "?"
        return (
            f"the right answer is choice {letter} (answer: {self.slot}) in {self.count} of "
            f"{self.total} questions; members can guess it from position"
        )


def answer_is_longest(question: Question, locale: str) -> bool:
    """True when the right choice is strictly longer than every other choice."""
    texts = [text.strip() for text in question.choice_texts(locale)]
    right = len(texts[question.answer])
    return all(right > len(text) for index, text in enumerate(texts) if index != question.answer)


def answer_cues(quiz: Quiz) -> list[CueWarning]:
    """The answer cues of one quiz: at most one length warning per locale, one slot warning."""
    warnings: list[CueWarning] = []
    total = len(quiz.questions)
    for locale in quiz.locales:
        longest = sum(answer_is_longest(question, locale) for question in quiz.questions)
        if longest > LONGEST_LIMIT * total:
            warnings.append(CueWarning("longest", longest, total, locale=locale))
    if total >= 2:
        slot, count = Counter(q.answer for q in quiz.questions).most_common(1)[0]
        if count > SLOT_LIMIT * total:
            warnings.append(CueWarning("slot", count, total, slot=slot))
    return warnings
