"""Moodle's Aiken format: a question, its choices `A. ...` (or `A) ...`), then `ANSWER: B`.

```
What does loss scaling protect in fp16?
A. Small gradients from underflowing to zero
B. Large activations from overflowing
ANSWER: A
EXPLANATION: Multiplying the loss moves small gradients into fp16's range.
```

A question's text may span lines (joined with spaces); blank lines between questions are
optional. Aiken has no feedback: an optional `EXPLANATION:` line after `ANSWER:` (this
project's addition; Moodle rejects it) gives one, else the explanation names the right
choice (as for any format's question without feedback). Only multiple-choice questions exist in Aiken, so nothing is skipped.
"""

from __future__ import annotations

import re

from bot.quizbank.formats.common import Draft, Parsed
from bot.quizbank.parse import Problem
from bot.quizbank.schema import CHOICE_LETTERS

CHOICE = re.compile(r"^([A-Z])\s*[.)]\s+(.*)$")
ANSWER = re.compile(r"^ANSWER\s*:\s*(.*)$", re.IGNORECASE)
EXPLANATION = re.compile(r"^EXPLANATION\s*:\s*(.*)$", re.IGNORECASE)


def parse_aiken(text: str, file: str = "<aiken>") -> Parsed:
    parsed = Parsed()
    prompt: list[str] = []
    choices: list[str] = []
    start = 0
    pending: Draft | None = None  # answered, may still get an EXPLANATION line

    def problem(line: int, message: str) -> None:
        parsed.errors.append(Problem(file, line, "", message))

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if pending is not None:
            explained = EXPLANATION.match(line)
            pending = None
            if explained:
                parsed.drafts[-1].explanation = explained[1].strip()
                continue
        answer = ANSWER.match(line)
        choice = CHOICE.match(line)
        if answer:
            letter = answer[1].strip().upper()
            if not prompt or not choices:
                problem(number, "ANSWER: without a question and its choices before it")
            elif letter not in CHOICE_LETTERS[: len(choices)] or len(letter) != 1:
                problem(number, f"ANSWER: {answer[1].strip()} is not one of the choices' letters")
            else:
                index = CHOICE_LETTERS.index(letter)
                pending = Draft(
                    line=start,
                    prompt=" ".join(prompt),
                    choices=list(choices),
                    answer=index,
                    explanation="",
                )
                parsed.drafts.append(pending)
            prompt, choices = [], []
        elif choice and prompt:
            expected = CHOICE_LETTERS[len(choices)] if len(choices) < len(CHOICE_LETTERS) else "?"
            if choice[1] != expected:
                problem(number, f"choice {choice[1]} where {expected} was expected")
            choices.append(choice[2].strip())
        elif choices:
            problem(number, "a line after the choices that is not ANSWER: (a missing ANSWER?)")
            prompt, choices = [line], []
            start = number
        else:
            if not prompt:
                start = number
            prompt.append(line)
    if prompt or choices:
        problem(start, "the last question has no ANSWER: line")
    return parsed
