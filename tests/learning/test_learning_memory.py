"""A memory model per server (issue 26.1, 26.2): the fit on the bot's own review log, its
adoption only when it predicts held-out reviews better, the cards replayed without losing a
review, the weekly job, `quiztutor memory fit|show`, and the target retention."""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Card, Rating
from sqlalchemy import select

from bot.cli.memory import describe, fit_guild
from bot.common.errors import UserError
from bot.common.times import utcnow
from bot.db.database import Database
from bot.db.tables.review import ReviewCard, ReviewLog
from bot.learning import memory_rules as core
from bot.learning import memory_store as stored
from bot.learning.memory import MemoryModels
from bot.learning.memory_rules import parse_retention, rules_of
from bot.learning.review_rules import SCHEDULER, review
from experiments import memory_fit as mf
from tests.support.cli import cli
from tests.support.learning import seed_reviews

G, OTHER = 4242, 777
SERVER = {"members": 30, "days": 20}  # about 2,800 reviews, as tests/learning/test_memory_fit.py


@pytest.fixture(scope="module")
def fast_reviews() -> list[dict[str, Any]]:
    return mf.simulate_server(**SERVER, true_parameters=mf.FAST_FORGETTING, seed=0)


async def cards(db: Database) -> dict[tuple[int, str], Any]:
    async with db.session() as session:
        rows = (await session.exec(select(ReviewCard))).all()  # type: ignore[call-overload]
    return {(r[0].user_id, r[0].question_id): r[0] for r in rows}


async def log_counts(db: Database) -> Counter[tuple[int, str]]:
    async with db.session() as session:
        rows = (await session.exec(select(ReviewLog.user_id, ReviewLog.question_id))).all()  # type: ignore[call-overload]
    return Counter((int(u), str(q)) for u, q in rows)


def test_the_bot_and_the_fit_agree_on_how_much_history_a_fit_needs() -> None:
    assert (core.MIN_REVIEWS, core.MIN_MEMBERS) == (mf.MIN_REVIEWS, mf.MIN_MEMBERS)
    assert (core.FITTED, core.TOO_LITTLE, core.NOT_BETTER) == (
        mf.DECISION_FITTED,
        mf.DECISION_TOO_LITTLE,
        mf.DECISION_NOT_BETTER,
    )


async def test_a_server_forgetting_faster_gets_its_own_model_and_every_card_replayed(
    db: Database, fast_reviews: list[dict[str, Any]]
) -> None:
    assert await seed_reviews(db, fast_reviews, G) == len(fast_reviews)
    # Another server's reviews (other members) are not this server's history.
    others = [{**r, "member_id": r["member_id"] + 1000} for r in fast_reviews[:300]]
    assert await seed_reviews(db, others, OTHER, prefix="other") == 300
    before = await cards(db)
    assert (await stored.rules_for(db, G)).fitted is False

    result = await fit_guild(db, G, epochs=3)

    assert result["decision"] == "fitted", result["reason"]
    assert result["counts"]["reviews"] == len(fast_reviews)  # OTHER's 300 not among them
    base, fitted = result["metrics"]["default"], result["metrics"]["fitted"]
    assert fitted["log_loss"] < base["log_loss"] and fitted["rmse_bins"] <= base["rmse_bins"]
    model = await stored.model(db, G)
    assert model is not None and model.parameters == result["parameters"]
    assert model.log_loss_fitted == fitted["log_loss"]
    assert model.log_loss_default == base["log_loss"]
    assert model.held_out == result["counts"]["held_out_scored"] > 0
    assert model.next_fit_at - model.fitted_at == timedelta(days=7)  # type: ignore[operator]
    rules = await stored.rules_for(db, G)
    assert rules.fitted and list(rules.scheduler.parameters) == result["parameters"]

    # Every card scheduled by G was replayed with the new parameters; no review was lost.
    after = await cards(db)
    logged = await log_counts(db)
    assert set(after) == set(before)
    assert all(card.reviews == logged[key] for key, card in after.items())
    mine = [key for key in after if key[0] < 1000]
    changed = [key for key in after if after[key].card != before[key].card]
    assert result["rescheduled"] == model.rescheduled == len(mine)
    assert set(changed) <= set(mine) and len(changed) > 0.9 * len(mine)
    assert all(after[k] == before[k] for k in after if k[0] >= 1000)  # OTHER's untouched
    # Members who forget faster than the defaults assume are asked again sooner, mostly.
    assert sum(after[k].due < before[k].due for k in changed) > 0.5 * len(changed)

    # The next answer in G is applied with G's parameters, not the defaults.
    key = changed[0]
    card = Card.from_dict(after[key].card)  # type: ignore[arg-type]
    when = after[key].last_review + timedelta(days=3)
    fitted_step = review(card, Rating.Good, when, rules.scheduler)
    assert fitted_step.stability != review(card, Rating.Good, when, SCHEDULER).stability

    text = describe(G, model, rules.retention)
    assert f"{fitted['log_loss']:.4f}" in text and f"{base['log_loss']:.4f}" in text
    assert "its own fitted parameters" in text


