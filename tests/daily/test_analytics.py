"""Class analytics as numbers on a seeded database, and the charts as PNGs drawn off the loop."""

from __future__ import annotations

import subprocess
import sys
import threading
from datetime import UTC, date, datetime, timedelta

from bot.daily.analytics_rules import week_starts
from bot.daily.analytics_store import class_analytics
from bot.db.database import Database
from bot.db.tables.daily import DailyAnswer, DailyPost
from bot.quizbank import QuizBank
from bot.stats.charts import PNG_MAGIC, Bar, ChartRenderer, class_png
from tests.support.analytics import seed_class, settle_seeded, wrong_choices

TODAY = date(2026, 5, 20)  # a Wednesday
GUILD = 5


def test_week_starts_are_the_mondays_up_to_today() -> None:
    assert week_starts(TODAY, 3) == [date(2026, 5, 4), date(2026, 5, 11), date(2026, 5, 18)]
    assert week_starts(date(2026, 5, 18), 1) == [date(2026, 5, 18)]  # a Monday is its own week


async def test_accuracy_misconceptions_and_weekly_participation(
    db: Database, bank: QuizBank
) -> None:
    await seed_class(db, bank, GUILD, TODAY, ("mx-01", "mx-02", "mx-03"))
    w1 = wrong_choices(bank, "mx-01")[0]
    found = await class_analytics(db, GUILD, TODAY, weeks=8)

    # Worst first; the open question (mx-03) is not listed: its answer is still secret.
    assert [(q.question_id, q.posts, q.answered, q.correct) for q in found.questions] == [
        ("mx-01", 2, 5, 1),
        ("mx-02", 2, 4, 3),
    ]
    first, second = found.questions
    assert (first.top_wrong, first.top_wrong_count) == (w1, 3)
    assert first.accuracy == 0.2
    assert (second.top_wrong, second.top_wrong_count) == (wrong_choices(bank, "mx-02")[0], 1)
    assert found.worst(1) == [first]
    assert found.total_posts == 5  # open and old ones included, the other server not

    # 8 weeks, oldest first, zeros included; the open post counts for participation,
    # the post 70 days ago and the other server do not.
    assert [w.week_start for w in found.weeks] == week_starts(TODAY, 8)
    assert [(w.members, w.answers, w.posts) for w in found.weeks] == [
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (0, 0, 0),
        (4, 4, 1),  # week of May 4: q1
        (3, 3, 1),  # week of May 11: q2
        (2, 2, 2),  # this week: q1 again (u5) and the open q3 (u1)
    ]


async def test_ties_go_to_the_lower_choice_and_empty_servers_are_empty(
    db: Database, bank: QuizBank
) -> None:
    await seed_class(db, bank, GUILD, TODAY, ("mx-01", "mx-02", "mx-03"))
    # Two weeks' window: only this week and the last.
    found = await class_analytics(db, GUILD, TODAY, weeks=2)
    assert [(w.members, w.answers) for w in found.weeks] == [(3, 3), (2, 2)]
    empty = await class_analytics(db, 99, TODAY, weeks=4)
    assert empty.questions == [] and empty.worst(5) == [] and empty.total_posts == 0
    assert [(w.members, w.answers, w.posts) for w in empty.weeks] == [(0, 0, 0)] * 4
    later = await class_analytics(db, GUILD, TODAY + timedelta(weeks=20), weeks=1)
    assert later.weeks[0].answers == 0 and len(later.questions) == 2

    # Two more members pick w2 on mx-01: w1 and w2 are tied at 3, the lower index is named.
    w1, w2 = wrong_choices(bank, "mx-01")[:2]
    async with db.session() as session:
        post = DailyPost(
            guild_id=GUILD,
            day=TODAY - timedelta(days=2),
            question_id="mx-01",
            channel_id=1,
            reveal_at=datetime(2026, 5, 19, tzinfo=UTC),
        )
        session.add(post)
        await session.flush()
        assert post.id is not None
        for user_id in (1, 2):
            session.add(
                DailyAnswer(
                    post_id=post.id,
                    user_id=user_id,
                    choice=w2,
                    correct=False,
                    answered_at=datetime(2026, 5, 18, tzinfo=UTC),
                )
            )
        await session.commit()
    await settle_seeded(db, bank, post.id, datetime(2026, 5, 19, tzinfo=UTC))
    tied = (await class_analytics(db, GUILD, TODAY)).questions[0]
    assert (tied.question_id, tied.answered, tied.top_wrong, tied.top_wrong_count) == (
        "mx-01",
        7,
        w1,
        3,
    )


async def test_charts_are_pngs_drawn_in_a_worker_thread() -> None:
    bars = [Bar(f"q-{i:02d}", i / 20, f"{i}/20") for i in range(20)]  # more than MAX_BARS
    threads: set[str] = set()

    def draw() -> bytes:
        threads.add(threading.current_thread().name)
        return class_png(bars, "Accuracy", [("05-04", 4), ("05-11", 0)], "Members")

    renderer = ChartRenderer(in_thread=True)
    png = await renderer.draw(draw)
    assert png.startswith(PNG_MAGIC) and len(png) > 1000
    assert threading.current_thread().name not in threads  # not on the loop's thread
    empty = await renderer.draw(class_png, [], "Accuracy", [("05-04", 0)], "Members")
    assert empty.startswith(PNG_MAGIC)


def test_the_bot_process_imports_neither_matplotlib_nor_torch_to_draw() -> None:
    # The default renderer draws in a spawned worker: the caller's process stays light,
    # and a killed worker is replaced on the next chart.
    script = """
import asyncio, os, signal, sys
from bot.stats.charts import ChartRenderer, Bar, accuracy_png
from concurrent.futures.process import BrokenProcessPool

async def main():
    renderer = ChartRenderer()
    png = await renderer.draw(accuracy_png, [Bar("a", 0.5, "1/2")], "t")
    assert png.startswith(b"\\x89PNG"), png[:8]
    for pid in list(renderer._pool._processes):
        os.kill(pid, signal.SIGKILL)
    try:
        await renderer.draw(accuracy_png, [Bar("a", 0.5)], "t")
    except BrokenProcessPool:
        pass
    again = await renderer.draw(accuracy_png, [Bar("b", 1.0)], "t")
    await renderer.close()
    print(len(png) > 1000, again.startswith(b"\\x89PNG"), "matplotlib" in sys.modules, "torch" in sys.modules)

asyncio.run(main())
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split() == ["True", "True", "False", "False"], out.stderr
