"""Issue 37.3: what a member of the big server waits for, through Discord.

`bench.scale` times the service calls behind each command; this benchmark times the
commands themselves as a member sees them: the real bot as its own process (exactly
`quiztutor run`, `testkit.processes.BotProcess`) on a copy of the scale benchmark's
cached largest server (`bench.scale_build`), its server, channel and members known to
the Discord stand-in, each slash command sent over the stand-in's websocket and timed
from its dispatch to its FINAL reply: the answer itself, or after a "thinking..."
deferral the follow-up, with its PNG where the command draws a chart.

Each run is one day after the history (the bot's clock at 08:00, an hour before the
server's post; `QT_CLOCK_SHIFT_S`), in a fresh bot process: every command is run once
untimed by other members (first-use imports, the chart process), then `/daily now`
(the day's question chosen and posted), `/daily stats`, `/me`, `/leaderboard` of each
kind, `/streak`, `/quiz review` and `/daily status` are timed; then the server's 2,000
most regular members react to the day's question over the websocket and, once their
answers are committed, `/daily reveal` is timed. Three runs are three consecutive days;
figures are medians of the runs. The bot's worst event-loop stall during each command
comes from a probe inside the bot process (`QT_STALL_PROBE`: the lateness of a 5 ms
sleep).

The first day after an upgrade: the year written at the oldest revision
(`bench.old_build`, cached) is upgraded to head by the project's own migrations, then
the bot starts on a copy of it (its clock at 08:30, after yesterday's reveal was due and
before today's post) and `/daily now` is sent the moment it says it has started, while
the class recall is still being folded in the background (`bot.learning.recall_backfill`).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import sys
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from bench.common import BACKEND, WAIT_S, Row, ms, stand_in, summary, workdir
from bench.old_build import cached_old, old_today
from bench.scale import QUICK_SIZES, SIZES
from bench.scale_build import CHANNEL, GUILD, USER_BASE, Size, cached, post_time
from bench.upgrade import QUICK_SIZE as QUICK_OLD_SIZE
from bench.upgrade import SIZE as OLD_SIZE
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.db.database import Database
from bot.quizbank.files import SHIPPED_DIR, load_bank
from testkit.databases import create_pg_database, db_rows, drop_pg_database
from testkit.processes import CLOCK_SHIFT, ROOT, STALL_PROBE, BotProcess, bot_env
from testkit.standin.models import FakeChannel, FakeUser
from testkit.standin.server import FakeDiscord

NAME = "scale_wire"
REPEATS = 3
REVEAL_ANSWERS = 2_000
QUICK_REVEAL_ANSWERS = 30
BUDGET_MS = 500.0
REVEAL_BUDGET_MS = 2_000.0
START_S = 180.0  # a bot process's start on the big server, at most
ADMIN_ID = USER_BASE - 1  # not a member with a history


@dataclass(frozen=True)
class Command:
    key: str
    label: str
    command: str
    chart: bool = False  # the final reply carries a PNG
    admin: bool = False  # Manage Server (/daily)
    options: dict[str, Any] = field(default_factory=dict)
    expect: str = ""  # in the final reply: the command did its work (not a refusal)


NOW = Command(
    "now",
    "/daily now (the day's question chosen and posted)",
    "daily now",
    admin=True,
    expect="Today's question is posted",
)
REVEAL = Command("reveal", "/daily reveal", "daily reveal", admin=True, expect="Revealed")
COMMANDS = (
    Command("stats", "/daily stats with its charts", "daily stats", chart=True, admin=True),
    Command("me", "/me with its charts", "me", chart=True),
    *(
        Command(f"leaderboard {by}", f"/leaderboard by {by}", "leaderboard", options={"by": by})
        for by in ("streak", "longest", "correct", "accuracy")
    ),
    Command("streak", "/streak", "streak"),
    Command("review", "/quiz review (start)", "quiz review"),
    Command("status", "/daily status", "daily status", admin=True),
)


@dataclass
class Wire:
    """The stand-in with the big server in it (the same ids as the cached histories)."""

    fake: FakeDiscord
    channel: FakeChannel
    admin: FakeUser

    def user(self, command: Command, member: int) -> FakeUser:
        return self.admin if command.admin else self.fake.users[member]


def known_server(fake: FakeDiscord, members: Sequence[int]) -> Wire:
    admin = FakeUser(ADMIN_ID, "scale_admin")
    guild = fake.add_guild("Scale", channels=(), admins=[admin], guild_id=GUILD)
    channel = fake.add_channel(guild, "daily", channel_id=CHANNEL)
    for member in members:
        fake.add_member(guild, FakeUser(member, f"member{member - USER_BASE}"))
    return Wire(fake, channel, admin)


async def final_ms(wire: Wire, command: Command, member: int) -> float:
    """ms from the command's dispatch to its final reply (with a PNG if it draws one)."""
    res = await wire.fake.slash(
        wire.user(command, member),
        command.command,
        channel=wire.channel,
        timeout=WAIT_S,
        options=command.options,
    )
    if res.type == 4:  # answered at once: that is the final reply
        assert not command.chart, f"{command.label}: answered without its chart"
        assert command.expect in res.text, f"{command.label}: {res.text}"
        return ms(res.first_response_s)

    def final(message: Any) -> bool:
        if message.loading:
            return False
        return not command.chart or any(a.filename.endswith(".png") for a in message.attachments)

    message = await res.wait_final(final, WAIT_S)
    took = ms(time.monotonic() - res.interaction.dispatched_at)
    assert command.expect in message.text(), f"{command.label}: {message.text()}"
    return took


