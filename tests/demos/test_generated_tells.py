"""Generated questions without a tell (issue 35): over 1,000 seeds of every template no
tell (a ×2/÷2 pair, the middle of a ×½/×1/×2 ladder, a choice equal to the input) picks
the right answer more than 5 points above chance, right answers vary, every template
shows 4 choices and every percentage is a share; the prompts say what they mean.
``quiztutor validate`` enforces the same (experiments.generators.tells), and the
deliberately broken templates below show that it does.
"""

from __future__ import annotations

import dataclasses
import math
import re
from decimal import Decimal
from typing import Any

import pytest

from experiments.generators import TEMPLATES, Instance, build_instance, generate
from experiments.generators.instance import Draft, Option, both
from experiments.generators.misconceptions import miss
from experiments.generators.registry import TemplateInfo
from experiments.generators.tells import (
    choice_value,
    fair,
    is_double,
    tell_rates,
)
from experiments.generators.validate import validate_templates
from tests.demos.test_generators import all_batches

Batches = dict[str, list[Instance]]


@pytest.fixture(scope="module")
def batches() -> Batches:
    return all_batches()


def right_text(inst: Instance) -> str:
    return inst.choices["en"][inst.answer]


# --------------------------------------------------------------------------- the statistics


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_no_tell_picks_the_right_answer_above_chance(batches: Batches, name: str) -> None:
    rates = tell_rates(batches[name])
    assert set(rates) == {"x2-pair", "ladder-middle", "equals-input"}
    for tell, (right, chance) in rates.items():
        assert right - chance <= 0.05, (tell, f"right {right:.3f}", f"random {chance:.3f}")


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_right_answers_vary(batches: Batches, name: str) -> None:
    answers = {right_text(i) for i in batches[name][:100]}
    space = TEMPLATES[name].answer_space
    if space is None:
        assert len(answers) >= 60, len(answers)
    else:  # a small answer space, declared: 100 seeds reach all of it and nothing else
        assert answers == space
        assert len(space) < 60


def test_every_template_shows_four_choices_and_shares_within_100_percent(
    batches: Batches,
) -> None:
    for name, insts in batches.items():
        assert TEMPLATES[name].n_choices == 4, name
        for inst in insts:
            assert len(inst.choices["en"]) == len(inst.choices["id"]) == 4, (name, inst.seed)
            for text in inst.choices["en"]:
                for number in re.findall(r"([\d.]+)%", text):
                    assert 0 <= Decimal(number) <= 100, (name, inst.seed, text)


# --------------------------------------------------------------------------- the helpers


def test_choice_value_reads_what_a_member_reads() -> None:
    assert choice_value("2^-11 = 0.00048828125") == (2.0**-11, 0.0)
    assert choice_value("3×2^-140") == (3 * 2.0**-140, 0.0)
    assert choice_value("1.5 GB") == (1.5, 0.05)
    assert choice_value("12.5%") == (12.5, 0.05)
    assert choice_value("65504") == (65504.0, 0.0)
    for text in ("inf", "-inf", "nan", "torch.float16", "torch.float32 torch.bfloat16"):
        assert choice_value(text) is None


def test_a_factor_of_two_as_shown() -> None:
    def shown(text: str) -> tuple[float, float]:
        value = choice_value(text)
        assert value is not None
        return value

    assert is_double(shown("24192"), shown("12096"))
    assert not is_double(shown("24192"), shown("12104"))
    assert is_double(shown("2.469"), shown("1.235"))  # 4 digits each: a reader sees ×2
    assert is_double(shown("2^4 = 16"), shown("2^3 = 8"))
    assert not is_double(shown("-8"), shown("4"))


def test_fair_choices() -> None:
    assert not fair(["4", "8", "3", "5"], {})  # the only ×2 pair holds the answer
    assert fair(["4", "8", "3", "6"], {})  # every choice is in a pair
    assert not fair(["4", "8", "2", "5"], {})  # the answer is a ladder's middle
    assert not fair(["7", "3", "5", "9"], {"x": "7"})  # the answer is the input
    assert fair(["6", "7", "5", "9"], {"x": "7"})


# --------------------------------------------------------------------------- the prompts


def test_lr_scaling_names_the_rule_and_shows_three_digits(batches: Batches) -> None:
    for inst in batches["lr-scaling"]:
        rule = "linear" if inst.params["optimizer"] == "SGD" else "square-root"
        assert f"the {rule} scaling rule" in inst.prompt["en"]
        assert ("linear" if rule == "linear" else "akar kuadrat") in inst.prompt["id"]
        assert "usual" not in inst.prompt["en"]
        for text in inst.choices["en"]:
            digits = text.split("e")[0].replace(".", "").lstrip("0")
            assert len(digits) == 3 or (len(digits) == 2 and "." not in text), text


