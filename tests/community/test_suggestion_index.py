"""A suggestion's duplicate check (does this server see the prompt already?) looks up an
index of prompt keys kept per bank change: it costs a look-up, not a hash of every prompt
in the bank on the event loop. (The cooldown comes first: tests/community/test_e2e_suggestions.py.)"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.common.errors import UserError
from bot.community import prompt_index, suggestions
from bot.community.rules import SuggestionForm
from bot.community.suggestions import Suggestions
from bot.db.database import Database
from bot.quizbank import QuizBank, parse_quiz
from tests.support.db import make_quiz
from tests.support.guilds import quiz_yaml


def count_prompt_keys(monkeypatch: pytest.MonkeyPatch) -> Callable[[], int]:
    """How many prompts the community code hashes from now on."""
    calls = 0
    real = prompt_index.prompt_key

    def counted(prompt: str) -> str:
        nonlocal calls
        calls += 1
        return real(prompt)

    for module in (prompt_index, suggestions):
        monkeypatch.setattr(module, "prompt_key", counted, raising=False)
    return lambda: calls


async def test_the_duplicate_check_looks_up_an_index_kept_per_bank_change(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    quizzes = [make_quiz(f"big{n}", [0] * 200, prefix=f"b{n}") for n in range(5)]
    bank = QuizBank(quizzes)
    service = Suggestions(db, bank, cooldown_s=0)
    await service.load()  # at start: the bank's prompts indexed once
    hashed = count_prompt_keys(monkeypatch)

    def form(prompt: str) -> SuggestionForm:
        return SuggestionForm(prompt, "bf16\nfp16", "A", "Eight exponent bits.", "en")

    for member in range(20):
        await service.submit(1, member, "en", form(f"A new question number {member}?"))
    # Each: the new prompt's key for the look-up and for its row; never the bank's 2,000.
    assert hashed() <= 2 * 20

    # A bank change (a server's upload) is indexed: its prompts are known at once.
    bank.add(parse_quiz(quiz_yaml("upload", "up-01"), "upload.yaml"), owner=1)
    with pytest.raises(UserError) as refused:
        await service.submit(1, 99, "en", form("what is 2+2"))
    assert (refused.value.key, refused.value.params) == (
        "suggest.known_question",
        {"question_id": "up-01"},
    )
    # ... and only in its own server.
    await service.submit(2, 99, "en", form("What is 2 + 2?"))
    assert hashed() <= 2 * 20 + 2 + 2 + 2
