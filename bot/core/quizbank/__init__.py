"""Quiz files: the schema, loading with exact error locations, and the bank."""

from bot.core.quizbank.bank import QuizBank, choice_order
from bot.core.quizbank.loader import SHIPPED_DIR, Problem, QuizFileError, load_quizzes, parse_quiz
from bot.core.quizbank.schema import DEMO_NAMES, Question, Quiz, Reference, pick_locale

__all__ = [
    "DEMO_NAMES",
    "SHIPPED_DIR",
    "Problem",
    "Question",
    "Quiz",
    "QuizBank",
    "QuizFileError",
    "Reference",
    "choice_order",
    "load_quizzes",
    "parse_quiz",
    "pick_locale",
]
