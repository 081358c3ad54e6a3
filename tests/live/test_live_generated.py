"""Generated questions in live rounds without Discord (issue 23): a round draws a
template's ready instance, stores it with the round (so another process, with no pool,
asks and grades the same one), and has one question fewer when none is ready after all.
The round through the stand-in is in tests/demos/test_e2e_generated_daily_live.py."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from bot.common.errors import UserError
from bot.db.database import Database
from bot.demos.generated import InstancePool
from bot.live import store
from bot.live.rounds import LiveRounds
from bot.quizbank import QuizBank
from bot.quizbank.generated import GeneratedQuestion, template_key
from tests.support.generated import Maker, quiz_with_templates

GUILD, CHANNEL, HOST = 10, 20, 30
FP16 = template_key("fp16-round")


class TakenMeanwhile:
    """A pool whose instance is gone between `ready` and `take` (another front end took it)."""

    def ready(self, template: str) -> bool:
        return True

    def take(self, template: str) -> None:
        return None


@pytest.fixture
def gen_bank() -> QuizBank:
    """ "fmt": 2 written questions and the fp16-round template."""
    return QuizBank([quiz_with_templates("fmt", ("fp16-round",))])


async def test_a_round_stores_its_generated_instance_for_every_process(
    open_db: Callable[[], Awaitable[Database]], gen_bank: QuizBank
) -> None:
    pool = InstancePool(Maker(), gen_bank.templates, size=2)
    pool.start()
    try:
        await asyncio.wait_for(pool.full(), 60)
        live = LiveRounds(await open_db(), gen_bank, pool=pool)
        row = await live.open(GUILD, CHANNEL, HOST, "en", "fmt", None, 10, seed=1)
        assert row.id is not None
        await store.place(live.db, row.id, CHANNEL + 100, True)  # its thread
    finally:
        await pool.close()
    # Without a count the round asks every written question and every ready template.
    assert sorted(row.question_ids) == sorted(["fm-01", "fm-02", FP16])
    number = row.question_ids.index(FP16) + 1
    assert row.instances is not None and list(row.instances) == [str(number - 1)]
    stored = GeneratedQuestion.model_validate(row.instances[str(number - 1)])
    assert sorted(row.choice_orders[number - 1]) == list(range(stored.n_choices))

    # Another process, its pool empty (no worker): the same instance, from the row.
    other = LiveRounds(await open_db(), gen_bank)
    info = await other.info(row.id)
    asked = other.question(info, number)
    assert isinstance(asked, GeneratedQuestion)
    assert (asked.template, asked.seed, asked.answer) == ("fp16-round", stored.seed, stored.answer)
    assert asked.choice_texts("en") == stored.choice_texts("en")
    written = other.question(info, row.question_ids.index("fm-01") + 1)
    assert not isinstance(written, GeneratedQuestion) and written.id == "fm-01"
    await other.writer.close()
    await live.writer.close()


async def test_no_ready_instance_means_one_question_fewer_or_none_at_all(
    open_db: Callable[[], Awaitable[Database]], gen_bank: QuizBank
) -> None:
    db = await open_db()
    live = LiveRounds(db, gen_bank, pool=TakenMeanwhile())  # type: ignore[arg-type]
    row = await live.open(GUILD, CHANNEL, HOST, "en", "fmt", None, 10, seed=1)
    assert sorted(row.question_ids) == ["fm-01", "fm-02"] and row.instances is None

    # A quiz of templates only, none ready after all: a short answer, no empty round.
    only = QuizBank(
        [quiz_with_templates("tpl", ("fp16-round",)).model_copy(update={"questions": []})]
    )
    empty = LiveRounds(db, only, pool=TakenMeanwhile())  # type: ignore[arg-type]
    with pytest.raises(UserError) as raised:
        await empty.open(GUILD, CHANNEL + 1, HOST, "en", "tpl", 1, 10, seed=1)
    assert raised.value.key == "quiz.no_questions"
    await empty.writer.close()
    await live.writer.close()
