"""Live rounds in end-to-end tests: opening, joining and starting a round, the round's
thread and messages, which button is right, the driver of a bot, and moving a question's
deadline by the database's clock."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import text

from bot.db.database import Database
from bot.discord.client import QuizTutorBot
from bot.live.driver import LiveDriver
from testkit.standin.driver import InteractionResult
from testkit.standin.models import FakeChannel, FakeMessage, FakeUser
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot

QUICK_PAUSE = timedelta(seconds=0.2)


def driver_of(bot: QuizTutorBot) -> LiveDriver:
    driver = getattr(bot.get_cog("LiveCog"), "driver", None)
    assert isinstance(driver, LiveDriver), "the live cog has no driver"
    return driver


def quick(bot: QuizTutorBot) -> LiveDriver:
    """The bot's driver with a short pause between a reveal and the next question."""
    driver = driver_of(bot)
    driver.pause = QUICK_PAUSE
    return driver


@contextlib.asynccontextmanager
async def quick_bot(start_bot: StartBot, **overrides: Any) -> AsyncIterator[QuizTutorBot]:
    """`start_bot(**overrides)`, its driver made `quick` before the test acts."""
    async with start_bot(**overrides) as bot:
        quick(bot)
        yield bot


async def thread_of(fake: FakeDiscord, channel: FakeChannel, index: int = 0) -> FakeChannel:
    """The channel's `index`-th thread (0: the first), once it exists."""
    await fake.wait_until(
        lambda: len(fake.threads_of(channel)) > index, 10, f"thread {index} of a channel"
    )
    return fake.threads_of(channel)[index]


def round_id_of(message: FakeMessage) -> int:
    for custom_id in message.custom_ids():
        found = re.match(r"lv:(\d+):", custom_id)
        if found:
            return int(found.group(1))
    raise AssertionError(f"no live button in {message.custom_ids()}")


def has_button(message: FakeMessage, suffix: str) -> bool:
    return any(re.fullmatch(rf"lv:\d+:{suffix}", c) for c in message.custom_ids())


async def lobby(fake: FakeDiscord, where: FakeChannel) -> FakeMessage:
    return await fake.wait_for_message(lambda m: has_button(m, "j"), 10, channel=where)


async def question(fake: FakeDiscord, where: FakeChannel, number: int) -> FakeMessage:
    return await fake.wait_for_message(lambda m: has_button(m, f"{number}:0"), 15, channel=where)


async def reveal(fake: FakeDiscord, where: FakeChannel, number: int) -> FakeMessage:
    return await fake.wait_for_message(
        lambda m: any(
            e.get("title", "").startswith(f"Question {number}/") and "answer is" in e["title"]
            for e in m.embeds
        ),
        15,
        channel=where,
    )


async def scoreboard(fake: FakeDiscord, where: FakeChannel, wait_s: float = 15) -> FakeMessage:
    return await fake.wait_for_message(lambda m: has_button(m, "r"), wait_s, channel=where)


def questions_posted(fake: FakeDiscord, thread: FakeChannel, number: int) -> list[FakeMessage]:
    return [m for m in fake.messages(thread) if has_button(m, f"{number}:0")]


def reveals_posted(fake: FakeDiscord, thread: FakeChannel, number: int) -> list[FakeMessage]:
    return [
        m
        for m in fake.messages(thread)
        if any(
            e.get("title", "").startswith(f"Question {number}/") and "answer is" in e["title"]
            for e in m.embeds
        )
    ]


def answer_id(message: FakeMessage, position: int) -> str:
    return next(c for c in message.custom_ids() if re.fullmatch(rf"lv:\d+:\d+:{position}", c))


def button_id(message: FakeMessage, suffix: str) -> str:
    return next(c for c in message.custom_ids() if re.fullmatch(rf"lv:\d+:{suffix}", c))


@dataclass(frozen=True)
class OpenRound:
    """A round opened by `/quiz live start` in the stand-in's channel: the command's
    reply, the round's thread, its lobby message and its id."""

    reply: InteractionResult
    thread: FakeChannel
    hall: FakeMessage
    id: int


async def open_round(fake: FakeDiscord, host: FakeUser, **options: Any) -> OpenRound:
    """`host` runs `/quiz live start` (with `options`) in the channel; once its thread and
    lobby are posted."""
    reply = await fake.slash(host, "quiz live start", **options)
    thread = await thread_of(fake, fake.channel)
    hall = await lobby(fake, thread)
    return OpenRound(reply, thread, hall, round_id_of(hall))


async def join(fake: FakeDiscord, live: OpenRound, *players: FakeUser) -> None:
    """Each of `players`, in order, presses the lobby's Join."""
    for player in players:
        await fake.click(live.hall, button_id(live.hall, "j"), player)


async def start(
    fake: FakeDiscord, live: OpenRound, host: FakeUser, *players: FakeUser
) -> FakeMessage:
    """`players` join, then `host` presses Start: question 1, once posted in the thread."""
    await join(fake, live, *players)
    await fake.click(live.hall, button_id(live.hall, "s"), host)
    return await question(fake, live.thread, 1)


