"""Logging set-up: readable text by default, one JSON object per line for log shippers.

Handlers pass context as `extra={"guild_id": ..., "interaction_id": ...}`; both
formats include those fields so an error can be traced to a server and a click.
"""

from __future__ import annotations

import json
import logging
from typing import Any

CONTEXT_FIELDS = (
    "guild_id",
    "channel_id",
    "user_id",
    "interaction_id",
    "command",
    "post_id",
    "session_id",
)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S%z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for field in CONTEXT_FIELDS:
            if hasattr(record, field):
                entry[field] = getattr(record, field)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class ContextTextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        context = " ".join(
            f"{f}={getattr(record, f)}" for f in CONTEXT_FIELDS if hasattr(record, f)
        )
        return f"{text} [{context}]" if context else text


class _QuietFilter(logging.Filter):
    """Drops start-up chatter that says nothing to a host: voice libraries quiztutor does not
    use, alembic's plugin and context lines (a migration actually run is still logged)."""

    DROPPED = (
        "voice will NOT be supported",
        "setup plugin ",
        "Context impl ",
        "Will assume ",
        "logging in using static token",
    )

    def filter(self, record: logging.LogRecord) -> bool:
        if not isinstance(record.msg, str):
            return True
        return not any(part in record.msg for part in self.DROPPED)


# Loggers whose INFO lines are routine (the scheduler adds, runs and removes jobs all day);
# their warnings and errors still show.
ROUTINE_LOGGERS = ("discord.gateway", "apscheduler", "alembic.runtime.plugins")


def setup_logging(level: str = "INFO", fmt: str = "text") -> None:
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(
            ContextTextFormatter("%(asctime)s %(levelname)-8s %(name)s: %(message)s")
        )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    if root.level > logging.DEBUG:  # at DEBUG, everything
        handler.addFilter(_QuietFilter())
    for name in ROUTINE_LOGGERS:
        logging.getLogger(name).setLevel(
            logging.NOTSET if root.level <= logging.DEBUG else max(logging.WARNING, root.level)
        )
