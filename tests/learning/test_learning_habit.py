"""Progress at a glance and the server's retention (issue 26.2, 26.4): answers per day
counted once as they are applied, runs of days, true retention against the target, the
class's retention curve, and the daily choice against the server's target."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from fsrs import Rating

from bot.daily.choice_rules import KNOWN, WEAK, choose
from bot.daily.configs_store import save
from bot.db.database import Database
from bot.learning.activity_rules import runs, window_start
from bot.learning.cards_store import record_grades
from bot.learning.memory import MemoryModels
from bot.learning.memory_rules import retention_curve, rules_of
from bot.learning.memory_store import rules_for
from bot.learning.recall_rules import CARDS, Signal
from bot.learning.review import Reviews
from bot.learning.review_rules import QUIZ, SCHEDULER, Grade, Source, review
from bot.quizbank import QuizBank
from bot.stats.progress import ProgressReports

G, U = 31337, 7
T0 = datetime(2026, 6, 1, 22, 30, tzinfo=UTC)  # 05:30 on June 2 in Jakarta


def test_runs_of_days_current_ends_today_or_yesterday() -> None:
    today = date(2026, 6, 20)
    days = {today - timedelta(days=n) for n in (1, 2, 3, 10, 11, 12, 13, 30)}
    current, longest = runs(days, today)
    assert current == (today - timedelta(days=3), today - timedelta(days=1))
    assert longest == (today - timedelta(days=13), today - timedelta(days=10))
    assert runs(days, today + timedelta(days=2))[0] is None  # a day missed: no current run
    assert runs(set(), today) == (None, None)
    assert window_start(today).weekday() == 0 and (today - window_start(today)).days < 26 * 7


def test_the_class_curve_falls_from_today_and_a_fit_changes_it() -> None:
    now = T0
    card = review(None, Rating.Good, now - timedelta(days=2))
    points = [(card.stability or 0.0, card.last_review or now)]
    curve = retention_curve(points, SCHEDULER, now, 30)
    assert len(curve) == 31 and curve == sorted(curve, reverse=True)
    assert curve[0] == SCHEDULER.get_card_retrievability(card, now)
    assert retention_curve([], SCHEDULER, now, 30) == []


async def test_answers_count_once_per_day_of_the_servers_timezone_and_true_retention(
    db: Database, bank: QuizBank
) -> None:
    await save(
        db,
        G,
        T0,
        channel_id=1,
        post_time="08:00",
        timezone="Asia/Jakarta",
        topic=None,
        reveal_after_hours=None,
        locale="en",
        repeat_after_days=None,
        retention=0.85,
    )
    rules = await rules_for(db, G)
    assert rules.retention == 0.85 and str(rules.tz) == "Asia/Jakarta"
    q1, q2 = (q.id for q in bank.visible_questions(G)[:2])

    async def answer(question: str, correct: bool, when: datetime, ref: str) -> int:
        async with db.session() as session:
            grade = Grade(U, question, correct, when, Source(QUIZ, ref), guild_id=G)
            applied = await record_grades(session, [grade, grade], rules)  # twice: once
            await session.commit()
        return applied

    assert await answer(q1, True, T0, "a") == 1
    assert await answer(q2, False, T0, "b") == 1
    # q1 is due days later: a due review, answered right; q2 is an open mistake: not one.
    later = T0 + timedelta(days=20)
    assert await answer(q1, True, later, "c") == 1
    assert await answer(q2, True, later, "d") == 1
    assert await answer(q1, False, later, "a") == 0  # the same source again: not counted

    progress = ProgressReports(db, bank, Reviews(db, bank), clock=lambda: later)
    habit = await progress.habit(U, G, None)
    assert habit.target == 0.85
    jakarta_days = {date(2026, 6, 2): 2, date(2026, 6, 22): 2}
    assert dict(habit.counts) == jakarta_days  # 22:30 UTC is the next day in Jakarta
    assert (habit.due_reviews, habit.due_right, habit.true_retention) == (1, 1, 1.0)
    assert habit.runs == ((date(2026, 6, 22),) * 2, (date(2026, 6, 22),) * 2)

    curve = await MemoryModels(db, clock=lambda: later).class_curve(G)
    assert curve.cards == 2 and len(curve.recall) == 31 and curve.target == 0.85
    other = await MemoryModels(db, clock=lambda: later).class_curve(G + 1)
    assert other.recall == [] and other.cards == 0


def test_the_daily_choice_weighs_recall_against_the_servers_target() -> None:
    day = date(2026, 6, 1)
    signals = {"a": Signal(0.93, CARDS, 5), "b": Signal(0.99, CARDS, 5)}
    relaxed = choose(G, day, ["a", "b"], [], signals, 1, 5, target=0.90)
    strict = choose(G, day, ["a", "b"], [], signals, 1, 5, target=0.95)
    assert strict.question_id == "a" and strict.reason.rule == WEAK
    assert relaxed.reason.rule == KNOWN  # 93 % is above a 90 % target
    assert rules_of(None, 0.95, None).scheduler.desired_retention == 0.95
