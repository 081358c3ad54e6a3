"""Passwords never shown: `postgresql://user:secret@host` -> `postgresql://user:***@host`.

For text of any kind (an error message, a log line, DATABASE_URL itself). A password may
hold an `@` or a space its owner did not percent-encode (`bot:p@ss word@db.example`): it
runs to the last `@` that a host name (and port) and the address's end follow, and never
past a `/` or the line's end. Linear in the text: one greedy run per `scheme://user:`.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

_PASSWORD_IN_TEXT = re.compile(
    r"(?P<user>://[^:/@\s]*:)"
    r"(?P<password>[^/\n]*)"
    r"@(?=(?:\[[0-9A-Fa-f:.]+\]|[\w.%-]+)(?::\d*)?(?:[/?#\s'\"),;]|$))"
)


def redact_text(text: str) -> str:
    """`text` with the password of every URL in it shown as ***."""
    return _PASSWORD_IN_TEXT.sub(r"\g<user>***@", text)


def passwords_in(url: str) -> set[str]:
    """The password of `url` as written and as decoded (a driver's message may show
    either); empty when it has none."""
    found = _PASSWORD_IN_TEXT.search(url)
    if found is None or not found["password"]:
        return set()
    return {found["password"], unquote(found["password"])}
