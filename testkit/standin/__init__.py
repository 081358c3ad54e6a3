"""Local stand-in of the Discord API (HTTP v10 + gateway) for end-to-end bot tests."""

from .driver import InteractionResult, PendingInteraction
from .models import Emoji, FakeAttachment, FakeChannel, FakeGuild, FakeMessage, FakeRole, FakeUser
from .server import Call, FakeDiscord, Injection

__all__ = [
    "Call",
    "Emoji",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "Injection",
    "InteractionResult",
    "PendingInteraction",
]
