"""Errors that carry a message key, so the Discord layer can say them in the user's language."""

from __future__ import annotations

from typing import Any


class UserError(Exception):
    """Bad input or a refused action: shown to the user, never a traceback.

    `key` names a message in `bot.i18n`; `params` fill its placeholders.
    """

    def __init__(self, key: str, **params: Any):
        self.key = key
        self.params = params
        super().__init__(f"{key} {params}" if params else key)