@contextlib.asynccontextmanager
async def bot_at(
    wire: Wire, url: str, tmp: Path, now: datetime, tag: str
) -> AsyncIterator[BotProcess]:
    """The bot process on `url`, its clock at `now`, once it says it has started."""
    shift = (now - datetime.now(UTC)).total_seconds()
    env = bot_env(
        wire.fake.env(), url, LOG_LEVEL="WARNING", **{CLOCK_SHIFT: f"{shift:.3f}", STALL_PROBE: "1"}
    )
    bot = BotProcess(env, tmp / f"bot-{tag}.log")
    try:
        await bot.start()
        await bot.wait_started(START_S)
        yield bot
    finally:
        if bot.proc is not None and bot.proc.returncode is None:
            assert await bot.stop() == 0, bot.stderr_tail()


async def timed(bot: BotProcess, wire: Wire, command: Command, member: int) -> tuple[float, float]:
    """(ms to the final reply, the bot's worst loop stall meanwhile in ms)."""
    await bot.worst_stall_ms()  # starts over
    took = await final_ms(wire, command, member)
    return took, await bot.worst_stall_ms()


@dataclass
class Figures:
    times: dict[str, list[float]] = field(default_factory=dict)
    stalls: dict[str, list[float]] = field(default_factory=dict)

    def add(self, key: str, took: tuple[float, float]) -> None:
        self.times.setdefault(key, []).append(took[0])
        self.stalls.setdefault(key, []).append(took[1])


def _answers(url: str, message_id: int) -> int:
    sql = (
        "SELECT count(*) FROM daily_answer a JOIN daily_post p ON p.id = a.post_id"
        " WHERE p.message_id = ?"
    )
    return int(db_rows(url, sql, (message_id,))[0][0])


async def answered_by(wire: Wire, url: str, members: Sequence[int]) -> int:
    """The open post of the server, answered by `members` over the websocket; its id."""
    [(message_id,)] = db_rows(
        url, "SELECT message_id FROM daily_post WHERE guild_id = ? AND NOT settled", (GUILD,)
    )
    message = wire.fake.message(int(message_id))
    for k, member in enumerate(members):
        await wire.fake.react(message, wire.fake.users[member], ANSWER_EMOJI[k % 3])
    deadline = time.perf_counter() + WAIT_S
    while _answers(url, message.id) < len(members):
        assert time.perf_counter() < deadline, "the answers were not committed in time"
        await asyncio.sleep(0.05)
    return message.id


async def one_day(
    wire: Wire, url: str, tmp: Path, size: Size, run: int, regulars: list[int], got: Figures
) -> None:
    """A day after the history: every command once untimed, then timed; then the reveal."""
    day = size.today + timedelta(days=run)
    member = regulars[run % len(regulars)]
    warm = regulars[(REPEATS + run) % len(regulars)]  # answers often too: /me draws
    async with bot_at(wire, url, tmp, post_time(day) - timedelta(hours=1), f"day{run}") as bot:
        for command in COMMANDS:
            await final_ms(wire, command, warm)
        got.add(NOW.key, await timed(bot, wire, NOW, member))
        for command in COMMANDS:
            got.add(command.key, await timed(bot, wire, command, member))
        await answered_by(wire, url, regulars[: answers_of(size, regulars)])
        got.add(REVEAL.key, await timed(bot, wire, REVEAL, member))


def answers_of(size: Size, regulars: list[int]) -> int:
    wanted = REVEAL_ANSWERS if size in SIZES else QUICK_REVEAL_ANSWERS
    return min(wanted, len(regulars))


def delivered(url: str) -> None:
    """The history's posts, reactions and reveals as a server that lived it has them:
    delivered on their day (the build ran without Discord, so the outbox still owes
    them all, and a bot started on it would spend its first minutes on 730 messages the
    stand-in never saw, beside the commands timed)."""
    db_rows(url, "UPDATE outbox SET delivered_at = due_at WHERE delivered_at IS NULL")


def regulars_of(url: str) -> list[int]:
    """The server's members, those who answer most first (as `bench.scale`)."""
    sql = "SELECT user_id FROM member_stats WHERE guild_id = ? ORDER BY answered DESC, user_id"
    return [int(r[0]) for r in db_rows(url, sql, (GUILD,))]


