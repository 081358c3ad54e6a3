"""Budget 1: reaction grading throughput, and the shared reaction feeder.

Path measured: pre-serialised MESSAGE_REACTION_ADD frames (JSON text, member payload
included, as Discord sends them) are handed to discord.py's own
`DiscordWebSocket.received_message` of the connected shard. So discord.py's real JSON
decoding, its reaction parser (RawReactionActionEvent, Member) and its dispatch are in
the path, then the bot's reaction hook in `QuizTutorBot.dispatch` (an answer emoji on
a post this process holds open is graded and queued synchronously), the grading and the
batched `AnswerWriter` commit; only the socket read is not. Why not the stand-in's websocket: it sends one
frame per `await ws.send_str` under a lock and keeps every frame for replay, so it is
reported as its own row rather than hidden in the figure.

Baselines (same run, same frames): the awaited path (a task per reaction awaits
`DailyJobs.on_reaction` and its commit, the same writer), and a naive handler: the
awaited path with a session and a commit per reaction.

Issue 14 measured a replacement of discord.py's private reaction parser against this
public path in one run and removed it: 1.58x at bursts (64,257-65,980/s against
39,611-41,460/s, n=3), 1.24x less CPU at a steady 2,000/s, under the 2x it had to buy.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError

from bench.common import (
    WAIT_S,
    Row,
    awaited_path,
    count_rows,
    gateway_ws,
    jobs_of,
    open_daily_post,
    reaction_frame,
    running_bot,
    stand_in,
    summary,
    workdir,
)
from bot.common.times import utcnow
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.daily.types import AnswerStatus, DailyAnswerOutcome, OpenPost
from bot.db.tables.daily import DailyAnswer
from bot.discord.client import QuizTutorBot

NAME = "reactions"
# A socket read hands discord.py about this many ~0.6 KiB frames before the loop runs
# anything else (64 KiB reads), so the feeder yields that often.
FRAMES_PER_READ = 100
USER_BASE = 10**15


def burst_frames(
    post: OpenPost, n_choices: int, events: int, user_base: int, seq0: int
) -> tuple[list[str], int]:
    """`events` frames: ~95% first answers, ~5% later changes of answer (must not count).

    Returns (frames, unique answering members). Member k answers ANSWER_EMOJI[k % n].
    """
    changes = events // 20
    unique = events - changes
    order: list[tuple[int, int]] = [(k, k % n_choices) for k in range(unique)]
    # A change of answer by every 19th member, placed after their first reaction.
    for j in range(changes):
        k = (j * 19) % unique
        order.insert(min(len(order), k + 50 + j), (k, (k + 1) % n_choices))
    frames = [
        reaction_frame(seq0 + i, post, user_base + k, ANSWER_EMOJI[c])
        for i, (k, c) in enumerate(order)
    ]
    return frames, unique


async def feed(ws: Any, frames: list[str], on_feed: Callable[[int], None] | None = None) -> None:
    """Hand frames to discord.py back to back, yielding once per simulated socket read."""
    for i, frame in enumerate(frames):
        if on_feed is not None:
            on_feed(i)
        await ws.received_message(frame)
        if i % FRAMES_PER_READ == FRAMES_PER_READ - 1:
            await asyncio.sleep(0)


def naive_record_answer(bot: QuizTutorBot) -> Callable[..., Any]:
    """The baseline: a session and a commit per reaction (what the writer replaces)."""
    daily = bot.services.daily

    async def record(
        post: OpenPost, user_id: int, choice: int, now: datetime | None = None
    ) -> DailyAnswerOutcome:
        question = daily.bank.question(post.question_id)
        correct = choice == question.answer
        async with daily.db.session() as session:
            session.add(
                DailyAnswer(
                    post_id=post.post_id,
                    user_id=user_id,
                    choice=choice,
                    correct=correct,
                    answered_at=now or utcnow(),
                )
            )
            try:
                await session.commit()
            except IntegrityError:
                await session.rollback()
                return DailyAnswerOutcome(AnswerStatus.DUPLICATE)
        return DailyAnswerOutcome(AnswerStatus.RECORDED, correct)

    return record


async def graded_burst(
    bot: QuizTutorBot, post: OpenPost, n_choices: int, events: int, user_base: int
) -> tuple[float, int]:
    """Feed a burst; seconds until every event was handled (answers committed), uniques."""
    jobs = jobs_of(bot)
    ws = gateway_ws(bot)
    frames, unique = burst_frames(post, n_choices, events, user_base, 10**7 + user_base % 10**6)
    seen = jobs.reactions.seen.count
    start = time.perf_counter()
    await feed(ws, frames)
    await asyncio.wait_for(jobs.reactions.wait_seen(seen + events), WAIT_S * 3)
    return time.perf_counter() - start, unique


def _span(spread: tuple[float, float]) -> str:
    return f"{spread[0]:,.0f}\u2013{spread[1]:,.0f}/s"


def check_rows(tmp: Any, post: OpenPost, user_base: int, n_choices: int, unique: int) -> str:
    """'' when exactly one row per member, holding their FIRST answer; else the problem."""
    mine = "post_id = ? AND user_id BETWEEN ? AND ?"
    span = (post.post_id, user_base, user_base + unique + 10**6)
    rows = count_rows(tmp, f"SELECT COUNT(*) FROM daily_answer WHERE {mine}", span)
    wrong = count_rows(
        tmp,
        f"SELECT COUNT(*) FROM daily_answer WHERE {mine} AND choice != (user_id - ?) % ?",
        (*span, user_base, n_choices),
    )
    if rows != unique or wrong:
        return f"rows {rows} != {unique} members or {wrong} not the first answer"
    return ""


REPEATS = 3


async def stand_in_ws_rates(events: int) -> tuple[float, int, tuple[float, float]]:
    """Frames/s the stand-in's websocket delivers end to end (its own ceiling).

    Median of `REPEATS` runs, each on its own post; returns (median rate, the fewest
    rows any run wrote, spread)."""
    rates: list[float] = []
    fewest = events
    async with stand_in() as fake:
        with workdir() as tmp:
            async with running_bot(fake, tmp) as bot:
                jobs = jobs_of(bot)
                for rep in range(REPEATS):
                    post, n_choices = await open_daily_post(
                        bot, fake.guild.id, fake.channel2.id, day_offset=rep
                    )
                    seen = jobs.reactions.seen.count
                    start = time.perf_counter()
                    for k in range(events):
                        data = {
                            "user_id": str(USER_BASE + k),
                            "channel_id": str(post.channel_id),
                            "message_id": str(post.message_id),
                            "guild_id": str(post.guild_id),
                            "emoji": {"id": None, "name": ANSWER_EMOJI[k % n_choices]},
                            "burst": False,
                            "burst_colors": [],
                            "type": 0,
                        }
                        await fake.gateway.dispatch("MESSAGE_REACTION_ADD", data)
                    await asyncio.wait_for(jobs.reactions.wait_seen(seen + events), WAIT_S * 3)
                    rates.append(events / (time.perf_counter() - start))
                    fewest = min(
                        fewest,
                        count_rows(
                            tmp,
                            "SELECT COUNT(*) FROM daily_answer WHERE post_id = ?",
                            (post.post_id,),
                        ),
                    )
    rate, _, spread = summary(rates)
    return rate, fewest, spread


async def run(quick: bool) -> list[Row]:
    events = 500 if quick else 20_000
    naive_events = 200 if quick else 2_000
    ws_events = 200 if quick else 3_000
    fast: list[float] = []
    awaited: list[float] = []
    naive: list[float] = []
    problems: list[str] = []
    naive_problems: list[str] = []
    async with stand_in() as fake:
        with workdir() as tmp:
            async with running_bot(fake, tmp) as bot:
                daily = bot.services.daily
                post, n = await open_daily_post(bot, fake.guild.id, fake.channel2.id)
                awaited_post, _ = await open_daily_post(
                    bot, fake.guild.id, fake.channel2.id, day_offset=1
                )
                naive_post, _ = await open_daily_post(
                    bot, fake.guild.id, fake.channel2.id, day_offset=2
                )
                # Warm both paths (first-use costs: statement cache, parser, listener).
                await graded_burst(bot, post, n, 100, USER_BASE * 2)
                with awaited_path(bot):
                    await graded_burst(bot, awaited_post, n, 100, USER_BASE * 2)
                # Interleaved repeats, so a noisy neighbour hits all three alike.
                for rep in range(REPEATS):
                    base = USER_BASE + rep * 10**7  # fresh members in every repeat
                    seconds, unique = await graded_burst(bot, post, n, events, base)
                    fast.append(events / seconds)
                    problems.append(check_rows(tmp, post, base, n, unique))
                    with awaited_path(bot):
                        seconds, unique = await graded_burst(bot, awaited_post, n, events, base)
                    awaited.append(events / seconds)
                    problems.append(check_rows(tmp, awaited_post, base, n, unique))
                    # The naive handler: the awaited path, then a session and a commit
                    # per answer.
                    real = daily.answers.record
                    daily.answers.record = naive_record_answer(bot)  # type: ignore[method-assign]
                    try:
                        with awaited_path(bot):
                            seconds, unique = await graded_burst(
                                bot, naive_post, n, naive_events, base
                            )
                    finally:
                        daily.answers.record = real  # type: ignore[method-assign]
                    naive.append(naive_events / seconds)
                    naive_problems.append(check_rows(tmp, naive_post, base, n, unique))
    rate, reps, rate_spread = summary(fast)
    awaited_rate, _, awaited_spread = summary(awaited)
    naive_rate, _, naive_spread = summary(naive)
    problem = "; ".join(p for p in problems if p)
    naive_problem = "; ".join(dict.fromkeys(p for p in naive_problems if p))
    unique = events - events // 20
    ws_rate, ws_rows, ws_spread = await stand_in_ws_rates(ws_events)
    ok = not problem
    return [
        Row(
            NAME,
            f"graded/s, burst of {events:,}",
            rate,
            "/s",
            ">=10,000/s and >=10x naive",
            ok and rate >= 10_000 and rate >= 10 * naive_rate,
            checked=ok,
            baseline=naive_rate,
            baseline_what=f"naive, {naive_events:,}",
            ratio_budget=">=10x",
            n=reps,
            spread=rate_spread,
            note=problem
            or f"{unique:,} rows for {unique:,} members (+{events - unique:,} changed answers"
            f" ignored); naive {naive_rate:,.0f}/s ({_span(naive_spread)}):"
            f" {naive_problem.replace('!=', 'for') or 'rows ok'}"
            " (its concurrent sessions may commit a changed answer first)",
        ),
        Row(
            NAME,
            "synchronous queueing vs the awaited path",
            rate,
            "/s",
            "(info)",
            None if not problem else False,
            baseline=awaited_rate,
            baseline_what="awaited, same writer",
            n=reps,
            spread=rate_spread,
            note=f"awaited {awaited_rate:,.0f}/s ({_span(awaited_spread)}); per-repeat ratios "
            + ", ".join(f"{f / a:.2f}x" for f, a in zip(fast, awaited, strict=True)),
        ),
        Row(
            NAME,
            "stand-in websocket ceiling",
            ws_rate,
            "/s",
            "(info)",
            None if ws_rows == ws_events else False,
            baseline=rate,
            baseline_what="parser feed",
            better="",
            n=REPEATS,
            spread=ws_spread,
            note=f"{ws_events:,} events through the stand-in's ws per run; {ws_rows:,} rows",
        ),
    ]