async def test_a_small_server_keeps_the_defaults_and_its_cards(db: Database) -> None:
    small = mf.simulate_server(members=8, days=10, seed=1)
    assert len(small) < mf.MIN_REVIEWS
    await seed_reviews(db, small, G)
    before = await cards(db)
    result = await fit_guild(db, G)
    assert result["decision"] == "too_little_history" and result["rescheduled"] == 0
    model = await stored.model(db, G)
    assert model is not None and model.parameters is None and model.reviews == len(small)
    assert await cards(db) == before
    assert (await stored.rules_for(db, G)).fitted is False
    assert "FSRS's default parameters" in describe(G, model, 0.9)


async def test_the_weekly_job_checks_a_small_server_without_starting_a_fit(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    await seed_reviews(db, mf.simulate_server(members=5, days=5, seed=2), G)
    models = MemoryModels(db, clock=lambda: utcnow() + timedelta(days=8))

    async def no_process(guild_id: int) -> int:
        raise AssertionError("no fit process for a server under 1,000 reviews")

    monkeypatch.setattr(models, "fit_in_process", no_process)
    assert await models.fit_due() == 1
    model = await stored.model(db, G)
    assert model is not None and model.decision == "too_little_history"
    assert model.claimed_until is None and model.next_fit_at > utcnow() + timedelta(days=14)
    assert await models.fit_due() == 0  # not due again for a week


async def test_a_fit_is_not_run_twice_at_once(db: Database) -> None:
    assert await stored.claim_fit(db, G, utcnow())
    with pytest.raises(Exception, match="running in another process"):
        await fit_guild(db, G)
    assert not await stored.claim_fit(db, G, utcnow())
    # A process that died frees the server when its lease ends.
    assert await stored.claim_fit(db, G, utcnow() + stored.FIT_LEASE + timedelta(seconds=1))


def test_target_retention_is_080_to_097() -> None:
    assert parse_retention(None) is None
    assert parse_retention(0.85) == 0.85
    for bad in (0.79, 0.98, True, "0.9"):
        with pytest.raises(UserError) as refused:
            parse_retention(bad)  # type: ignore[arg-type]
        assert refused.value.key == "daily.bad_retention"
    card = review(None, Rating.Good, utcnow())
    later = utcnow() + timedelta(days=1)
    eager = review(card, Rating.Good, later, rules_of(None, 0.97, None).scheduler)
    relaxed = review(card, Rating.Good, later, rules_of(None, 0.80, None).scheduler)
    assert eager.due < relaxed.due  # a higher target asks again sooner


@pytest.mark.slow
async def test_the_weekly_job_and_the_command_line_fit_in_a_process_of_their_own(
    db: Database, db_url: str, fast_reviews: list[dict[str, Any]], tmp_path: Path
) -> None:
    await seed_reviews(db, fast_reviews, G)
    models = MemoryModels(db, clock=lambda: utcnow() + timedelta(days=8))
    assert await models.fit_due() == 1  # python -m bot memory fit --guild G --quiet
    model = await stored.model(db, G)
    assert model is not None and model.decision == "fitted" and model.parameters
    assert model.claimed_until is None

    shown = cli(tmp_path, "memory", "show", "--guild", str(G), DATABASE_URL=db_url)
    assert shown.returncode == 0, shown.stderr
    assert f"server {G}: its own fitted parameters" in shown.stdout
    assert f"{model.log_loss_fitted:.4f}" in shown.stdout
    as_json = cli(tmp_path, "memory", "show", "--guild", str(G), "--json", DATABASE_URL=db_url)
    assert json.loads(as_json.stdout)["model"]["parameters"] == model.parameters

    again = cli(tmp_path, "memory", "fit", "--guild", str(G), "--epochs", "2", DATABASE_URL=db_url)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("fit: ") and "log-loss" in again.stdout
    small = cli(tmp_path, "memory", "fit", "--guild", "1", DATABASE_URL=db_url)
    assert small.returncode == 0 and small.stdout.startswith("fit: too_little_history")