def test_clip_unscale_shows_four_digits(batches: Batches) -> None:
    for inst in batches["clip-unscale"][:200]:
        for text in inst.choices["en"]:
            digits = text.split("e")[0].replace(".", "").lstrip("0")
            assert len(digits) == 4 or "." not in text, text


def test_pipeline_bubble_defines_the_share_and_never_passes_100_percent() -> None:
    for p, m in ((16, 2), (3, 64), (8, 8), (12, 5)):
        inst = build_instance("pipeline-bubble", {"stages": p, "micro_batches": m}, seed=p)
        assert "idle time" in inst.prompt["en"] and "total time" in inst.prompt["en"]
        assert "menganggur" in inst.prompt["id"] and "(bubble)" not in inst.prompt["id"]
        shares = [Decimal(c.rstrip("%")) for c in inst.choices["en"]]
        assert len(shares) == 4 and all(0 <= s <= 100 for s in shares), inst.choices["en"]
        assert right_text(inst) == f"{Decimal(100 * (p - 1)) / (m + p - 1):.1f}%" or abs(
            Decimal(right_text(inst).rstrip("%")) - Decimal(100 * (p - 1)) / (m + p - 1)
        ) <= Decimal("0.05")
    inst = build_instance("pipeline-bubble", {"stages": 16, "micro_batches": 2}, seed=1)
    assert "bubble-over-micro-batches" not in inst.misconceptions  # 15/2 would be 750 %


def test_gradscaler_states_the_defaults_it_relies_on(batches: Batches) -> None:
    import inspect

    import torch

    defaults = inspect.signature(torch.amp.GradScaler).parameters
    assert defaults["growth_factor"].default == 2.0 and defaults["backoff_factor"].default == 0.5
    assert defaults["growth_interval"].default == 2000
    for inst in batches["gradscaler-scale"][:50]:
        for lang in ("en", "id"):
            assert "growth_factor=2.0" in inst.prompt[lang]
            assert "backoff_factor=0.5" in inst.prompt[lang]
            assert "2000" in inst.prompt[lang]  # growth_interval's default, which it is not


def test_fp8_prompts_name_the_torch_version_and_e5m2_overflow_matches_ml_dtypes(
    batches: Batches,
) -> None:
    import ml_dtypes
    import numpy as np
    import torch

    version = torch.__version__.split("+")[0]
    for name in ("fp8-e4m3-round", "fp8-e5m2-round"):
        for inst in batches[name][:50]:
            assert (
                f"torch {version}" in inst.prompt["en"] and f"torch {version}" in inst.prompt["id"]
            )
    overflowed = [i for i in batches["fp8-e5m2-round"] if right_text(i) == "inf"]
    assert overflowed
    for inst in overflowed:
        assert float(ml_dtypes.float8_e5m2(np.float32(float(inst.params["x"])))) == np.inf
        assert "ml_dtypes" in inst.explanation["en"] and "57344" in inst.explanation["en"]


def test_memory_prompts_define_their_units(batches: Batches) -> None:
    for name in ("adam-mixed-memory", "zero-memory", "activation-memory"):
        for inst in batches[name][:20]:
            assert "GB = 10^9 bytes" in inst.prompt["en"], name
    for inst in batches["activation-memory"][:20]:
        assert "MB (10^6 bytes)" in inst.prompt["en"] and "MB (10^6 byte)" in inst.prompt["id"]


def test_uneven_tokens_offers_only_possible_means(batches: Batches) -> None:
    for inst in batches["uneven-tokens"]:
        means = inst.params["mean_losses"]
        for text in inst.choices["en"]:
            assert min(means) <= float(text) <= max(means), (text, means)
        assert "summed-means" not in inst.misconceptions


def _defined_names(code_block: str) -> list[str]:
    first = code_block.split("```python\n")[1].splitlines()[0]
    return [n.strip() for n in first.split("=")[0].split(",")]


def test_autocast_offers_four_plausible_choices_and_uses_what_it_defines(
    batches: Batches,
) -> None:
    for inst in batches["autocast-dtype"]:
        low = inst.params["dtype"]
        other = "float16" if low == "bfloat16" else "bfloat16"
        assert len(inst.choices["en"]) == 4
        assert not any(f"torch.{other}" in c for c in inst.choices["en"]), inst.choices["en"]
        code_block = inst.prompt["en"].split("```")[1]
        body = code_block.split("autocast", 1)[1]
        for name in _defined_names("```" + code_block):
            assert re.search(rf"\b{name}\b", body), (name, code_block)


def test_steps_per_epoch_has_four_distinct_choices_where_it_once_had_three(
    batches: Batches,
) -> None:
    once = generate("steps-per-epoch", 5428)  # drew 1,008 samples / 16 GPUs / batches of 64
    assert len(set(once.choices["en"])) == 4
    for inst in [once, *batches["steps-per-epoch"]]:
        p = inst.params
        micro = math.ceil(math.ceil(p["dataset"] / p["gpus"]) / p["micro_batch"])
        assert micro >= 2 * p["accumulation_steps"], p


