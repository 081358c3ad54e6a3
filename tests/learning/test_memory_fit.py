"""A memory model per server (issue 26.1): fitting FSRS to a server's review log.

The fits here run fsrs's own optimizer on torch, on synthetic servers sized to take a few
seconds each on two cores (about 2,800 reviews, 3 epochs).
"""

from __future__ import annotations

import ast
import json
import math
import random
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import pytest
from fsrs import Card, Rating, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS

from experiments import memory_fit as mf

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SERVER = {"members": 30, "days": 20}  # about 2,800 reviews
EPOCHS = 3


def fit(reviews: list[dict[str, Any]]) -> dict[str, Any]:
    return mf.fit_server(reviews, epochs=EPOCHS, seed=0)


@pytest.fixture(scope="module")
def fast_server() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    reviews = mf.simulate_server(**SERVER, true_parameters=mf.FAST_FORGETTING, seed=0)
    return reviews, fit(reviews)


def relative_gain(result: dict[str, Any]) -> float:
    base, fitted = result["metrics"]["default"], result["metrics"]["fitted"]
    return (base["log_loss"] - fitted["log_loss"]) / base["log_loss"]


# --- the fit on synthetic servers ------------------------------------------------------------


def test_a_server_forgetting_faster_gets_a_fit_that_predicts_its_held_out_recalls_better(
    fast_server: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    reviews, result = fast_server
    json.dumps(result)  # JSON-friendly as it is
    counts = result["counts"]
    assert counts["reviews"] == len(reviews) > mf.MIN_REVIEWS
    assert counts["members"] == SERVER["members"]
    assert counts["held_out_reviews"] == math.ceil(len(reviews) * mf.HOLDOUT_SHARE)
    assert counts["train_reviews"] + counts["held_out_reviews"] == len(reviews)
    assert result["decision"] == mf.DECISION_FITTED, result["reason"]
    base, fitted = result["metrics"]["default"], result["metrics"]["fitted"]
    assert base["reviews"] == fitted["reviews"] == counts["held_out_scored"] > 200
    assert fitted["log_loss"] < base["log_loss"] and fitted["rmse_bins"] < base["rmse_bins"]
    # Relative log-loss gain measured: 4.2 % (seeds 0-4 of this server: 2.2-4.2 %).
    assert relative_gain(result) > 0.015
    assert result["parameters"] == result["candidate_parameters"]
    assert len(result["parameters"]) == 21
    assert result["seconds"]["fit"] > 0 and result["seconds"]["total"] >= result["seconds"]["fit"]


def test_the_fit_moves_towards_the_members_true_memory(
    fast_server: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    _, result = fast_server
    fitted, truth = result["parameters"], mf.FAST_FORGETTING
    # Initial stability after a wrong first answer (w0) and after a right one (w2): the
    # members forget faster than the defaults assume, and the fit lowers both.
    for w in (0, 2):
        assert abs(fitted[w] - truth[w]) < abs(DEFAULT_PARAMETERS[w] - truth[w]), w
    # And its predictions sit closer to what the members actually recalled.
    base, fit_m = result["metrics"]["default"], result["metrics"]["fitted"]
    actual = base["mean_recalled"]
    assert base["mean_predicted"] - actual > 0.05  # the defaults are over-confident here
    assert abs(fit_m["mean_predicted"] - actual) < abs(base["mean_predicted"] - actual) / 2


def test_a_server_remembering_as_the_defaults_assume_gains_little_or_nothing() -> None:
    reviews = mf.simulate_server(**SERVER, true_parameters=DEFAULT_PARAMETERS, seed=0)
    result = fit(reviews)
    assert result["counts"]["held_out_scored"] > 200
    base = result["metrics"]["default"]
    assert abs(base["mean_predicted"] - base["mean_recalled"]) < 0.05  # well calibrated
    # Relative log-loss gain measured: -1.2 % (seeds 0-4: -3.7 % to +1.2 %; 15 epochs, -1.3 %).
    assert relative_gain(result) < 0.025
    if result["decision"] != mf.DECISION_FITTED:
        assert result["decision"] == mf.DECISION_NOT_BETTER
        assert result["parameters"] is None and result["candidate_parameters"] is not None


# --- no fit without enough history ----------------------------------------------------------


class ExplodingOptimizer:
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("no fit may run on a small server")


def trim_members(reviews: list[dict[str, Any]], members: int) -> list[dict[str, Any]]:
    return [r for r in reviews if r["member_id"] <= members]


@pytest.mark.parametrize("case", ["few_reviews", "few_members"])
def test_a_small_server_keeps_the_defaults_without_a_fit(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fsrs.optimizer

    monkeypatch.setattr(fsrs.optimizer, "Optimizer", ExplodingOptimizer)
    reviews = mf.simulate_server(members=40, days=20, seed=3)
    if case == "few_reviews":  # 40 members, 999 reviews
        reviews = reviews[: mf.MIN_REVIEWS - 1]
        assert len({r["member_id"] for r in reviews}) >= mf.MIN_MEMBERS
    else:  # 29 members, thousands of reviews
        reviews = trim_members(reviews, mf.MIN_MEMBERS - 1)
        assert len(reviews) >= mf.MIN_REVIEWS
    result = mf.fit_server(reviews)
    assert result["decision"] == mf.DECISION_TOO_LITTLE
    assert result["parameters"] is None and result["candidate_parameters"] is None
    assert result["metrics"] == {"default": None, "fitted": None}
    assert result["seconds"]["fit"] == 0.0
    assert str(mf.MIN_REVIEWS) in result["reason"] and str(mf.MIN_MEMBERS) in result["reason"]
    json.dumps(result)


def test_exactly_the_thresholds_is_enough_history(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = install_fake_optimizer(monkeypatch, DEFAULT_PARAMETERS)
    reviews = trim_members(mf.simulate_server(members=40, days=20, seed=3), mf.MIN_MEMBERS)
    result = mf.fit_server(reviews[: mf.MIN_REVIEWS])
    assert result["counts"]["reviews"] == mf.MIN_REVIEWS
    assert result["counts"]["members"] == mf.MIN_MEMBERS
    assert result["decision"] != mf.DECISION_TOO_LITTLE and seen


# --- the split, the decision and the fit's input (fsrs's optimizer replaced) ----------------


def install_fake_optimizer(
    monkeypatch: pytest.MonkeyPatch, answer: Any, epochs: list[int] | None = None
) -> list[Any]:
    """fsrs.optimizer.Optimizer replaced: records the review logs, returns `answer`."""
    import fsrs.optimizer

    seen: list[Any] = []

    class Fake:
        def __init__(self, logs: list[Any]) -> None:
            seen.extend(logs)

        def compute_optimal_parameters(self, verbose: bool = False) -> Any:
            if epochs is not None:
                epochs.append(fsrs.optimizer.num_epochs)
            return None if answer is None else list(answer)

    monkeypatch.setattr(fsrs.optimizer, "Optimizer", Fake)
    return seen


def test_the_fit_sees_only_the_earliest_80_percent(monkeypatch: pytest.MonkeyPatch) -> None:
    epochs: list[int] = []
    seen = install_fake_optimizer(monkeypatch, mf.FAST_FORGETTING, epochs)
    reviews = mf.simulate_server(members=30, days=12, seed=5)
    shuffled = list(reviews)
    random.Random(1).shuffle(shuffled)  # input order does not matter
    result = mf.fit_server(shuffled, epochs=2)
    counts = result["counts"]
    n_train = len(reviews) - math.ceil(len(reviews) * 0.2)
    assert counts["train_reviews"] == n_train == counts["fit_reviews"] == len(seen)
    split = mf.parse_time(result["held_out_from"])
    assert max(log.review_datetime for log in seen) <= split
    assert split == mf.parse_time(sorted(r["reviewed_at"] for r in reviews)[n_train])
    # One fsrs card per member and question, numbered in the order their histories start.
    assert len({log.card_id for log in seen}) == counts["fit_cards"]
    assert epochs == [2]
    import fsrs.optimizer

    assert fsrs.optimizer.num_epochs == 5  # restored after the fit


def test_fitted_parameters_that_predict_worse_are_not_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Members who remember as the defaults assume; the "fit" claims they forget fast.
    install_fake_optimizer(monkeypatch, mf.FAST_FORGETTING)
    reviews = mf.simulate_server(members=30, days=20, true_parameters=DEFAULT_PARAMETERS)
    result = mf.fit_server(reviews)
    assert result["decision"] == mf.DECISION_NOT_BETTER
    assert result["parameters"] is None
    assert result["candidate_parameters"] == list(mf.FAST_FORGETTING)
    base, fitted = result["metrics"]["default"], result["metrics"]["fitted"]
    assert fitted["log_loss"] > base["log_loss"]
    # ... and the other way round they are.
    install_fake_optimizer(monkeypatch, mf.FAST_FORGETTING)
    fast = mf.simulate_server(members=30, days=20, true_parameters=mf.FAST_FORGETTING)
    assert mf.fit_server(fast)["decision"] == mf.DECISION_FITTED


@pytest.mark.parametrize("answer", [DEFAULT_PARAMETERS, None])
def test_an_optimizer_that_keeps_the_defaults_or_finds_nothing_is_not_better(
    answer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_fake_optimizer(monkeypatch, answer)
    result = mf.fit_server(mf.simulate_server(members=30, days=12, seed=2))
    assert result["decision"] == mf.DECISION_NOT_BETTER and result["parameters"] is None
    assert result["metrics"]["default"] is not None
    assert result["reason"]


def test_the_review_cap_keeps_whole_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = install_fake_optimizer(monkeypatch, DEFAULT_PARAMETERS)
    reviews = mf.simulate_server(members=30, days=20, seed=4)
    result = mf.fit_server(reviews, max_fit_reviews=500, seed=7)
    assert 450 < result["counts"]["fit_reviews"] == len(seen) <= 500
    train = mf.parse_reviews(reviews)[: result["counts"]["train_reviews"]]
    per_card: dict[tuple[Any, Any], int] = {}
    for r in train:
        per_card[r.card] = per_card.get(r.card, 0) + 1
    fitted_sizes = sorted(
        sum(1 for log in seen if log.card_id == n) for n in {log.card_id for log in seen}
    )
    assert sum(fitted_sizes) == len(seen)
    # Every drawn card comes with its whole (train-period) history.
    histories = mf._histories(train)
    chosen = mf.select_fit_cards(histories, 500, 7)
    assert sorted(min(per_card[k], mf.FSRS_MAX_SEQ_LEN) for k in chosen) == fitted_sizes
    assert chosen == mf.select_fit_cards(histories, 500, 7)  # seeded
    assert chosen != mf.select_fit_cards(histories, 500, 8)


def test_the_fit_is_deterministic() -> None:
    reviews = mf.parse_reviews(mf.simulate_server(members=30, days=15, seed=6))
    histories = mf._histories(reviews)
    cards = mf.select_fit_cards(histories, 1_200, 0)
    assert sum(mf._one_day_apart(histories[k]) for k in cards) >= mf.FSRS_MIN_SCORED
    first = mf.fit_parameters(histories, cards, epochs=1)
    assert first is not None and first != list(DEFAULT_PARAMETERS)
    assert mf.fit_parameters(histories, cards, epochs=1) == first


# --- metrics ------------------------------------------------------------------------------


def test_log_loss_and_rmse_bins_by_hand() -> None:
    s = mf.Scored
    rows = [s(0.9, 1, 1, 2, 0), s(0.8, 0, 2, 2, 0), s(0.6, 1, 4, 2, 0)]
    # Bins: 1 and 2 days share 2.48 (floor(log_3.62 d) = 0); 4 days is 8.98. i = 2 -> 4.
    assert [mf.bin_key(r) for r in rows] == [(2.48, 4.0, 0.0), (2.48, 4.0, 0.0), (8.98, 4.0, 0.0)]
    assert mf.rmse_bins(rows) == pytest.approx(math.sqrt((2 * 0.35**2 + 0.4**2) / 3))
    expected = -(math.log(0.9) + math.log(0.2) + math.log(0.6)) / 3
    assert mf.log_loss(rows) == pytest.approx(expected)
    # Lapses: 0 stays 0, 1 -> round(1.65) = 2, 2 -> round(1.65 * 1.73) = 3, 3-5 -> 5.
    assert [mf.bin_key(s(0.5, 1, 1, 2, n))[2] for n in range(6)] == [0, 2, 3, 5, 5, 5]
    # Review ordinal i: 2-3 -> round(1.99 * 1.89) = 4, 4-6 -> 7, 7-12 -> 13.
    assert [mf.bin_key(s(0.5, 1, 1, i, 0))[1] for i in (2, 3, 4, 7, 8)] == [4, 4, 7, 13, 13]
    # A sure wrong prediction costs a bounded (clipped) log-loss, not infinity.
    assert math.isfinite(mf.log_loss([s(1.0, 0, 1, 2, 0)]))


def test_bins_match_the_fsrs_benchmark_formulas() -> None:
    np = pytest.importorskip("numpy")

    def benchmark(d: int, i: int, lapse: int) -> tuple[float, float, float]:
        # srs-benchmark's rmse_matrix (and fsrs-optimizer's), with numpy as there.
        return (
            round(2.48 * np.power(3.62, np.floor(np.log(d) / np.log(3.62))), 2),
            round(1.99 * np.power(1.89, np.floor(np.log(i) / np.log(1.89))), 0),
            round(1.65 * np.power(1.73, np.floor(np.log(lapse) / np.log(1.73))), 0) if lapse else 0,
        )

    for d in (1, 2, 3, 4, 13, 14, 47, 48, 171, 365, 1000):
        for i in (2, 3, 4, 7, 8, 13, 14, 25, 64):
            for lapse in (0, 1, 2, 3, 5, 6, 9, 10):
                assert mf.bin_key(mf.Scored(0.5, 1, d, i, lapse)) == benchmark(d, i, lapse)


def test_which_reviews_are_scored_and_their_features() -> None:
    def at(days: float) -> str:
        return (T0 + timedelta(days=days)).isoformat()

    history = [
        (1, "q", 3, at(0)),  # first review: sets the initial stability, not scored
        (1, "q", 1, at(0.1)),  # same day: short-term update only, not a lapse
        (1, "q", 1, at(2.2)),  # 2 days later: scored, i = 2, no lapse before it
        (1, "q", 3, at(2.9)),  # same day again
        (1, "q", 4, at(6)),  # 3 whole days after 2.9: scored, i = 3, one lapse before
    ]
    reviews = mf.parse_reviews(history)
    scored = mf.score_reviews(mf._histories(reviews), None)
    assert [(x.y, x.days, x.i, x.lapses) for x in scored] == [(0, 2, 2, 0), (1, 3, 3, 1)]
    # The predictions are the scheduler's retrievability of the card replayed so far.
    sched = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    card, expected = Card(card_id=0, due=reviews[0].at), []
    for k, r in enumerate(reviews):
        if k in (2, 4):
            expected.append(sched.get_card_retrievability(card, r.at))
        card, _ = sched.review_card(card, Rating(r.rating), r.at)
    assert [x.p for x in scored] == expected
    # Held out from a time: only the later reviews count; their history still does.
    late = mf.score_reviews(mf._histories(reviews), None, T0 + timedelta(days=5))
    assert late == scored[1:]


def test_reviews_come_as_dicts_or_tuples_with_any_utc_time() -> None:
    epoch = T0.timestamp()
    forms = [
        {
            "member_id": 7,
            "question_id": "mx-01",
            "rating": 3,
            "reviewed_at": "2026-03-02T09:00:00Z",
        },
        {"user_id": 7, "question_id": "mx-01", "rating": 3, "reviewed_at": epoch},
        (7, "mx-01", 3, "2026-03-02T10:00:00+01:00"),
        (7, "mx-01", 3, "2026-03-02T09:00:00"),  # no offset: UTC
        (7, "mx-01", 3, T0),
        (7, "mx-01", 3.0, int(epoch)),
    ]
    for item in forms:
        assert mf.parse_review(item) == mf.Review(7, "mx-01", 3, T0), item
    for bad in [(7, "q", 0, epoch), (7, "q", 5, epoch), (7, "q", True, epoch), (7, "q", 2.5, 0)]:
        with pytest.raises(ValueError):
            mf.parse_review(bad)
    with pytest.raises(ValueError):
        mf.parse_review((7, "q", 3, None))


# --- rescheduling from the full history ------------------------------------------------------


def random_history(rng: random.Random, n: int) -> Iterator[tuple[bool, float | None, datetime]]:
    when = T0 + timedelta(minutes=rng.randrange(0, 600))
    for _ in range(n):
        yield rng.random() < 0.7, rng.choice([None, 3.0, 20.0]), when
        later = timedelta(days=rng.randrange(2, 40), minutes=rng.randrange(0, 600))
        when += rng.choice(
            [timedelta(minutes=5), timedelta(hours=20), timedelta(days=1, hours=3), later]
        )


def test_replaying_with_the_defaults_gives_the_bots_own_card() -> None:
    from bot.learning.review_rules import rating_for, review

    rng = random.Random(26)
    for _ in range(40):
        answers = list(random_history(rng, rng.randrange(1, 25)))
        stored: dict[str, Any] | None = None
        log = []
        for correct, seconds, when in answers:
            # As the bot's record_grades does: load the stored dict, review, store the dict.
            card = review(
                Card.from_dict(cast(Any, stored)) if stored else None,
                rating_for(correct, seconds),
                when,
            )
            stored = json.loads(json.dumps(card.to_dict()))
            log.append(
                {
                    "member_id": 1,
                    "question_id": "q",
                    "rating": int(rating_for(correct, seconds)),
                    "reviewed_at": when.isoformat(),
                }
            )
        assert mf.reschedule_card(log) == stored
        assert mf.reschedule_card(log, DEFAULT_PARAMETERS) == stored
        pairs = [(entry["rating"], entry["reviewed_at"]) for entry in log]
        assert mf.reschedule_card(list(reversed(pairs))) == stored  # replayed in time order


def test_an_answer_graded_late_counts_as_the_bot_counted_it() -> None:
    from bot.learning.review_rules import review

    answers = [
        (Rating.Good, T0),
        (Rating.Good, T0 + timedelta(days=3)),
        (Rating.Again, T0 + timedelta(days=1)),
    ]
    card = None
    for rating, when in answers:
        card = review(card, rating, when)
    assert card is not None
    pairs = [(int(r), w) for r, w in answers]
    assert mf.reschedule_card(pairs, keep_order=True) == card.to_dict()
    assert mf.reschedule_card(pairs) != card.to_dict()  # in time order it is another card


def test_rescheduling_every_card_with_fitted_parameters_keeps_every_review() -> None:
    reviews = mf.simulate_server(members=3, questions=5, days=30, seed=9)
    default_cards = mf.reschedule_cards(reviews)
    fast_cards = mf.reschedule_cards(list(reversed(reviews)), mf.FAST_FORGETTING)
    json.dumps(fast_cards)
    assert sum(c["reviews"] for c in fast_cards) == len(reviews)
    keys = [(c["member_id"], c["question_id"]) for c in fast_cards]
    assert len(set(keys)) == len(keys) == len({(r["member_id"], r["question_id"]) for r in reviews})
    assert keys == [(c["member_id"], c["question_id"]) for c in default_cards]
    for fast, default in zip(fast_cards, default_cards, strict=True):
        assert fast["card"]["last_review"] == default["card"]["last_review"]
        assert fast["card"]["card_id"] == default["card"]["card_id"]
        # Faster forgetting: lower stability, never a later due date.
        assert fast["card"]["stability"] < default["card"]["stability"]
        assert fast["card"]["due"] <= default["card"]["due"]


def test_the_optimizers_learning_steps_do_not_change_stability_or_difficulty() -> None:
    """fsrs's optimizer replays with learning steps; the bot has none. Same S and D."""
    rng = random.Random(3)
    for params in (DEFAULT_PARAMETERS, mf.FAST_FORGETTING):
        with_steps = Scheduler(parameters=params)  # as inside fsrs.Optimizer
        bots = Scheduler(
            parameters=params, learning_steps=(), relearning_steps=(), enable_fuzzing=False
        )
        for _ in range(30):
            a = b = Card(card_id=1, due=T0)
            for correct, _, when in random_history(rng, 20):
                rating = (
                    rng.choice([Rating.Hard, Rating.Good, Rating.Easy]) if correct else Rating.Again
                )
                assert with_steps.get_card_retrievability(a, when) == bots.get_card_retrievability(
                    b, when
                )
                a, _ = with_steps.review_card(a, rating, when)
                b, _ = bots.review_card(b, rating, when)
                assert (a.stability, a.difficulty) == (b.stability, b.difficulty)


# --- layering and the command line -------------------------------------------------------------


def test_the_module_imports_neither_bot_nor_cogs_nor_torch_at_import() -> None:
    source = Path(mf.__file__).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        for name in names:
            assert name.split(".")[0] not in {"bot", "cogs"}, name
    out = subprocess.run(
        [sys.executable, "-c", "import sys, experiments.memory_fit; print('torch' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=Path(mf.__file__).resolve().parent.parent,
    )
    assert out.stdout.strip() == "False"


def test_the_command_line_reads_json_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "reviews.jsonl"
    reviews = mf.simulate_server(members=5, days=10, seed=1)
    path.write_text("".join(json.dumps(r) + "\n" for r in reviews), encoding="utf-8")
    assert mf.main(["--input", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["decision"] == mf.DECISION_TOO_LITTLE
    assert result["counts"]["reviews"] == len(reviews)
    assert mf.main(["--input", str(path)]) == 0
    assert "too_little_history" in capsys.readouterr().out
