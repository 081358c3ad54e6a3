"""Moodle's Aiken format, read as Moodle reads it (`question/format/aiken/format.php`): a
question, its choices `A) text`, `A. text`, `A)text` or `A.text`, then `ANSWER: B`.

```
What does loss scaling protect in fp16?
A. Small gradients from underflowing to zero
B. Large activations from overflowing
ANSWER: A
EXPLANATION: Multiplying the loss moves small gradients into fp16's range.
```

Lines are trimmed and lines shorter than two characters ignored, as in Moodle. A question
may span lines (this project keeps them as line breaks; Moodle takes one line), and an
optional `EXPLANATION:` line after `ANSWER:` gives it an explanation (this project's
addition). A question that is not complete (no `ANSWER:`, fewer than two choices, a letter
that is not a choice's) is listed with its line and skipped; the others import. Text with
HTML in it (`<p>`, `<br>`, `<b>`, ...) is read as HTML, as in any format.
"""

from __future__ import annotations

from bot.quizbank.formats.common import Draft, Parsed
from bot.quizbank.formats.markup import to_discord
from bot.quizbank.parse import Problem
from bot.quizbank.schema import CHOICE_LETTERS


def _choice(line: str) -> str | None:
    """Moodle's `^[A-Z][).][ \\t]?`: the choice's text, or None."""
    if len(line) >= 2 and "A" <= line[0] <= "Z" and line[1] in ").":
        return line[2:].strip()
    return None


def _explanation(line: str) -> str | None:
    head, colon, rest = line.partition(":")
    return rest.strip() if colon and head.strip().upper() == "EXPLANATION" else None


class _Reader:
    def __init__(self, file: str) -> None:
        self.file = file
        self.parsed = Parsed()
        self.prompt: list[str] = []
        self.choices: list[tuple[int, str, str]] = []  # (line, letter, text)
        self.start = 0
        self.answered: Draft | None = None  # may still get an EXPLANATION line

    def problem(self, line: int, message: str) -> None:
        self.parsed.errors.append(Problem(self.file, line, "", message))

    def close(self, line: int, why: str) -> None:
        if self.prompt:
            self.problem(line, why)
        self.prompt, self.choices = [], []

    def answer(self, number: int, given: str) -> None:
        if not self.prompt:
            self.problem(number, "ANSWER: without a question and its choices before it")
            return
        letters = "".join(letter for _, letter, _ in self.choices)
        expected = CHOICE_LETTERS[: len(self.choices)]
        letter = given[:1]
        if len(self.choices) < 2:
            self.close(number, "a question needs at least 2 choices before its ANSWER:")
        elif letters != expected:
            wrong = next(
                i for i, (a, b) in enumerate(zip(letters, expected, strict=False)) if a != b
            )
            line, got, _ = self.choices[wrong]
            self.close(line, f"choice {got} where {expected[wrong]} was expected")
        elif not letter or letter not in letters:
            self.close(number, f"ANSWER: {given} is not one of the choices' letters ({letters})")
        else:
            self.answered = Draft.of(
                line=self.start,
                prompt=to_discord("\n".join(self.prompt), "moodle"),
                choices=[to_discord(text, "moodle") for _, _, text in self.choices],
                answer=letters.index(letter),
            )
            self.parsed.drafts.append(self.answered)
            self.prompt, self.choices = [], []

    def line(self, number: int, line: str) -> None:
        if self.answered is not None:
            said, self.answered = _explanation(line), None
            if said is not None:
                self.parsed.drafts[-1].explanation = to_discord(said, "moodle").text
                return
        choice = _choice(line)
        if line.startswith("ANSWER:"):
            self.answer(number, line.removeprefix("ANSWER:").strip())
        elif choice is not None and self.prompt:
            self.choices.append((number, line[0], choice))
        elif choice is not None:
            self.problem(number, f"choice {line[0]} before any question")
        elif self.choices:
            self.close(self.start, "no ANSWER: line before the next question")
            self.prompt, self.start = [line], number
        else:
            if not self.prompt:
                self.start = number
            self.prompt.append(line)


def parse_aiken(text: str, file: str = "<aiken>") -> Parsed:
    reader = _Reader(file)
    for number, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        line = raw.strip()
        if len(line) >= 2:
            reader.line(number, line)
    if reader.prompt:
        reader.close(reader.start, "the last question has no ANSWER: line")
    return reader.parsed
