"""Generated questions in the product (issue 23): quiz files name templates, the pool of
ready instances, /quiz start and /quiz review sessions, review cards per template.

Instances are real (torch in this process, through `tests.support.generated.Maker`, which
stands in for the worker's `generate_batch`); the worker path itself is in
tests/demos/test_generated_worker.py.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlmodel import select

from bot.db.database import Database
from bot.db.tables.quiz import QuizResult
from bot.demos.generated import InstancePool
from bot.learning.cards_store import cards_of
from bot.quiz import sessions_store
from bot.quiz.sessions import NothingDue, QuizSessions
from bot.quizbank import QuizBank, QuizFileError, parse_quiz
from bot.quizbank.files import load_quizzes
from bot.quizbank.generated import GeneratedQuestion, template_key
from tests.support.db import make_quiz
from tests.support.generated import Maker, quiz_with_templates

USER = 1
TEMPLATES = ("fp16-round", "effective-batch")
FP16 = template_key("fp16-round")


@pytest.fixture
def gen_bank() -> QuizBank:
    """ "fmt": 2 written questions and 2 templates; "accum": 3 written questions."""
    return QuizBank([quiz_with_templates("fmt", TEMPLATES), make_quiz("accum", [2, 0, 1])])


@pytest.fixture
async def pool(gen_bank: QuizBank) -> AsyncIterator[InstancePool]:
    pool = InstancePool(Maker(), gen_bank.templates, size=2, retry_s=0.001)
    pool.start()
    await asyncio.wait_for(pool.full(), 60)
    yield pool
    await pool.close()


# --------------------------------------------------------------------------- quiz files


def test_a_quiz_file_names_templates_and_an_unknown_one_is_reported_at_its_line() -> None:
    quiz = quiz_with_templates("fmt", TEMPLATES)
    assert [(e.id, e.template) for e in quiz.generated] == [
        ("fm-g1", "fp16-round"),
        ("fm-g2", "effective-batch"),
    ]
    text = (
        "id: q\ntitle: {en: Q}\ndescription: {en: D}\nquestions:\n"
        "  - id: q-01\n    prompt: {en: P?}\n    choices: {en: [a, b]}\n    answer: 0\n"
        "    explanation: {en: E.}\n"
        "generated:\n"
        "  - id: q-g1\n    template: fp16-rounds\n"  # line 11-12
        "  - id: q-01\n    template: bf16-round\n"  # the written question's id
        "  - id: q-g3\n    template: bf16-round\n"  # a template twice
    )
    with pytest.raises(QuizFileError) as caught:
        parse_quiz(text, "q.yaml")
    problems = [str(p) for p in caught.value.problems]
    assert problems[0].startswith(
        "q.yaml:12: generated[0].template: unknown template 'fp16-rounds'; known: fp16-round, "
    )
    assert problems[1:] == [
        "q.yaml:13: generated[1].id: duplicate id 'q-01' (also questions[0])",
        "q.yaml:16: generated[2].template: template 'bf16-round' is already in generated[1]",
    ]


def test_entry_ids_are_unique_across_files_and_in_the_bank(tmp_path: Path) -> None:
    one = tmp_path / "one.yaml"
    one.write_text(
        "id: one\ntitle: {en: One}\ndescription: {en: D}\nquestions:\n"
        "  - id: o-01\n    prompt: {en: P?}\n    choices: {en: [a, b]}\n    answer: 0\n"
        "    explanation: {en: E.}\n"
        "generated:\n  - id: shared\n    template: fp16-round\n"
    )
    two = tmp_path / "two.yaml"
    two.write_text(one.read_text().replace("id: one", "id: two").replace("o-01", "t-01"))
    _, problems = load_quizzes([one, two])
    assert [str(p) for p in problems] == [
        f"{two}:11: generated[0].id: duplicate question id 'shared' (also in {one})"
    ]
    bank = QuizBank([quiz_with_templates("fmt", TEMPLATES)])
    with pytest.raises(ValueError, match="fm-g1"):  # "fmx" has the same ids, "fm-..."
        bank.add(quiz_with_templates("fmx", ("bf16-round",)))


def test_the_bank_knows_templates_and_their_keys(gen_bank: QuizBank) -> None:
    assert gen_bank.templates() == list(TEMPLATES)
    assert gen_bank.quiz_of(FP16).id == gen_bank.quiz_of("fm-g1").id == "fmt"
    with pytest.raises(KeyError):
        gen_bank.quiz_of(template_key("bf16-round"))
    # The question-only views (the daily question's) see written questions alone.
    assert [q.id for q in gen_bank.visible_questions(None, "fmt")] == ["fm-01", "fm-02"]
    items = gen_bank.pick_items(
        None, "fmt", None, random.Random(1), generated=lambda t: t == "fp16-round"
    )
    assert sorted(i.id for i in items) == ["fm-01", "fm-02", "fm-g1"]
    assert len(gen_bank.pick_items(None, "fmt", None, random.Random(1))) == 2


def test_shipped_quizzes_name_every_template_once(shipped_bank: QuizBank) -> None:
    from experiments.generators import TEMPLATES as REGISTRY

    assert sorted(shipped_bank.templates()) == sorted(REGISTRY)
    for quiz in shipped_bank.quizzes.values():
        assert len(quiz.questions) >= 8, "a quiz keeps enough written questions to fall back on"


# --------------------------------------------------------------------------- the pool


async def test_the_pool_hands_out_ready_instances_and_refills_in_the_background(
    gen_bank: QuizBank,
) -> None:
    maker = Maker()
    pool = InstancePool(maker, gen_bank.templates, size=3)
    assert not pool.ready("fp16-round")  # nothing made before it starts
    pool.start()
    try:
        await asyncio.wait_for(pool.full(), 60)
        calls = maker.calls
        assert calls == len(TEMPLATES) and pool.made == 6
        first = pool.take("fp16-round")
        second = pool.take("fp16-round")
        # Taken without a round trip to the worker: no call was made in between.
        assert maker.calls == calls
        assert first is not None and second is not None and first.seed != second.seed
        assert first.template == "fp16-round" and pool.count("fp16-round") == 1
        await asyncio.wait_for(pool.full(), 60)  # refilled in the background
        assert maker.calls == calls + 1 and pool.count("fp16-round") == 3
        assert pool.take("bf16-round") is None  # not named by any quiz: none made
    finally:
        await pool.close()


async def test_without_a_worker_there_are_no_generated_questions(
    gen_bank: QuizBank, caplog: pytest.LogCaptureFixture
) -> None:
    pool = InstancePool(None, gen_bank.templates)
    with caplog.at_level(logging.INFO, logger="quiztutor.generated"):
        pool.start()
    assert not pool.enabled and not pool.ready("fp16-round") and pool.take("fp16-round") is None
    assert caplog.text.count("generated questions off") == 1
    await pool.close()


async def test_a_worker_that_is_down_is_logged_once_and_instances_flow_again(
    gen_bank: QuizBank, caplog: pytest.LogCaptureFixture
) -> None:
    maker = Maker()
    maker.down = True
    pool = InstancePool(maker, gen_bank.templates, size=2, retry_s=0.001)
    with caplog.at_level(logging.INFO, logger="quiztutor.generated"):
        pool.start()
        try:
            await asyncio.wait_for(maker.called(4), 30)  # retried (with a back-off)
            assert not pool.ready("fp16-round")
            assert caplog.text.count("generated questions unavailable") == 1
            assert "demo worker died" in caplog.text
            maker.down = False
            await asyncio.wait_for(pool.full(), 60)
            assert caplog.text.count("generated questions available again") == 1
        finally:
            await pool.close()


async def test_a_broken_template_is_set_aside_and_the_others_still_fill(
    gen_bank: QuizBank, caplog: pytest.LogCaptureFixture
) -> None:
    maker = Maker()
    maker.broken.add("fp16-round")
    pool = InstancePool(maker, gen_bank.templates, size=2)
    pool.start()
    try:
        await asyncio.wait_for(pool.full(["effective-batch"]), 60)
        assert not pool.ready("fp16-round")
        assert "generated question 'fp16-round' failed, set aside" in caplog.text
    finally:
        await pool.close()


# --------------------------------------------------------------------------- sessions


async def test_a_quiz_asks_a_ready_instance_fixed_for_the_session(
    db: Database, gen_bank: QuizBank, pool: InstancePool
) -> None:
    sessions = QuizSessions(db, gen_bank, pool=pool)
    quiz = await sessions.start(USER, None, "fmt", None, "en", seed=4)
    assert sorted(quiz.question_ids) == sorted(["fm-01", "fm-02", FP16, "gen:effective-batch"])
    position = quiz.question_ids.index(FP16)
    assert quiz.instances is not None and set(quiz.instances) == {
        str(position),
        str(quiz.question_ids.index("gen:effective-batch")),
    }
    # After a restart (no pool, no worker) the session still shows the same instance.
    again = QuizSessions(db, gen_bank)
    stored = await sessions_store.get(again.db, quiz.id)
    assert stored is not None
    stored.position = position
    shown, order = again.current_question(stored)
    assert isinstance(shown, GeneratedQuestion) and shown.template == "fp16-round"
    assert shown == sessions.current_question(stored)[0]
    assert sorted(order) == list(range(shown.n_choices))


async def test_a_wrong_answer_makes_a_template_card_and_review_asks_a_new_instance(
    db: Database, gen_bank: QuizBank, pool: InstancePool
) -> None:
    sessions = QuizSessions(db, gen_bank, pool=pool)
    quiz = await sessions.start(USER, None, "fmt", None, "en", seed=4)
    for number in range(1, len(quiz.question_ids) + 1):
        current = await sessions_store.get(sessions.db, quiz.id)
        assert current is not None
        question, order = sessions.current_question(current)
        right = order.index(question.answer)
        wrong_here = question.id == FP16
        outcome = await sessions.answer(
            quiz.id, USER, (right + 1) % len(order) if wrong_here else right, number
        )
        assert outcome.correct is not wrong_here
        if wrong_here:
            missed = question
            assert outcome.explanation == question.text("explanation", "en")
        await sessions.next(quiz.id, USER)
    async with db.session() as session:
        results = (
            await session.exec(select(QuizResult).where(QuizResult.session_id == quiz.id))
        ).all()
    assert {r.question_id: r.correct for r in results}[FP16] is False
    cards = {c.question_id: c for c in await cards_of(db, USER)}
    assert cards[FP16].open_mistake  # one card per template, whatever the instance

    review = await sessions.start_review(USER, None, 3, "en", seed=1)
    assert not isinstance(review, NothingDue)
    assert review.question_ids[0] == FP16  # the mistake first
    fresh, _ = sessions.current_question(review)
    assert isinstance(fresh, GeneratedQuestion) and isinstance(missed, GeneratedQuestion)
    assert fresh.template == missed.template and fresh.seed != missed.seed


async def test_without_ready_instances_quizzes_and_reviews_ask_written_questions(
    db: Database, gen_bank: QuizBank, pool: InstancePool
) -> None:
    for name in TEMPLATES:  # the pool runs dry (a burst, a long demo, the worker down)
        while pool.take(name) is not None:
            pass
    # The refill would start now; hold it back by closing the pool.
    await pool.close()
    sessions = QuizSessions(db, gen_bank, pool=pool)
    quiz = await sessions.start(USER, None, "fmt", None, "en")
    assert sorted(quiz.question_ids) == ["fm-01", "fm-02"] and quiz.instances is None
    review = await sessions.start_review(USER, None, 10, "en")
    assert not isinstance(review, NothingDue)
    assert not any(q.startswith("gen:") for q in review.question_ids)
    # No pool at all (DEMO_WORKER=false): the same, and the same questions for a seed.
    plain = QuizSessions(db, gen_bank)
    a = await plain.start(USER, None, "fmt", None, "en", seed=3)
    b = await sessions.start(USER, None, "fmt", None, "en", seed=3)
    assert (a.question_ids, a.choice_orders) == (b.question_ids, b.choice_orders)
