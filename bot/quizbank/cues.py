"""Answer cues: patterns that let members guess the right answer without knowing it.

Three cues are caught:

- **length rank** (per quiz and locale): the right answer's place when a question's choices
  are ordered by length (characters, stripped; rank 1 is the longest). A test-wise member
  learns "pick the longest" or "pick the second longest"; shuffling the choices on screen
  does not hide it. No rank may hold the right answer in more than 40% of the quiz's
  questions. Only questions with at least 3 choices count (a 2-choice answer is the longer
  or the shorter one, so two ranks share them and one holds at least half), and only
  quizzes with at least 5 such questions are judged (with 4, one repeat is already 50%).
- **bank length rank** (over a whole bank, per locale): among the bank's questions with n
  choices, each rank 1..n holds between 0.6/n and 1.4/n of the right answers: 15–35% for
  the usual 4 choices, 30–70% for 2. A group of fewer than 20 questions is not judged.
- **slot**: one answer index holds more than half of the quiz's answers. The bot shuffles
  choices, but the file, the export and any client that shows choices as written keep the
  pattern. A one-question quiz cannot spread its answers and is not warned about.

**Ties.** When the right answer has the same length as other choices, the ranks they span
share the question evenly: right answer and one distractor tied for longest give ranks 1
and 2 half a question each (a member who picks "the longest" is right half the time). Four
choices of equal length give each rank a quarter, so equal lengths are never a cue.

**Generated questions** (a quiz's `generated:` templates) have no fixed text: each member
sees another instance. They are not counted here; a template is held to the same idea over
its instances by `quiztutor validate` (`experiments.generators.validate`: the right answer
may not be the longest, the shortest, or in one position in every instance it runs).

`answer_cues` (a Quiz in, warnings out) and `bank_cues` (Quizzes in) are pure.
`bot.quizbank.files.file_cues` applies them to files for `quiztutor validate`, skipping the ones that do not load (the
loader reports those): a cue in a shipped quiz (a file in `quizzes/`) and the bank rule over
the shipped quizzes (checked when all of them are validated) are errors there; any other file (`QUIZ_DIRS`, a path given) only gets
warnings. Uploads (`/quizadmin add`) are not checked for cues at all.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.quizbank.schema import CHOICE_LETTERS, MAX_CHOICES, Question, Quiz

#: A quiz's length rank or slot is reported when it holds more than these shares.
RANK_LIMIT = 0.40
SLOT_LIMIT = 0.50
#: Questions (with at least 3 choices) a quiz needs before its length ranks are judged.
MIN_RANK_QUESTIONS = 5
#: Over a bank, rank k of n-choice questions must hold between these multiples of 1/n.
BANK_LOW, BANK_HIGH = 0.6, 1.4
#: n-choice questions a bank needs before their ranks are judged.
MIN_BANK_GROUP = 20

ORDINALS = {1: "longest", 2: "second longest", 3: "third longest", 4: "fourth longest"}


def _ordinal(rank: int) -> str:
    return ORDINALS.get(rank, f"{rank}th longest")


def _count(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class CueWarning:
    kind: Literal["rank", "bank-rank", "slot"]
    count: float  # questions (ties count in fractions) or, for "slot", answers
    total: int
    locale: str | None = None  # the locale of a length cue
    rank: int | None = None  # 1 = longest
    slot: int | None = None  # the answer index of a slot cue
    n_choices: int | None = None  # the question group of a bank cue

    def message(self) -> str:
        if self.kind == "rank":
            return (
                f"the right answer is the {_ordinal(self.rank or 0)} choice in "
                f"{_count(self.count)} of {self.total} questions ({self.locale}), over "
                f"{RANK_LIMIT:.0%}; members can guess it from length"
            )
        if self.kind == "bank-rank":
            n = self.n_choices or 0
            return (
                f"over the bank's {self.total} questions with {n} choices ({self.locale}), the "
                f"right answer is the {_ordinal(self.rank or 0)} choice in {_count(self.count)} "
                f"({self.count / self.total:.0%}); each rank must hold "
                f"{BANK_LOW / n:.0%}-{BANK_HIGH / n:.0%}"
            )
        letter = (
            CHOICE_LETTERS[self.slot] if self.slot is not None and self.slot < MAX_CHOICES else "?"
        )
        return (
            f"the right answer is choice {letter} (answer: {self.slot}) in {_count(self.count)} "
            f"of {self.total} questions; members can guess it from position"
        )


def rank_shares(question: Question, locale: str) -> dict[int, float]:
    """The right answer's length rank (1 = longest) as {rank: share}; ties split evenly."""
    lengths = [len(text.strip()) for text in question.choice_texts(locale)]
    right = lengths[question.answer]
    longer = sum(length > right for length in lengths)
    tied = sum(length == right for length in lengths)  # the right answer included
    return {longer + k: 1 / tied for k in range(1, tied + 1)}


def rank_counts(questions: Sequence[Question], locale: str) -> dict[int, float]:
    """Per rank, how many of `questions` have their right answer there (ties in fractions)."""
    counts: dict[int, float] = defaultdict(float)
    for question in questions:
        for rank, share in rank_shares(question, locale).items():
            counts[rank] += share
    return dict(sorted(counts.items()))


def answer_cues(quiz: Quiz) -> list[CueWarning]:
    """The answer cues of one quiz: length ranks per locale, then the slot."""
    warnings: list[CueWarning] = []
    ranked = [q for q in quiz.questions if q.n_choices >= 3]
    if len(ranked) >= MIN_RANK_QUESTIONS:
        for locale in quiz.locales:
            for rank, count in rank_counts(ranked, locale).items():
                if count > RANK_LIMIT * len(ranked) + 1e-9:
                    warnings.append(
                        CueWarning("rank", round(count, 2), len(ranked), locale=locale, rank=rank)
                    )
    total = len(quiz.questions)
    if total >= 2:
        slot, count = Counter(q.answer for q in quiz.questions).most_common(1)[0]
        if count > SLOT_LIMIT * total:
            warnings.append(CueWarning("slot", count, total, slot=slot))
    return warnings


def bank_cues(quizzes: Iterable[Quiz]) -> list[CueWarning]:
    """The bank-wide length-rank rule, per locale and per number of choices."""
    groups: dict[tuple[str, int], list[Question]] = defaultdict(list)
    for quiz in quizzes:
        for question in quiz.questions:
            for locale in quiz.locales:
                groups[(locale, question.n_choices)].append(question)
    warnings: list[CueWarning] = []
    for (locale, n), questions in sorted(groups.items()):
        if len(questions) < MIN_BANK_GROUP:
            continue
        counts = rank_counts(questions, locale)
        for rank in range(1, n + 1):
            share = counts.get(rank, 0.0) / len(questions)
            if not BANK_LOW / n - 1e-9 <= share <= BANK_HIGH / n + 1e-9:
                warnings.append(
                    CueWarning(
                        "bank-rank",
                        round(counts.get(rank, 0.0), 2),
                        len(questions),
                        locale=locale,
                        rank=rank,
                        n_choices=n,
                    )
                )
    return warnings
