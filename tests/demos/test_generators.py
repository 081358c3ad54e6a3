"""Generated questions (issue 23): registry, the required templates, the CLI, and truth
checked twice: every instance of 1,000 seeds per template against an independent
reference (NumPy's float16, ml_dtypes' bfloat16/float8, plain-Python formulas), and
``validate_templates`` over the same instances.

The 24,000 instances are generated once per module (about half a millisecond each).
"""

from __future__ import annotations

import functools
import json
import math
import statistics
import struct
import subprocess
import sys
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from experiments.catalog import CATALOG, ParamError
from experiments.generators import TEMPLATES, Instance, build_instance, generate, generate_batch
from experiments.generators.fmt import exact, one_decimal, power_of_two, printed, sig, sig_fixed
from experiments.generators.instance import Draft, Option, both, choice_key
from experiments.generators.misconceptions import MISCONCEPTIONS, miss
from experiments.generators.registry import TemplateInfo, UnknownTemplate, check_seed
from experiments.generators.validate import validate_templates

ROOT = Path(__file__).resolve().parents[2]
SEEDS = range(1000)


@functools.cache
def all_batches() -> dict[str, list[Instance]]:
    """1,000 seeds of every template, generated once per test run (tests/demos/test_generated_tells.py
    uses them too)."""
    return {name: generate_batch(name, SEEDS) for name in TEMPLATES}


@pytest.fixture(scope="module")
def batches() -> dict[str, list[Instance]]:
    return all_batches()


# --------------------------------------------------------------------------- registry


def test_at_least_20_templates_across_topics() -> None:
    assert len(TEMPLATES) >= 20
    assert len({t.topic for t in TEMPLATES.values()}) >= 12
    for name, info in TEMPLATES.items():
        assert set(info.titles) == {"id", "en"}, name
        assert info.demo is None or info.demo in CATALOG, name
        assert 1 <= info.difficulty <= 3


