"""Quiz sessions in end-to-end tests: which button is which, the right answer now."""

from __future__ import annotations

from bot.discord.client import QuizTutorBot
from bot.quiz import sessions_store
from testkit.standin.models import FakeMessage, FakeUser


def button(message: FakeMessage, label: str) -> str:
    """The custom_id of the button showing `label` (a letter, Next, ...)."""
    for row in message.components:
        for component in row["components"]:
            if component.get("label") == label:
                return str(component["custom_id"])
    raise AssertionError(f"no button {label!r} in {message.custom_ids()}")


async def letters(bot: QuizTutorBot, user: FakeUser) -> tuple[str, str]:
    """(right letter, a wrong letter) of `user`'s current question."""
    session = await sessions_store.active_for(bot.services.db, user.id)
    assert session is not None
    question, order = bot.services.sessions.current_question(session)
    right = order.index(question.answer)
    wrong = (right + 1) % len(order)
    return "ABCDEF"[right], "ABCDEF"[wrong]