async def positions(bot: QuizTutorBot, round_id: int, number: int) -> tuple[int, int]:
    """(the right display position, a wrong one) of question `number` of a round."""
    info = await bot.services.live.info(round_id)
    question_ = bot.services.live.question(info, number)  # a generated one: its instance
    order = info.choice_orders[number - 1]
    right = order.index(question_.answer)
    return right, (right + 1) % len(order)


async def answer_right(
    fake: FakeDiscord,
    bot: QuizTutorBot,
    live: OpenRound,
    asked: FakeMessage,
    number: int,
    *players: FakeUser,
) -> int:
    """Each of `players`, in order, presses question `number`'s right answer (on `asked`,
    its message); the right display position."""
    right, _ = await positions(bot, live.id, number)
    for player in players:
        await fake.click(asked, answer_id(asked, right), player)
    return right


async def expire_question(db: Database, round_id: int, number: int) -> None:
    """Time passes by the database's clock: question `number`'s deadline is a second ago.
    (The clock a test cannot wait for; the bot reads the deadline from the database.)"""
    async with db.engine.begin() as conn:
        if conn.dialect.name == "sqlite":
            sql = (
                "UPDATE live_question SET closes_at = strftime('%Y-%m-%d %H:%M:%f000', 'now',"
                " '-1 seconds') WHERE round_id = :r AND number = :n"
            )
        else:
            sql = (
                "UPDATE live_question SET closes_at = (clock_timestamp() AT TIME ZONE 'UTC')"
                " - interval '1 second' WHERE round_id = :r AND number = :n"
            )
        await conn.execute(text(sql), {"r": round_id, "n": number})


async def execute(db: Database, sql: str, **params: Any) -> None:
    async with db.engine.begin() as conn:
        await conn.execute(text(sql), params)


async def rows(db: Database, sql: str, **params: Any) -> list[Any]:
    async with db.engine.connect() as conn:
        return [tuple(r) for r in (await conn.execute(text(sql), params)).all()]


async def rows_become(db: Database, sql: str, expected: list[Any], wait_s: float = 10) -> None:
    """Until `sql` returns `expected` (what the bot records just after Discord has it)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    while (found := await rows(db, sql)) != expected:
        assert loop.time() < deadline, f"{sql!r} returned {found}, not {expected}"
        await asyncio.sleep(0.02)  # a poll interval, not a synchronisation point


async def rows_change(db: Database, sql: str, wait_s: float = 10) -> list[Any]:
    """Until `sql` returns something else than now (e.g. a lease renewed); what it returns."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    before = await rows(db, sql)
    while (found := await rows(db, sql)) == before:
        assert loop.time() < deadline, f"{sql!r} kept returning {found}"
        await asyncio.sleep(0.02)  # a poll interval, not a synchronisation point
    return found


class RecordingPublisher:
    """A `LivePublisher` without Discord: records what a driver sent, in order. `broken`
    makes the next N reveals fail with a server error (the outbox retries them);
    `unanswered_reveals` makes Discord take the next N but their answers get lost."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self.broken_reveals = 0
        self.unanswered_reveals = 0
        self.replies: dict[int | None, int] = {}  # question message id -> its reveal's
        self._next_id = 10_000

    def _id(self) -> int:
        self._next_id += 1
        return self._next_id

    def of(self, kind: str) -> list[Any]:
        return [e[1] for e in self.events if e[0] == kind]

    async def post_question(self, view: Any, nonce: str) -> int:
        for seen_nonce, message_id in self.of("question"):
            if seen_nonce == nonce:
                return int(message_id)  # what Discord does with a nonce it has seen
        message_id = self._id()
        self.events.append(("question", (nonce, message_id)))
        return message_id

    async def edit_question(self, view: Any, message_id: int) -> None:
        self.events.append(("edit", (message_id, view.answered, view.closed)))

    async def edit_lobby(self, round: Any, message_id: int, started: bool) -> None:
        self.events.append(("lobby", message_id))

    async def post_reveal(self, reveal: Any, nonce: str) -> int:
        if self.broken_reveals:
            self.broken_reveals -= 1
            raise RuntimeError("503 Service Unavailable")
        self.events.append(("reveal", (reveal.number, nonce)))
        message_id = self._id()
        self.replies[reveal.message_id] = message_id
        if self.unanswered_reveals:
            # Discord took it, but its answer never arrived (a timeout, a reset).
            self.unanswered_reveals -= 1
            raise TimeoutError("no answer from Discord")
        return message_id

    async def find_reveal(self, round: Any, question_message_id: int, since: Any) -> int | None:
        self.events.append(("lookback", question_message_id))
        return self.replies.get(question_message_id)

    async def post_scoreboard(self, board: Any, nonce: str, in_channel: bool) -> int:
        self.events.append(("scoreboard", (board, nonce)))
        return self._id()
