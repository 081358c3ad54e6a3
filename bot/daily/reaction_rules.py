"""Answer reactions: which emoji is which choice, and what a reaction list read back from
Discord means (it carries no time: a member with several letters is not counted)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.quizbank.schema import MAX_CHOICES

# Regional indicator letters 🇦 🇧 🇨 ...: reaction emoji -> choice index (as written).
ANSWER_EMOJI: tuple[str, ...] = tuple(chr(0x1F1E6 + i) for i in range(MAX_CHOICES))
EMOJI_CHOICE: dict[str, int] = {emoji: index for index, emoji in enumerate(ANSWER_EMOJI)}


def one_answer_each(reactions: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Reactions read back from Discord carry no time: a member with several answer
    emoji is ambiguous (and could be hedging), so only single answers are kept."""
    choices: dict[int, set[int]] = {}
    order: list[int] = []
    for user_id, choice in reactions:
        if user_id not in choices:
            choices[user_id] = set()
            order.append(user_id)
        choices[user_id].add(choice)
    return [(u, next(iter(choices[u]))) for u in order if len(choices[u]) == 1]


def several_answers(reactions: Sequence[tuple[int, int]]) -> list[int]:
    """The members `one_answer_each` leaves out: two or more different letters."""
    choices: dict[int, set[int]] = {}
    for user_id, choice in reactions:
        choices.setdefault(user_id, set()).add(choice)
    return sorted(u for u, c in choices.items() if len(c) > 1)
