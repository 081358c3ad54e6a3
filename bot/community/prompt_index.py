"""Which question a server sees already has a given prompt (a suggestion's duplicate check).

The index holds every quiz's prompt keys (`rules.prompt_key`, the same prompt whatever its
case, spacing or punctuation), made once per quiz version: a quiz added or replaced since
the last look (a bank change: an upload, an approval, a fixed file) is indexed again, the
others are not. A check is then a dictionary look-up, not a hash of every prompt.
"""

from __future__ import annotations

from bot.community.rules import prompt_key
from bot.quizbank import Quiz, QuizBank


class PromptIndex:
    def __init__(self, bank: QuizBank) -> None:
        self.bank = bank
        self._indexed: dict[str, Quiz] = {}  # quiz id -> the version indexed
        self._keys_of: dict[str, set[str]] = {}  # quiz id -> its prompt keys
        self._questions: dict[str, dict[str, str]] = {}  # prompt key -> question id -> quiz id

    def refresh(self) -> None:
        """Index the quizzes that changed since the last call (a pass over the quiz ids;
        prompts are hashed for the changed quizzes only)."""
        quizzes = self.bank.quizzes
        for quiz_id in [i for i in self._indexed if quizzes.get(i) is not self._indexed[i]]:
            self._drop(quiz_id)
        for quiz_id, quiz in quizzes.items():
            if quiz_id not in self._indexed:
                self._add(quiz)

    def _drop(self, quiz_id: str) -> None:
        del self._indexed[quiz_id]
        for key in self._keys_of.pop(quiz_id, ()):
            holders = self._questions[key]
            for question_id in [q for q, holder in holders.items() if holder == quiz_id]:
                del holders[question_id]
            if not holders:
                del self._questions[key]

    def _add(self, quiz: Quiz) -> None:
        keys = set()
        for question in quiz.questions:
            for text in set(question.prompt.values()):
                key = prompt_key(text)
                keys.add(key)
                self._questions.setdefault(key, {})[question.id] = quiz.id
        self._indexed[quiz.id] = quiz
        self._keys_of[quiz.id] = keys

    def known(self, guild_id: int, prompt: str, own_id: str | None = None) -> str | None:
        """The id of a question this server sees (shipped, uploaded or community, not hidden)
        with the same prompt as `prompt`; None when there is none."""
        self.refresh()
        for question_id, quiz_id in self._questions.get(prompt_key(prompt), {}).items():
            if question_id == own_id or not self.bank.is_visible(quiz_id, guild_id):
                continue
            if not self.bank.is_hidden(guild_id, question_id):
                return question_id
        return None