def test_accumulation_grad_defines_n_only_when_it_divides(batches: Batches) -> None:
    for inst in batches["accumulation-grad"][:100]:
        has_n = "N = len(grads)" in inst.prompt["en"]
        assert has_n == inst.params["divide"], inst.prompt["en"]


# --------------------------------------------------------------------------- validate catches them


def _draw(rng: Any) -> dict[str, Any]:
    return {"x": rng.randint(1, 10**6)}


def _twice_tell(params: dict[str, Any], rng: Any) -> Draft:
    """The old factor-of-two tell: the only ×2 pair holds the answer."""
    r = params["x"] + 10**6  # not the input itself
    wrong = [
        miss("off-by-one-exponent", str(2 * r)),
        miss("off-by-one", str(r + 1)),
        miss("off-by-one", str(r + 3)),
    ]
    return Draft(both("How many?"), Option(both(str(r))), wrong, both("Because."))


def _ladder_tell(params: dict[str, Any], rng: Any) -> Draft:
    r = 4 * params["x"]
    wrong = [
        miss("off-by-one-exponent", str(2 * r)),
        miss("off-by-one-exponent", str(r // 2)),
        miss("off-by-one", str(8 * r + 1)),
    ]
    return Draft(both("How many?"), Option(both(str(r))), wrong, both("Because."))


def _input_tell(params: dict[str, Any], rng: Any) -> Draft:
    r = params["x"]
    wrong = [miss("off-by-one", str(r + k)) for k in (1, 3, 5)]
    return Draft(both("How many?"), Option(both(str(r))), wrong, both("Because."))


def _few_answers(params: dict[str, Any], rng: Any) -> Draft:
    r = params["x"] % 3 + 10
    wrong = [miss("off-by-one", str(r + k)) for k in (1, 3, 5)]
    return Draft(both("How many?"), Option(both(str(r))), wrong, both("Because."))


def _percent_over_100(params: dict[str, Any], rng: Any) -> Draft:
    r = params["x"] % 50
    wrong = [
        miss("bubble-off-by-one", f"{r + 1}.0%"),
        miss("bubble-one-slot", f"{r + 2}.0%"),
        miss("bubble-over-micro-batches", "150.0%"),
    ]
    return Draft(both("What share?"), Option(both(f"{r}.0%")), wrong, both("Because."))


def _three_choices(params: dict[str, Any], rng: Any) -> Draft:
    r = params["x"]
    wrong = [miss("off-by-one", str(r + k)) for k in (1, 3)]
    return Draft(both("How many?"), Option(both(str(r))), wrong, both("Because."), n_choices=3)


IMPLS = {
    "broken-twice": (_draw, _twice_tell),
    "broken-ladder": (_draw, _ladder_tell),
    "broken-input": (_draw, _input_tell),
    "broken-few": (_draw, _few_answers),
    "broken-space": (_draw, _few_answers),
    "broken-percent": (_draw, _percent_over_100),
    "broken-three": (_draw, _three_choices),
}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("broken-twice", "tell 'x2-pair'"),
        ("broken-ladder", "tell 'ladder-middle'"),
        ("broken-input", "tell 'equals-input'"),
        ("broken-few", "only 3 distinct right answers in 100 seeds"),
        ("broken-space", "1 answer(s) of its declared space never right"),
        ("broken-percent", "is a fraction outside 0-100 %"),
        ("broken-three", "every template shows 4"),
    ],
)
def test_validate_catches_a_template_with_a_tell(
    monkeypatch: pytest.MonkeyPatch, name: str, expected: str
) -> None:
    space = frozenset({"10", "11", "12", "13"}) if name == "broken-space" else None
    info = TemplateInfo(name, __name__, "memory", 1, both("Broken"), ("x",), None, 4, space)
    if name == "broken-three":
        info = TemplateInfo(name, __name__, "memory", 1, both("Broken"), ("x",), None, 3)
    monkeypatch.setitem(TEMPLATES, name, info)
    problems = validate_templates(range(1000), names=[name])
    assert any(expected in p for p in problems), problems
    assert all(p.startswith(f"{name}: ") for p in problems)


def test_the_tell_checks_need_1000_seeds_but_variety_only_100(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    info = TemplateInfo("broken-twice", __name__, "memory", 1, both("B"), ("x",), None)
    monkeypatch.setitem(TEMPLATES, "broken-twice", info)
    assert validate_templates(range(999), names=["broken-twice"]) == []
    monkeypatch.setitem(TEMPLATES, "broken-few", dataclasses.replace(info, name="broken-few"))
    assert any("distinct" in p for p in validate_templates(range(100), names=["broken-few"]))
