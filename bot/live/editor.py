"""At most one edit of a message per interval, always with the latest content.

A live question's count changes with every press; Discord allows a few edits per
channel and seconds (and a message is rate-limited on its own route). `ThrottledEdits`
keeps the newest wanted content per message and sends it when the message's interval
has passed: a thousand presses in five seconds cost three edits, and a 429 (which
discord.py waits out) only delays the next edit, which carries the newest count.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from bot.common.errors import PublishRefused

log = logging.getLogger("quiztutor.live")

Edit = Callable[[], Awaitable[None]]


class _Message:
    def __init__(self) -> None:
        self.wanted: Edit | None = None
        self.last = -1e9  # loop time of the last edit sent
        self.task: asyncio.Task[None] | None = None


class ThrottledEdits:
    """`edits.want(key, edit)`: `edit()` runs at most once per `every` seconds per key;
    a refusal (403/404) goes to `refused(key, error)`."""

    def __init__(self, every: float, refused: Callable[[Any, PublishRefused], None]) -> None:
        self.every = every
        self.refused = refused
        self._messages: dict[Any, _Message] = {}

    def want(self, key: Any, edit: Edit) -> None:
        message = self._messages.setdefault(key, _Message())
        message.wanted = edit
        if message.task is None or message.task.done():
            message.task = asyncio.create_task(self._send(key, message), name=f"edit-{key}")

    async def _send(self, key: Any, message: _Message) -> None:
        loop = asyncio.get_running_loop()
        while message.wanted is not None:
            wait = message.last + self.every - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            edit, message.wanted = message.wanted, None
            if edit is None:
                break
            try:
                await edit()
            except PublishRefused as refused:
                message.wanted = None
                self.refused(key, refused)
            except Exception:
                log.warning("editing a live message failed", exc_info=True)
            # Counted from the answer: the next edit reaches Discord at least `every`
            # after this one did, however long a 429 made this one wait.
            message.last = loop.time()
        # Nothing more wanted: forget the message once its interval is over (a round's
        # messages are not kept after it).
        loop.call_later(self.every, self._drop_if_idle, key, message)

    def _drop_if_idle(self, key: Any, message: _Message) -> None:
        if self._messages.get(key) is message and message.wanted is None:
            if message.task is None or message.task.done():
                del self._messages[key]

    async def close(self) -> None:
        tasks = [m.task for m in self._messages.values() if m.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._messages.clear()
