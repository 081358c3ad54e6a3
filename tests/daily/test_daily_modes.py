"""The daily question's modes without Discord (issues 23-25): answers by buttons from the
next post on, the shuffled order stored per post (older posts keep file order), the
discussion thread owed once at the reveal, and generated daily posts with their stored
instance (and the fall-back to written questions when none is ready)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta

import pytest
from sqlmodel import select

from bot.common.errors import StopReason
from bot.daily import configs_store, posts_store
from bot.daily.jobs import DailyJobs
from bot.daily.posts import DailyPosts
from bot.daily.questions import post_question
from bot.daily.reaction_rules import ANSWER_EMOJI
from bot.daily.service import DailyService
from bot.daily.types import BUTTONS, REACTIONS, AnswerStatus, shown_position
from bot.db.database import Database
from bot.db.tables.daily import DailyAnswer
from bot.db.tables.outbox import Outbox
from bot.db.tables.review import ReviewCard
from bot.demos.generated import InstancePool
from bot.outbox import store
from bot.outbox.rules import Owed
from bot.quizbank import QuizBank
from bot.quizbank.generated import GeneratedQuestion, template_key
from testkit.times import Clock
from tests.support.driver import CH1, DAY1, G1, T0, FakePublisher, configure, post_of
from tests.support.generated import Maker, quiz_with_templates

DAY2 = DAY1 + timedelta(days=1)
FP16 = template_key("fp16-round")


async def test_switching_to_buttons_takes_effect_from_the_next_post(
    daily: DailyService, jobs: DailyJobs, publisher: FakePublisher, clock: Clock
) -> None:
    await configure(daily)
    await jobs.run_post_job(G1)
    first = await post_of(daily, G1, DAY1)
    assert first.answer_mode == REACTIONS and ("reactions", first.message_id) in publisher.events
    await configure(daily, answer_mode=BUTTONS)
    assert first.message_id is not None
    # Today's post keeps its reactions.
    status = await jobs.reactions.on_reaction(first.message_id, CH1, 1, ANSWER_EMOJI[0])
    assert status is AnswerStatus.RECORDED

    clock.now = T0 + timedelta(days=1)
    await jobs.run_post_job(G1)
    second = await post_of(daily, G1, DAY2)
    assert second.answer_mode == BUTTONS and second.settled is False
    assert ("reactions", second.message_id) not in publisher.events  # none owed
    assert second.message_id is not None and second.id is not None
    # A reaction on a buttons post is no answer; a press is.
    assert await jobs.reactions.on_reaction(second.message_id, CH1, 2, ANSWER_EMOJI[0]) is None
    assert not jobs.reactions.grade_and_queue(second.message_id + 1, 2, 0)  # not in memory
    pressed = await daily.answers.button_post(second.id, CH1, second.message_id)
    assert pressed is not None
    assert (await daily.answers.record(pressed, 2, 1)).status is AnswerStatus.RECORDED
    assert (await daily.answers.record(pressed, 2, 0)).status is AnswerStatus.DUPLICATE
    assert second.choice_order is not None
    assert await posts_store.answer_of(daily.db, second.id, 2) == second.choice_order[1]
    # A forged press: another post's id, or a reactions post.
    assert await daily.answers.button_post(second.id + 1, CH1, second.message_id) is None
    assert await daily.answers.button_post(first.id or 0, CH1, first.message_id) is None


async def test_each_post_keeps_its_order_and_older_posts_keep_file_order(
    daily: DailyService, jobs: DailyJobs, bank: QuizBank, clock: Clock
) -> None:
    await configure(daily)
    orders = set()
    for day in range(8):
        clock.now = T0 + timedelta(days=day)
        await jobs.run_post_job(G1)
        post = await post_of(daily, G1, DAY1 + timedelta(days=day))
        assert post.choice_order is not None and sorted(post.choice_order) == [0, 1, 2]
        orders.add(tuple(post.choice_order))
    assert len(orders) > 1  # shuffled per post (8 posts in one order: 1 in 3^7)

    # A post made before the shuffle (no stored order) shows and grades in file order.
    old = await posts_store.claim(
        daily.db, G1, DAY1 - timedelta(days=30), "mx-02", CH1, T0 + timedelta(9), daily.clock()
    )
    assert old is not None and old.id is not None
    old = await daily.posts.set_message(old.id, 4242)
    cached = await daily.answers.post_by_message(4242, CH1)
    assert cached is not None and cached.order is None
    right = bank.question("mx-02").answer
    assert (await daily.answers.record(cached, 7, right)).correct is True
    assert (await daily.answers.record(cached, 8, (right + 1) % 3)).correct is False


async def test_the_discussion_thread_is_owed_once_and_a_refusal_turns_it_off(
    daily: DailyService, jobs: DailyJobs, publisher: FakePublisher, clock: Clock
) -> None:
    await configure(daily, discussion=True)
    await jobs.run_post_job(G1)
    post = await post_of(daily, G1, DAY1)
    clock.now = post.reveal_at
    await jobs.run_reveal_job(post.id)
    await jobs.run_reveal_job(post.id)
    await jobs.run_outbox_job()
    assert publisher.events.count(("discussion", post.message_id)) == 1
    kinds = [e[0] for e in publisher.events]
    assert kinds.index("reveal") < kinds.index("discussion")

    # Discord refuses the next thread (no Create Public Threads): discussion off, the
    # admin told at their next command, the daily question goes on.
    clock.now = T0 + timedelta(days=1)
    await jobs.run_post_job(G1)
    second = await post_of(daily, G1, DAY2)
    publisher.refuse[CH1] = StopReason.FORBIDDEN
    clock.now = second.reveal_at
    await jobs.run_reveal_job(second.id)
    config = await configs_store.get(daily.db, G1)
    assert config is not None and config.enabled and not config.discussion
    assert config.disabled_reason == StopReason.THREADS_FORBIDDEN and not config.admin_notified
    item = await store.item(jobs.db, Owed.DISCUSSION, second.id)  # type: ignore[arg-type]
    assert item is not None and item.gave_up == StopReason.FORBIDDEN
    assert publisher.events.count(("discussion", second.message_id)) == 0

    del publisher.refuse[CH1]
    clock.now = T0 + timedelta(days=2)
    await jobs.run_post_job(G1)
    third = await post_of(daily, G1, DAY2 + timedelta(days=1))
    clock.now = third.reveal_at
    await jobs.run_reveal_job(third.id)
    assert await store.item(jobs.db, Owed.DISCUSSION, third.id) is None  # type: ignore[arg-type]


class TakenMeanwhile:
    """A pool whose instance is gone between `ready` and `take` (another front end took it)."""

    def ready(self, template: str) -> bool:
        return True

    def take(self, template: str) -> None:
        return None


@pytest.fixture
async def gen_daily(
    open_db: Callable[[], Awaitable[Database]], clock: Clock
) -> AsyncIterator[DailyService]:
    bank = QuizBank([quiz_with_templates("fmt", ("fp16-round",))])
    pool = InstancePool(Maker(), bank.templates, size=2)  # the worker not started yet
    service = DailyService(await open_db(), bank, clock=clock, pool=pool)
    await service.start()
    yield service
    await service.close()
    await pool.close()


async def test_a_generated_daily_post_is_graded_by_its_stored_instance(
    gen_daily: DailyService, make_jobs: Callable[[DailyService], DailyJobs], clock: Clock
) -> None:
    daily = gen_daily
    jobs = make_jobs(daily)
    await configure(daily, topic="fmt", repeat_after=2)
    # The written questions were posted the last two days: the template is due today.
    for back, question_id in ((2, "fm-01"), (1, "fm-02")):
        old = await posts_store.claim(
            daily.db, G1, DAY1 - timedelta(back), question_id, CH1, T0, daily.clock()
        )
        assert old is not None and old.id is not None
        await daily.settling.settle(old.id, T0 - timedelta(days=back))
    pool = daily.posts.pool
    assert pool is not None
    # No instance ready (the worker not started): the day asks a written question.
    assert (await daily.posts.plan(G1, DAY1, "fmt", 2)).instance is None
    # Chosen, but its instance was taken meanwhile: a written question after all.
    taken = DailyPosts(daily.db, daily.bank, clock, daily.open_posts, TakenMeanwhile())  # type: ignore[arg-type]
    plan = await taken.plan(G1, DAY1, "fmt", 2)
    assert plan.instance is None and plan.choice.question_id == "fm-01"
    pool.start()
    await pool.full()
    await jobs.run_post_job(G1)
    post = await post_of(daily, G1, DAY1)
    assert post.question_id == FP16 and post.instance is not None and post.id is not None
    question = post_question(daily.bank, post.question_id, post.instance)
    assert isinstance(question, GeneratedQuestion) and question.template == "fp16-round"
    assert post.choice_order is not None
    right = shown_position(post.choice_order, question.answer)
    assert post.message_id is not None
    for user, position in ((1, right), (2, (right + 1) % question.n_choices)):
        outcome = await jobs.reactions.on_reaction(
            post.message_id, CH1, user, ANSWER_EMOJI[position]
        )
        assert outcome is AnswerStatus.RECORDED

    # Another process (a restart) grades and settles with the same stored instance.
    again = DailyService(daily.db, daily.bank, clock=clock)
    await again.start()
    try:
        clock.now = post.reveal_at
        summary = await again.settling.settle(post.id)
    finally:
        await again.close()
    assert (summary.answered, summary.correct, summary.correct_choice) == (2, 1, question.answer)
    async with daily.db.session() as session:
        answers = (
            await session.exec(select(DailyAnswer).where(DailyAnswer.post_id == post.id))
        ).all()
        cards = (await session.exec(select(ReviewCard).where(ReviewCard.question_id == FP16))).all()
        owed = (await session.exec(select(Outbox).where(Outbox.post_id == post.id))).all()
    assert {(a.user_id, a.choice) for a in answers} == {
        (1, question.answer),
        (2, post.choice_order[(right + 1) % question.n_choices]),
    }
    assert sorted(c.user_id for c in cards) == [1, 2]  # review cards per template
    assert {o.kind for o in owed} == {Owed.REACTIONS, Owed.REVEAL}