def test_the_registry_and_validator_import_without_torch() -> None:
    script = (
        "import sys\n"
        "import experiments.generators, experiments.generators.validate\n"
        "import experiments.generators.registry, experiments.generators.misconceptions\n"
        "import experiments.generate_cli\n"
        "from experiments.generate_cli import main\n"
        "assert main(['--list']) == 0\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "fp16-round" in out.stdout and "number-formats" in out.stdout


def test_the_four_required_templates_and_their_params() -> None:
    want = {
        "fp16-round": ["x"],
        "bf16-round": ["x"],
        "effective-batch": ["accumulation_steps", "gpus", "micro_batch"],
        "adam-mixed-memory": ["n_params"],
    }
    for name, keys in want.items():
        assert sorted(TEMPLATES[name].params) == keys
        inst = generate(name, 3)
        assert sorted(inst.params) == keys
    assert isinstance(generate("fp16-round", 3).params["x"], str)
    assert isinstance(generate("adam-mixed-memory", 3).params["n_params"], int)


def test_unknown_names_and_bad_seeds_are_param_errors() -> None:
    with pytest.raises(UnknownTemplate) as info:
        generate("fp17-round", 1)
    assert info.value.key == "generate.unknown" and "fp16-round" in str(info.value)
    for bad in (-1, 2**63, "x", 1.5, True, None):
        with pytest.raises(ParamError) as err:
            check_seed(bad)
        assert err.value.key == "generate.seed_range"
    assert check_seed("42") == 42


def test_same_seed_same_instance_and_no_global_rng() -> None:
    import random

    state = random.getstate()
    a = [generate(name, 12345).to_dict() for name in TEMPLATES]
    random.seed(99)  # the global RNG must not matter
    b = [generate(name, 12345).to_dict() for name in TEMPLATES]
    random.setstate(state)
    assert a == b
    assert json.loads(json.dumps(a)) == a  # plain JSON types
    assert Instance.from_dict(a[0]) == generate(next(iter(TEMPLATES)), 12345)


def test_instances_fit_the_quiz_schema() -> None:
    from bot.quizbank.schema import Question

    for name in TEMPLATES:
        inst = generate(name, 7)
        Question(id="gen-test", **inst.question_fields())


# --------------------------------------------------------------------------- formatting


def test_exact_is_exact_and_one_to_one() -> None:
    values = [
        0.0999755859375,
        65504.0,
        2.0**-24,
        2.0**-133,
        3.3895313892515355e38,
        1e-300,
        -1.5,
        0.1,
    ]
    texts = [exact(v) for v in values]
    assert len(set(texts)) == len(values)
    for v, text in zip(values, texts, strict=True):
        if "×" in text:
            m, e = text.split("×2^")
            assert Fraction(int(m)) * Fraction(2) ** int(e) == Fraction(v)
        else:
            assert Decimal(text) == Decimal(v)
    assert exact(math.inf) == "inf" and exact(-math.inf) == "-inf" and exact(math.nan) == "nan"
    assert exact(65504.0) == "65504" and exact(2.0**-24) == "5.9604644775390625e-08"


def test_choice_key_sees_through_formatting() -> None:
    assert choice_key("2.0 GB") == choice_key("2 GB") == choice_key(" 2  gb")
    assert choice_key("65504.0") == choice_key("65504")
    assert choice_key("2^3 = 8") != choice_key("2^4 = 16")
    assert choice_key("inf") != choice_key("nan")


# --------------------------------------------------------------------------- independent references


def f16(x: float) -> float:
    """torch's path: the Python float to float32, then to float16 (NumPy)."""
    with np.errstate(over="ignore"):
        return float(np.float16(np.float32(x)))


def bf16(x: float) -> float:
    return float(ml_dtypes.bfloat16(np.float32(x)))


def e4m3(x: float) -> float:
    """torch's cast saturates: finite overflow (and inf) becomes ±448; ml_dtypes gives NaN."""
    x32 = np.float32(x)
    return float(ml_dtypes.float8_e4m3fn(np.clip(x32, np.float32(-448), np.float32(448))))


def e5m2(x: float) -> float:
    return float(ml_dtypes.float8_e5m2(np.float32(x)))


def half_of_sum(a: float, b: float) -> float:
    """fp16 a + b: the exact double sum rounded once to half (Python's struct)."""
    return struct.unpack("<e", struct.pack("<e", a + b))[0] if abs(a + b) < 65520 else math.inf


def right_text(inst: Instance) -> str:
    return inst.choices["en"][inst.answer]


def assert_same_value(text: str, value: float) -> None:
    if math.isnan(value):
        assert text == "nan"
    elif math.isinf(value):
        assert text == ("inf" if value > 0 else "-inf")
    else:
        assert Decimal(text) == Decimal(value), (text, value)  # exact, not approximately


ROUND_REFS = {"fp16-round": f16, "bf16-round": bf16, "fp8-e4m3-round": e4m3, "fp8-e5m2-round": e5m2}


@pytest.mark.parametrize("name", sorted(ROUND_REFS))
def test_rounding_templates_match_numpy_and_ml_dtypes(
    batches: dict[str, list[Instance]], name: str
) -> None:
    ref = ROUND_REFS[name]
    regimes = set()
    for inst in batches[name]:
        x = float(inst.params["x"])
        value = ref(x)
        assert_same_value(right_text(inst), value)
        regimes.add("inf" if math.isinf(value) else "zero" if value == 0 else "finite")
        if name == "fp16-round":
            with np.errstate(over="ignore"):
                direct = float(np.float16(x))  # NumPy rounds the double straight to half
            if direct != value:
                i = inst.misconceptions.index("rounded-directly")
                assert_same_value(inst.choices["en"][i], direct)
    if name != "bf16-round":  # bf16 has fp32's range: the draws stay inside it
        assert "finite" in regimes and len(regimes) >= 2  # overflow or underflow drawn too


def test_fp16_round_models_the_float32_step() -> None:
    for x, want in (("65519.999999", "inf"), ("65519.99", "65504"), ("1.0004882812500001", "1")):
        inst = build_instance("fp16-round", {"x": x}, seed=1)
        assert right_text(inst) == want
    inst = build_instance("fp16-round", {"x": "1.0004882812500001"}, seed=1)
    assert "1.0009765625" in inst.choices["en"]  # rounding the double directly
    assert "float32" in inst.explanation["en"] and "float32" in inst.explanation["id"]


def test_ulp_spacing_matches_numpy_and_ml_dtypes(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["ulp-spacing"]:
        x = float(inst.params["x"])
        if inst.params["dtype"] == "float16":
            v = np.float16(np.float32(x))
            nxt = float(np.nextafter(v, np.float16(np.inf)))
            assert nxt - float(v) == float(np.spacing(v))
        else:
            v = ml_dtypes.bfloat16(np.float32(x))
            up = np.array([v]).view(np.uint16) + np.uint16(1)
            nxt = float(up.view(ml_dtypes.bfloat16)[0])
        assert_same_value(right_text(inst), nxt)
        gap = nxt - float(v)
        assert power_of_two(gap) in inst.explanation["en"]  # the spacing is taught


def test_fp16_multiply_matches_numpy(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["fp16-multiply"]:
        a, b = (
            np.float16(np.float32(float(inst.params["a"]))),
            np.float16(np.float32(float(inst.params["b"]))),
        )
        with np.errstate(over="ignore"):
            product = float(np.float16(np.float32(a) * np.float32(b)))
        assert right_text(inst) == printed(product)


_stalls: dict[tuple[str, float], float] = {}


def stall(dtype: str, step_text: str) -> float:
    """Where ``s = s + step`` stops growing, summed in plain Python."""
    rnd = (
        (lambda v: struct.unpack("<e", struct.pack("<e", v))[0])
        if dtype == "float16"
        else (lambda v: float(ml_dtypes.bfloat16(v)))
    )
    step = f16(float(step_text)) if dtype == "float16" else bf16(float(step_text))
    key = (dtype, step)
    if key not in _stalls:
        s = 0.0
        for _ in range(100_000):
            nxt = rnd(s + step)
            if nxt == s:
                break
            s = nxt
        _stalls[key] = s
    return _stalls[key]


def test_running_sum_stall_matches_a_python_loop(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["running-sum-stall"]:
        assert right_text(inst) == printed(stall(inst.params["dtype"], inst.params["step"]))


def test_fp16_sum_accumulates_in_fp32(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["fp16-sum"]:
        n, v = inst.params["n"], f16(float(inst.params["v"]))
        with np.errstate(over="ignore"):
            want = float(np.float16(np.float32(n * v)))
        assert right_text(inst) == printed(want)


def test_loss_scale_needed_matches_numpy(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["loss-scale-needed"]:
        g = np.float32(float(inst.params["grad"]))
        k = next(k for k in range(64) if float(np.float16(g * np.float32(2.0**k))) >= 2.0**-14)
        assert right_text(inst) == power_of_two(2.0**k)


def scaler_reference(init: int, interval: int, steps: str) -> float:
    scale, clean = float(init), 0
    for event in steps:
        if event == "x":
            scale, clean = scale * 0.5, 0
        else:
            clean += 1
            if clean == interval:
                scale, clean = scale * 2.0, 0
    return scale


def test_gradscaler_scale_matches_the_documented_rule(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["gradscaler-scale"]:
        p = inst.params
        assert right_text(inst) == exact(
            scaler_reference(p["init_scale"], p["growth_interval"], p["steps"])
        )


def test_clip_unscale_matches_the_formula(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["clip-unscale"]:
        p = inst.params
        g, c, s = float(p["grad_norm"]), float(p["max_norm"]), p["scale"]
        if p["unscale_first"]:
            want = g * min(1.0, c / (g + 1e-6))
        else:
            want = g * s * min(1.0, c / (g * s + 1e-6)) / s
        assert right_text(inst) == sig_fixed(want, 4), (p, want)
        assert len(right_text(inst).split("e")[0].replace(".", "").lstrip("0")) == 4


def test_low_precision_update_matches_a_python_loop(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["low-precision-update"]:
        p = inst.params
        if p["dtype"] == "float16":
            w, u = f16(float(p["w"])), f16(float(p["update"]))
            for _ in range(p["steps"]):
                w = half_of_sum(w, -u)
        else:
            w, u = bf16(float(p["w"])), bf16(float(p["update"]))
            for _ in range(p["steps"]):
                w = float(ml_dtypes.bfloat16(w - u))
        assert right_text(inst) == printed(w)


def test_adam_eps_matches_numpy_float16(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["adam-eps-fp16"]:
        m, v, eps = (np.float16(np.float32(float(inst.params[k]))) for k in ("m", "v", "eps"))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            want = float(m / (np.sqrt(v) + eps))
        assert right_text(inst) == printed(want)


def test_effective_batch_and_its_learning_rate(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["effective-batch"]:
        p = inst.params
        b = p["gpus"] * p["micro_batch"] * p["accumulation_steps"]
        assert right_text(inst) == str(b)
        assert sig(0.1 * b / 256) in inst.explanation["en"]


def test_accumulation_grad_matches_plain_python(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["accumulation-grad"]:
        grads, n = inst.params["grads"], len(inst.params["grads"])
        value = grads[-1] if inst.params["zero_grad_inside"] else sum(grads)
        if inst.params["divide"]:
            value /= n
        assert right_text(inst) == printed(value)


def test_uneven_tokens_is_the_token_weighted_mean(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["uneven-tokens"]:
        tokens, means = inst.params["tokens"], inst.params["mean_losses"]
        want = sum(Fraction(str(m)) * t for m, t in zip(means, tokens, strict=True)) / sum(tokens)
        assert abs(Fraction(right_text(inst)) - want) <= Fraction(1, 20000) + Fraction(1, 10**9)
        i = inst.misconceptions.index("per-micro-batch-means")
        assert inst.choices["en"][i] == f"{sum(means) / len(means):.4f}"


def test_lr_scaling_follows_the_rule_for_the_optimizer(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["lr-scaling"]:
        p = inst.params
        ratio = p["new_batch"] / p["base_batch"]
        want = float(p["base_lr"]) * (ratio if p["optimizer"] == "SGD" else math.sqrt(ratio))
        assert right_text(inst) == sig_fixed(want, 3)
        assert float(right_text(inst)) == pytest.approx(want, rel=5e-3)


def test_steps_per_epoch_matches_the_formula(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["steps-per-epoch"]:
        p = inst.params
        per_gpu = -(-p["dataset"] // p["gpus"])
        micro = -(-per_gpu // p["micro_batch"])
        assert right_text(inst) == str(-(-micro // p["accumulation_steps"]))


def test_pipeline_bubble_matches_the_formula(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["pipeline-bubble"]:
        p, m = inst.params["stages"], inst.params["micro_batches"]
        assert right_text(inst) == one_decimal(100 * (p - 1), m + p - 1) + "%"


def tenths_gb(numerator: int, denominator: int = 1) -> str:
    """numerator/denominator bytes in GB, one decimal, halves up, in integers only."""
    tenths = (numerator * 10 * 2 + denominator * 10**9) // (denominator * 10**9 * 2)
    return f"{tenths // 10}.{tenths % 10} GB"


def test_memory_templates_match_integer_formulas(batches: dict[str, list[Instance]]) -> None:
    for inst in batches["adam-mixed-memory"]:
        assert right_text(inst) == tenths_gb(16 * inst.params["n_params"])
    for inst in batches["zero-memory"]:
        n, gpus, stage = (inst.params[k] for k in ("n_params", "gpus", "stage"))
        whole, sharded = {1: (4 * n, 12 * n), 2: (2 * n, 14 * n), 3: (0, 16 * n)}[stage]
        assert right_text(inst) == tenths_gb(whole * gpus + sharded, gpus)
    for inst in batches["activation-memory"]:
        p = inst.params
        act = p["act_mb_per_sample"] * 10**6 * (p["batch"] // p["accumulation_steps"])
        assert right_text(inst) == tenths_gb(16 * p["n_params"] + act)
    sizes = {"float32": 4, "float16": 2, "bfloat16": 2, "float8_e4m3fn": 1, "float64": 8, "int8": 1}
    for inst in batches["tensor-bytes"]:
        assert right_text(inst) == str(
            math.prod(inst.params["shape"]) * sizes[inst.params["dtype"]]
        )


def test_autocast_dtype_reports_what_torch_does(batches: dict[str, list[Instance]]) -> None:
    seen = {}
    for inst in batches["autocast-dtype"]:
        for op, dtype in zip(inst.params["ops"], right_text(inst).split(), strict=True):
            seen[(inst.params["dtype"], op)] = dtype
    # Facts that hold on every device and version: matmul is lowered, add of two fp32 is not.
    for low in ("bfloat16", "float16"):
        assert seen[(low, "matmul")] == f"torch.{low}"
        assert seen[(low, "add")] == "torch.float32"


# --------------------------------------------------------------------------- validation


def test_validate_passes_on_1000_seeds_of_every_template(
    batches: dict[str, list[Instance]],
) -> None:
    assert validate_templates(SEEDS, instances=batches) == []
    for name, insts in batches.items():
        assert len({i.answer for i in insts}) == TEMPLATES[name].n_choices, name  # every slot used
        for inst in insts[:50]:
            assert set(inst.misconceptions) - {None} <= set(MISCONCEPTIONS)
            assert inst.misconceptions[inst.answer] is None


def test_validate_generates_by_itself() -> None:
    assert validate_templates(range(20), names=["fp16-round", "effective-batch"]) == []


def test_every_distractor_is_explained(batches: dict[str, list[Instance]]) -> None:
    for name, insts in batches.items():
        for inst in insts[:100]:
            for lang in ("id", "en"):
                for i, text in enumerate(inst.choices[lang]):
                    if i != inst.answer:
                        assert f"• {text}: " in inst.explanation[lang], (name, inst.seed, text)


# Deliberately broken templates, registered for one test at a time.


def _bad_instance(seed: int, **changes: Any) -> Instance:
    base: dict[str, Any] = {
        "template": "broken",
        "seed": seed,
        "params": {"x": seed},
        "prompt": both("Which?"),
        "choices": {"id": ["2 GB", "3 GB", "4 GB", "5 GB"], "en": ["2 GB", "3 GB", "4 GB", "5 GB"]},
        "answer": seed % 4,
        "explanation": both("Because."),
        "topic": "memory",
        "difficulty": 1,
        "demo": None,
        "misconceptions": [None if i == seed % 4 else "gib-not-gb" for i in range(4)],
    }
    base.update(changes)
    return Instance(**base)


def _draw(rng: Any) -> dict[str, Any]:
    return {"x": rng.randint(0, 9)}


def _equal_after_formatting(params: dict[str, Any], rng: Any) -> Instance:
    seed = params["x"]
    choices = ["2 GB", "3 GB", "4 GB", "5 GB"]
    choices[(seed + 1) % 4] = choices[seed % 4].replace(" GB", ".0 GB")  # equals the right one
    return _bad_instance(seed, choices={"id": choices, "en": choices})


def _two_equal_distractors(params: dict[str, Any], rng: Any) -> Instance:
    seed = params["x"]
    choices = ["7 GB"] * 4
    choices[seed % 4] = "2 GB"
    return _bad_instance(seed, choices={"id": choices, "en": choices})


def _always_slot_zero(params: dict[str, Any], rng: Any) -> Instance:
    return _bad_instance(
        params["x"], answer=0, misconceptions=[None, "gib-not-gb", "gib-not-gb", "gib-not-gb"]
    )


def _right_always_longest(params: dict[str, Any], rng: Any) -> Draft:
    return Draft(
        both("Which?"),
        Option(both(f"{params['x']}234567 GB")),
        [miss("gib-not-gb", f"{k} GB") for k in range(3)],
        both("Because."),
    )


def _too_long(params: dict[str, Any], rng: Any) -> Instance:
    return _bad_instance(
        params["x"], prompt={"id": "x" * 1001, "en": "ok"}, explanation=both("y" * 1001)
    )


def _raises(params: dict[str, Any], rng: Any) -> Draft:
    if params["x"] == 3:
        raise ZeroDivisionError("boom")
    return _right_always_longest(params, rng)


IMPLS = {
    "broken-equal": (_draw, _equal_after_formatting),
    "broken-twins": (_draw, _two_equal_distractors),
    "broken-slot": (_draw, _always_slot_zero),
    "broken-longest": (_draw, _right_always_longest),
    "broken-long": (_draw, _too_long),
    "broken-raises": (_draw, _raises),
}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("broken-equal", "equals distractor"),
        ("broken-twins", "two equal choices"),
        ("broken-slot", "in position 0 in all"),
        ("broken-longest", "is the longest en choice in all"),
        ("broken-long", "prompt has 1001 characters"),
        ("broken-raises", "raised ZeroDivisionError: boom"),
    ],
)
def test_validate_catches_a_broken_template(
    monkeypatch: pytest.MonkeyPatch, name: str, expected: str
) -> None:
    monkeypatch.setitem(
        TEMPLATES,
        name,
        TemplateInfo(name, __name__, "memory", 1, both("Broken"), ("x",), None),
    )
    problems = validate_templates(range(40), names=[name])
    assert problems, name
    assert all(p.startswith(f"{name}: ") for p in problems)
    assert any(expected in p for p in problems), problems


# --------------------------------------------------------------------------- command line


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "experiments.generate_cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_json_has_exactly_the_promised_keys(capsys: pytest.CaptureFixture[str]) -> None:
    from experiments.generate_cli import main

    assert main(["fp16-round", "--seed", "11", "--json", "--lang", "id"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["template", "seed", "params", "prompt", "choices", "answer", "explanation"]
    inst = generate("fp16-round", 11)
    assert out["template"] == "fp16-round" and out["seed"] == 11 and out["params"] == inst.params
    assert out["prompt"] == inst.prompt["id"] and out["explanation"] == inst.explanation["id"]
    assert out["choices"] == inst.choices["id"] and isinstance(out["choices"][0], str)
    assert out["answer"] == inst.answer


def test_cli_text_output_prints_the_seed_to_reproduce(capsys: pytest.CaptureFixture[str]) -> None:
    from experiments.generate_cli import main

    assert main(["adam-mixed-memory"]) == 0
    out = capsys.readouterr().out
    seed = int(out.split("--seed ")[1].split()[0])
    assert f"seed {seed}" in out and "answer: " in out
    assert main(["adam-mixed-memory", "--seed", str(seed)]) == 0
    assert capsys.readouterr().out == out


def test_cli_list_and_usage_errors() -> None:
    listed = run_cli("--list")
    assert listed.returncode == 0
    for name, info in TEMPLATES.items():
        assert name in listed.stdout and info.topic in listed.stdout
    for args, needle in (
        (("nope",), "unknown template 'nope'"),
        (("fp16-round", "--seed", "-1"), "seed must be"),
        (("fp16-round", "--lang", "fr"), "invalid choice"),
        ((), "a template name is required"),
    ):
        out = run_cli(*args)
        assert out.returncode == 2, args
        lines = out.stderr.strip().splitlines()
        assert lines[0].startswith("error: ") and needle in lines[0]
        assert lines[-1].startswith("fix: ")


# --------------------------------------------------------------------------- speed


def test_a_warm_instance_takes_well_under_100_ms() -> None:
    for name in TEMPLATES:
        generate(name, 0)  # warm: modules imported, first-call paths taken
    for name in TEMPLATES:
        times = []
        for seed in range(1, 6):
            t0 = time.perf_counter()
            generate(name, seed)
            times.append(time.perf_counter() - t0)
        assert statistics.median(times) < 0.05, (name, times)
