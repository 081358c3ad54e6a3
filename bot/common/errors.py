"""Errors that carry a message key, so the Discord layer can say them in the user's language."""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class UserError(Exception):
    """Bad input or a refused action: shown to the user, never a traceback.

    `key` names a message in `bot.common.i18n`; `params` fill its placeholders.
    """

    def __init__(self, key: str, **params: Any):
        self.key = key
        self.params = params
        super().__init__(f"{key} {params}" if params else key)


class SetupError(Exception):
    """A host's set-up is wrong (bad settings, unreachable database or Discord, unwritable path).

    The command line and the bot's start-up print `message` and `fix` as at most three short
    lines, without a traceback (unless LOG_LEVEL=DEBUG), and exit with `exit_code`:
    2 for usage or configuration, 1 for a runtime failure.
    """

    def __init__(self, message: str, fix: str = "", *, exit_code: int = 2):
        self.message = message
        self.fix = fix
        self.exit_code = exit_code
        super().__init__(message)


class StopReason(StrEnum):
    """Why Discord refused for good; stored as the daily config's `disabled_reason`."""

    FORBIDDEN = "forbidden"  # 403 on posting: the bot may not send there
    NOT_FOUND = "not_found"  # 404: the channel (or the message) is gone
    REACTIONS_FORBIDDEN = "reactions_forbidden"  # 403 on adding the answer reactions
    THREADS_FORBIDDEN = "threads_forbidden"  # 403 on a discussion thread (posting goes on)

    @property
    def message_key(self) -> str:
        """The text that tells an admin how to fix it (bot.daily.texts)."""
        return f"daily.disabled_{self.value}"


class PublishRefused(Exception):
    """Discord refused for good (403 Forbidden, 404 channel gone): stop posting there."""

    def __init__(self, reason: StopReason) -> None:
        super().__init__(reason.value)
        self.reason = reason
