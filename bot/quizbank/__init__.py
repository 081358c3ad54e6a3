"""Quiz files: the schema, loading with exact error locations, and the bank."""

from bot.quizbank.bank import QuizBank, choice_order, display_order
from bot.quizbank.parse import Problem, QuizFileError, parse_quiz
from bot.quizbank.schema import DEMO_NAMES, Question, Quiz, Reference, pick_locale

__all__ = [
    "DEMO_NAMES",
    "Problem",
    "Question",
    "Quiz",
    "QuizBank",
    "QuizFileError",
    "Reference",
    "choice_order",
    "display_order",
    "parse_quiz",
    "pick_locale",
]
