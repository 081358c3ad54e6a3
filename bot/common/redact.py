"""Passwords never shown: `postgresql://user:secret@host` -> `postgresql://user:***@host`.

For text of any kind (an error message, a log line); a URL that parses is shown with
SQLAlchemy's own `render_as_string(hide_password=True)` (`bot.db.health.redact`).
"""

from __future__ import annotations

import re

_PASSWORD_IN_TEXT = re.compile(r"(://[^:/@\s]*:)[^@\s]*@")


def redact_text(text: str) -> str:
    """`text` with the password of every URL in it shown as ***."""
    return _PASSWORD_IN_TEXT.sub(r"\1***@", text)
