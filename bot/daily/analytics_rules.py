"""Class analytics of a server's daily question: which questions the class gets wrong,
which wrong answer it picks most (the common misconception), and how many take part
each week. Plain data for `/daily stats`, its chart and `quiztutor stats`.

Per-question figures count settled posts only: a question still open must not give its
answer away, not even to an admin. Participation counts every answer. Weeks are ISO
weeks (Monday first) of the server's local days, the last `weeks` of them up to `today`,
oldest first; a week without answers is listed with zeros. The SQL is plain SQLAlchemy
Core (GROUP BY, CASE, COUNT DISTINCT), the same on SQLite and PostgreSQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from bot.common.scores import accuracy
from bot.quizbank import QuizBank

DEFAULT_WEEKS = 8


@dataclass(frozen=True)
class QuestionStat:
    question_id: str
    posts: int  # settled posts of this question in the server
    answered: int
    correct: int
    # The wrong choice picked most often (index as written in the quiz file), None when
    # nobody answered wrong; ties go to the lower index.
    top_wrong: int | None
    top_wrong_count: int

    @property
    def accuracy(self) -> float | None:
        return accuracy(self.correct, self.answered)


@dataclass(frozen=True)
class WeekParticipation:
    week_start: date  # a Monday
    members: int  # distinct members who answered that week
    answers: int
    posts: int  # daily questions posted that week


@dataclass(frozen=True)
class ClassAnalytics:
    guild_id: int
    questions: list[QuestionStat]  # worst first: lowest accuracy, then most answers
    weeks: list[WeekParticipation]  # oldest first
    total_posts: int  # every daily post of the server, open or settled, of any age

    def worst(self, n: int) -> list[QuestionStat]:
        """The `n` weakest questions that have answers."""
        return [q for q in self.questions if q.answered][:n]


def choice_text(bank: QuizBank, question_id: str, index: int | None, locale: str) -> str | None:
    """The text of choice `index` (as written), None if the question or choice is gone."""
    if index is None:
        return None
    try:
        texts = bank.question(question_id).choice_texts(locale)
    except KeyError:  # the question left the bank
        return None
    return texts[index] if 0 <= index < len(texts) else None


def week_starts(today: date, weeks: int) -> list[date]:
    """The Mondays of the last `weeks` ISO weeks up to `today`, oldest first."""
    this_monday = today - timedelta(days=today.weekday())
    return [this_monday - timedelta(weeks=k) for k in range(weeks - 1, -1, -1)]


def worst_first(stat: QuestionStat) -> tuple[float, int, str]:
    accuracy = stat.accuracy
    return (2.0 if accuracy is None else accuracy, -stat.answered, stat.question_id)


@dataclass(frozen=True)
class DayParticipation:
    day: date
    question_id: str
    answered: int
    correct: int


@dataclass(frozen=True)
class GuildOverview:
    days: list[DayParticipation]  # most recent first
    members: int  # members who ever answered
    answered: int
    correct: int

    @property
    def accuracy(self) -> float | None:
        return accuracy(self.correct, self.answered)
