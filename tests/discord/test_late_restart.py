"""No doubled announcement after a late restart (the real `quiztutor run`, SIGKILL).

The bot is killed after Discord took its reveal and before it could record it; the next
process starts after Discord's nonce window (the stand-in forgets the nonce; the bot's
clock runs past the dead process's lease) and must find the reply, not send another.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from bot.common.times import utcnow
from bot.outbox.rules import LEASE
from testkit.databases import db_rows
from testkit.processes import CLOCK_SHIFT, BotProcess, bot_env
from testkit.standin import FakeMessage
from testkit.standin.server import FakeDiscord
from tests.support.daily import bot_reactions_done, is_daily_post, preconfigure_daily

pytestmark = pytest.mark.slow

WAIT = 30.0


def outbox_reveal(db_url: str) -> tuple[object, object, object]:
    [row] = db_rows(
        db_url, "SELECT claimed_by, delivered_at, message_id FROM outbox WHERE kind = 'reveal'"
    )
    return row[0], row[1], row[2]


async def test_a_reveal_discord_took_before_a_kill_is_not_sent_again_after_the_window(
    discord_fake: FakeDiscord, tmp_path: Path, db_url: str
) -> None:
    fake = discord_fake
    await preconfigure_daily(db_url, fake)
    env = bot_env(fake.env(), db_url)

    first = await BotProcess(env, tmp_path / "bot1.log").start()
    try:
        await first.wait_started(WAIT)
        post = await fake.wait_for_message(is_daily_post, WAIT, channel=fake.channel2)
        await bot_reactions_done(fake, post, 3)
        assert await first.stop() == 0
    finally:
        if first.proc is not None and first.proc.returncode is None:
            await first.kill()

    def reveals() -> list[FakeMessage]:
        return [m for m in fake.messages(fake.channel2) if m.message_reference is not None]

    # The reveal is due: the next process reveals it at start-up, and dies the moment
    # Discord has stored it, before answering.
    past = (utcnow() - timedelta(minutes=1)).replace(tzinfo=None)
    db_rows(db_url, "UPDATE daily_post SET reveal_at = ?", (past,))
    second = BotProcess(env, tmp_path / "bot2.log")
    killed = asyncio.Event()

    async def kill_on_reveal(message: FakeMessage) -> None:
        if message.message_reference is not None and not killed.is_set():
            await second.kill()
            killed.set()

    fake.after_message_stored = kill_on_reveal
    try:
        await second.start()
        await asyncio.wait_for(killed.wait(), WAIT)
    finally:
        fake.after_message_stored = None
        if second.proc is not None and second.proc.returncode is None:
            await second.kill()
    (taken,) = reveals()
    claimed_by, delivered_at, _ = outbox_reveal(db_url)
    assert claimed_by is not None and delivered_at is None  # sent, never recorded

    # Later than Discord remembers the nonce, and than the dead process's lease.
    fake.nonce_window_s = 0
    late = bot_env(fake.env(), db_url, **{CLOCK_SHIFT: (LEASE + timedelta(minutes=5)).seconds})
    third = await BotProcess(late, tmp_path / "bot3.log").start()
    try:
        await third.wait_started(WAIT)  # start-up ends with the outbox's pass
        _, delivered_at, message_id = outbox_reveal(db_url)
        assert delivered_at is not None and int(str(message_id)) == taken.id
        assert await third.stop() == 0
    finally:
        if third.proc is not None and third.proc.returncode is None:
            await third.kill()
    assert reveals() == [taken]
    assert "already in the channel" in (tmp_path / "bot3.log").read_text()
