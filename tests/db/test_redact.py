"""No password is shown, also one with an unencoded `@` or a space: in DATABASE_URL as the
bot prints it, in a driver's message, in the pg_dump command it suggests."""

from __future__ import annotations

import pytest

from bot.common.errors import SetupError
from bot.common.redact import redact_text
from bot.db.health import check_url, pg_dump_command, scrub


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql+asyncpg://bot:p@ssw0rd@db.example/quiz",
            "postgresql+asyncpg://bot:***@db.example/quiz",
        ),
        (
            "postgresql+asyncpg://bot:two words@db.example:5432/quiz",
            "postgresql+asyncpg://bot:***@db.example:5432/quiz",
        ),
        (
            "postgresql+asyncpg://bot:a@b c@[::1]:5432/quiz?ssl=require",
            "postgresql+asyncpg://bot:***@[::1]:5432/quiz?ssl=require",
        ),
        ("postgresql+asyncpg://bot:p%40ss@db/quiz", "postgresql+asyncpg://bot:***@db/quiz"),
        ("postgresql+asyncpg://bot@db/quiz", "postgresql+asyncpg://bot@db/quiz"),
        ("sqlite+aiosqlite:///data/quiztutor.db", "sqlite+aiosqlite:///data/quiztutor.db"),
    ],
)
def test_passwords_with_an_unencoded_at_or_a_space_are_hidden(url: str, shown: str) -> None:
    assert redact_text(url) == shown
    assert (
        redact_text(f"error: cannot open {url}: refused") == f"error: cannot open {shown}: refused"
    )


def test_a_drivers_message_loses_the_whole_password() -> None:
    url = "postgresql+asyncpg://bot:p@ssw0rd@db.example/quiz"
    message = f'password authentication failed for user "bot" (p@ssw0rd) at {url}'
    assert scrub(message, url) == (
        'password authentication failed for user "bot" (***) at '
        "postgresql+asyncpg://bot:***@db.example/quiz"
    )
    assert pg_dump_command(url, "b.dump") == (
        "pg_dump --format=custom --file='b.dump' 'postgresql://bot:***@db.example/quiz'"
        " (the password from PGPASSWORD or ~/.pgpass)"
    )
    # Nor does the bot try a host made of the password's end: it says what to write.
    with pytest.raises(SetupError) as caught:
        check_url(url)
    assert caught.value.message == (
        "DATABASE_URL postgresql+asyncpg://bot:***@db.example/quiz has an @ in its password"
        " that is not percent-encoded."
    )
    assert caught.value.fix == "Write each @ of the password as %40 (e.g. p%40ss for p@ss)."
    assert check_url(url.replace("p@ss", "p%40ss")).host == "db.example"
    # Two addresses in one line: each keeps its host, neither its password.
    both = redact_text("from sqlite:///a.db to postgresql://u:x@y z@h1/db, then http://h2:80/")
    assert both == "from sqlite:///a.db to postgresql://u:***@h1/db, then http://h2:80/"