def copy_of(url: str, tmp: Path, name: str) -> str:
    """Another copy of a database nobody is connected to (a file, or a PG template)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        assert parsed.database
        target = tmp / f"{name}.db"
        shutil.copyfile(parsed.database, target)
        return f"sqlite+aiosqlite:///{target}"
    return create_pg_database(BACKEND.pg_admin_url, template=parsed.database)


def drop(url: str) -> None:
    if not url.startswith("sqlite"):
        drop_pg_database(url)


@dataclass
class Upgrade:
    seconds: float
    label: str
    got: Figures = field(default_factory=Figures)


async def after_upgrade(wire: Wire, size: Size, tmp: Path, runs: int) -> Upgrade:
    """The old year upgraded to head once; then, on a copy each run, the bot's start and
    at once `/daily now`."""
    url, _built, _fresh = await cached_old(size, load_bank([SHIPPED_DIR]), tmp)
    try:
        db = await Database.open(url, migrate=False)
        try:
            start = time.perf_counter()
            await db.migrate_to("head")
            done = Upgrade(time.perf_counter() - start, size.label)
        finally:
            await db.close()
        # Each copy posts the same post (same id, same nonce): to Discord, each run's
        # post is a new message, not the last run's one sent again.
        wire.fake.nonce_window_s = 0
        for run in range(runs):
            copy = copy_of(url, tmp, f"upgraded{run}")
            try:
                at = post_time(old_today()) - timedelta(minutes=30)
                async with bot_at(wire, copy, tmp, at, f"upgrade{run}") as bot:
                    done.got.add(NOW.key, await timed(bot, wire, NOW, 0))
            finally:
                drop(copy)
    finally:
        drop(url)
    return done


async def run(quick: bool) -> list[Row]:
    size = QUICK_SIZES[-1] if quick else SIZES[-1]
    old_size = QUICK_OLD_SIZE if quick else OLD_SIZE
    runs = 1 if quick else REPEATS
    got = Figures()
    with workdir() as tmp:
        url, _built, _fresh = await cached(size, load_bank([SHIPPED_DIR]), tmp)
        try:
            delivered(url)
            regulars = regulars_of(url)
            async with stand_in() as fake:
                answers = answers_of(size, regulars)
                # Those who run a command or answer: Discord sends a big server's members
                # only with the events they cause.
                wire = known_server(fake, sorted({*regulars[:answers], *regulars[-runs:]}))
                sync = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "bot", "sync", env=bot_env(fake.env(), url), cwd=ROOT
                )
                assert await sync.wait() == 0, "quiztutor sync failed"
                for day in range(runs):
                    await one_day(wire, url, tmp, size, day, regulars, got)
                upgrade = await after_upgrade(wire, old_size, tmp, runs)
        finally:
            drop(url)
    return rows(got, upgrade, size, answers)


def _row(
    metric: str, values: list[float], budget: float | None, note: str = "", **extra: Any
) -> Row:
    figure, n, spread = summary(values)
    return Row(
        NAME,
        metric,
        figure,
        "ms",
        f"<={budget:,.0f} ms" if budget else "(info)",
        figure <= budget if budget else None,
        n=n,
        spread=spread,
        note=note,
        **extra,
    )


def rows(got: Figures, upgrade: Upgrade, size: Size, answers: int) -> list[Row]:
    where = f"final reply through the stand-in, bot process ({size.label})"
    out = []
    for command in (NOW, *COMMANDS, REVEAL):
        label = command.label
        budget = BUDGET_MS
        if command is REVEAL:
            label = f"/daily reveal of {answers:,} answers"
            budget = REVEAL_BUDGET_MS
        stall = max(got.stalls[command.key])
        out.append(
            _row(
                f"{label}, {where}",
                got.times[command.key],
                budget,
                f"worst bot loop stall {stall:.1f} ms",
            )
        )
    first = upgrade.got
    out.append(
        _row(
            f"/daily now on the first day after an upgrade, at once after start ({upgrade.label})",
            first.times[NOW.key],
            BUDGET_MS,
            f"upgrade to head before it {upgrade.seconds:.1f} s (not timed here: `upgrade`);"
            f" worst bot loop stall {max(first.stalls[NOW.key]):.1f} ms",
            baseline=summary(got.times[NOW.key])[0],
            baseline_what="a later day, same run",
        )
    )
    stalls = [s for values in (*got.stalls.values(), first.stalls[NOW.key]) for s in values]
    out.append(
        Row(
            NAME,
            "worst bot event-loop stall during the commands above (a probe in the bot process)",
            max(stalls),
            "ms",
            "(info)",
            None,
            n=len(stalls),
            n_what="commands",
            spread=(min(stalls), max(stalls)),
            note="the lateness of a 5 ms sleep on the bot's loop, worst per command",
        )
    )
    return out
