"""Numbers of the demos checked against theory (CPU; CUDA path under the gpu marker)."""

from __future__ import annotations

import copy
import importlib
import io
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch

from experiments import CATALOG, PARAM_BOUNDS, SUMMARIES, TITLES, DemoResult, run_experiment
from experiments import accumulation as acc
from experiments._common import FIGURE_LOG, LESSON_MAX_CHARS, snippet_in_sync
from experiments.cli import main as cli_main
from experiments.gpu import capability_claims
from tests.support.autocast_claims import mismatches

ROOT = Path(__file__).resolve().parents[2]
CPU = torch.device("cpu")
# Tiny tensors: one intra-op thread avoids OpenMP contention on a busy 2-core box.
torch.set_num_threads(1)


@pytest.fixture(scope="module")
def runs() -> dict[str, tuple[DemoResult, dict[str, Any]]]:
    # Each demo once per module (keeps the file fast), with what its figure showed.
    out = {}
    for name in CATALOG:
        FIGURE_LOG.clear()
        result = run_experiment(name, device="cpu")
        (fig,) = FIGURE_LOG
        out[name] = (result, fig)
    return out


@pytest.fixture(scope="module")
def results(runs: dict[str, tuple[DemoResult, dict[str, Any]]]) -> dict[str, DemoResult]:
    return {name: r for name, (r, _) in runs.items()}


def check_figure(fig: dict[str, Any]) -> None:
    """A title, the lesson in one line, and every plot labelled with a legend."""
    assert fig["title"].strip() and fig["lesson"].strip()
    assert "\n" not in fig["lesson"] and len(fig["lesson"]) <= LESSON_MAX_CHARS
    assert fig["clipped_texts"] == []  # nothing runs off the picture
    for ax in fig["axes"]:
        assert ax["legend"], ax
        if ax["axis_on"]:
            assert ax["xlabel"].strip() and ax["ylabel"].strip(), ax


@pytest.mark.parametrize("name", list(CATALOG))
def test_every_figure_has_title_labels_legend_and_lesson(
    runs: dict[str, tuple[DemoResult, dict[str, Any]]], name: str
) -> None:
    check_figure(runs[name][1])


def test_registry_and_localized_titles() -> None:
    assert list(CATALOG) == [
        "accumulation",
        "loss-scaling",
        "master-weights",
        "formats",
        "accumulation-precision",
        "batchnorm",
        "autocast",
        "speed-memory",
        "fp8-formats",
        "clip-unscale",
        "scaler-accumulation",
        "uneven-tokens",
        "adam-epsilon",
    ]
    for name in CATALOG:
        assert TITLES[name]["id"] and TITLES[name]["en"]
        assert SUMMARIES[name]["id"] and SUMMARIES[name]["en"]
    assert not any(n.startswith("_") for n in CATALOG)  # diagnostics stay hidden
    assert PARAM_BOUNDS["accumulation"]["micro_batches"] == {
        "default": 8,
        "min": 1,
        "max": 16,
        "help": "number of micro-batches accumulated",
    }
    assert PARAM_BOUNDS["formats"] == {}
    for name in ("fp8-formats", "clip-unscale", "adam-epsilon"):
        assert PARAM_BOUNDS[name] == {}
    assert PARAM_BOUNDS["scaler-accumulation"]["micro_batches"]["max"] == 16
    assert PARAM_BOUNDS["uneven-tokens"]["micro_batch_size"] == {
        "default": 8,
        "min": 1,
        "max": 256,
        "help": "average tokens per micro-batch",
    }


@pytest.mark.parametrize("name", list(CATALOG))
def test_every_demo_returns_png_snippet_and_json(results: dict[str, DemoResult], name: str) -> None:
    r = results[name]
    assert r.png.startswith(b"\x89PNG")
    assert r.snippet.strip()
    assert r.device == "cpu"
    assert r.elapsed_s > 0
    json.loads(r.to_json(allow_nan=False))  # strict JSON
    module = importlib.import_module(CATALOG[name].module)
    # The snippet shown to users is really the code that runs.
    assert snippet_in_sync(module.SNIPPET, *module.SNIPPET_FUNCS), name


class _BuiltinsOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> None:
        raise AssertionError(f"payload references {module}.{name}")


@pytest.mark.parametrize("name", list(CATALOG))
def test_payload_is_plain_builtins(results: dict[str, DemoResult], name: str) -> None:
    # The bot unpickles this; any torch/numpy object would import torch there.
    payload = results[name].to_payload()
    data = pickle.dumps(payload)
    assert _BuiltinsOnly(io.BytesIO(data)).load() == payload
    assert DemoResult.from_payload(payload).to_dict() == results[name].to_dict()


def test_snippet_check_detects_drift() -> None:
    assert not snippet_in_sync("loss = loss / 2  # not in the code", acc.accumulate)


# ------------------------------------------------------------------ accumulation
def test_correct_accumulation_matches_full_batch(results: dict[str, DemoResult]) -> None:
    v = results["accumulation"].numbers["variants"]
    assert v["full_batch"]["grad_rel_error"] == 0.0
    assert v["correct"]["grad_rel_error"] < 1e-5
    assert v["correct"]["cosine"] == pytest.approx(1.0, abs=1e-6)
    assert v["correct"]["norm_ratio"] == pytest.approx(1.0, abs=1e-5)
    assert v["correct"]["losses"] == pytest.approx(v["full_batch"]["losses"], rel=1e-4)


def test_no_loss_division_scales_gradient_by_n(results: dict[str, DemoResult]) -> None:
    n = results["accumulation"].params["micro_batches"]
    v = results["accumulation"].numbers["variants"]["no_loss_division"]
    assert v["norm_ratio"] == pytest.approx(n, rel=1e-5)
    assert v["cosine"] == pytest.approx(1.0, abs=1e-6)


def test_accumulation_defaults_are_ga02s_numbers(results: dict[str, DemoResult]) -> None:
    # ga-02: micro-batch size 4, 8 accumulation steps -> effective batch 32, shown.
    r = results["accumulation"]
    assert r.params == {"micro_batches": 8, "micro_batch_size": 4}
    assert r.numbers["effective_batch"] == 32
    assert ("effective batch", "4 x 8 = 32 samples per step") in r.highlights


def test_missing_division_diverges_at_n_times_the_learning_rate(
    results: dict[str, DemoResult],
) -> None:
    num = results["accumulation"].numbers
    n, v = num["micro_batches"], num["variants"]
    # SGD on least squares is stable while lr * L < 2; the demo runs at 0.8 of the limit.
    assert num["lr_times_curvature"] == pytest.approx(1.6)
    assert num["no_division_lr_times_curvature"] == pytest.approx(1.6 * n)
    for ok in ("full_batch", "correct"):
        assert not v[ok]["diverged"]
        assert v[ok]["losses"][-1] < 0.05 * v[ok]["losses"][0]
    bad = v["no_loss_division"]["losses"]
    assert v["no_loss_division"]["diverged"] and max(bad) > 1e6 * bad[0]
    # Once the steepest direction dominates, the loss grows by (N lr L - 1)^2 per step.
    growth = bad[-1] / bad[-2]
    assert growth == pytest.approx(num["theory_no_division_growth"], rel=0.1)


def test_missing_division_tightens_clipping_but_not_adam(results: dict[str, DemoResult]) -> None:
    num = results["accumulation"].numbers
    n, v = num["micro_batches"], num["variants"]
    # Threshold 1.5x the true norm: the right gradient is untouched, the N-times one is
    # scaled by 1.5 / N, i.e. the clip threshold is effectively N times tighter.
    assert v["correct"]["clip_coefficient"] == pytest.approx(1.0)
    assert v["no_loss_division"]["clip_coefficient"] == pytest.approx(1.5 / n, rel=1e-5)
    # Adam normalizes the gradient's scale away: the same update up to epsilon.
    assert v["no_loss_division"]["adam_update_rel_diff"] < 1e-4
    assert v["zero_grad_every_micro_batch"]["adam_update_rel_diff"] > 0.1


def test_accumulation_cost_time_and_memory(results: dict[str, DemoResult]) -> None:
    # ga-06: N passes in a row take longer per update; activations held shrink N-fold.
    num = results["accumulation"].numbers
    c, n = num["cost"], num["micro_batches"]
    assert c["accumulated"]["passes_per_update"] == n and c["full_batch"]["passes_per_update"] == 1
    assert c["memory_ratio"] == pytest.approx(n)
    assert c["full_batch"]["activation_bytes"] == n * c["accumulated"]["activation_bytes"] > 0
    assert c["time_ratio"] > 2  # 8 sequential passes vs 1 (median of 7 repeats)
    for way in ("full_batch", "accumulated"):
        t = c[way]["ms_per_update"]
        assert t["repeats"] == 7 and 0 < t["min"] <= t["median"] <= t["max"]


def test_zero_grad_every_micro_batch_keeps_only_last_micro_batch() -> None:
    n, m = 4, 8
    base = acc.make_model(CPU)
    mbs = acc.make_batch(n, m, CPU)
    buggy = acc.variant_grad(base, mbs, "zero_grad_every_micro_batch")
    # Explicit: gradient of the last micro-batch's loss alone, divided by N.
    last = copy.deepcopy(base)
    x, y = mbs[-1]
    (torch.nn.functional.mse_loss(last(x), y) / n).backward()
    expected = acc.flat_grad(last)
    torch.testing.assert_close(buggy, expected, rtol=1e-6, atol=1e-8)
    full = acc.variant_grad(base, mbs, "full_batch")
    assert (buggy - full).norm() / full.norm() > 0.1  # and it is not the full gradient


def test_accumulation_param_bounds() -> None:
    with pytest.raises(ValueError, match="maximum 16"):
        run_experiment("accumulation", micro_batches=17)
    with pytest.raises(ValueError, match="minimum 1"):
        run_experiment("accumulation", micro_batch_size=0)
    with pytest.raises(ValueError, match="does not take"):
        run_experiment("formats", micro_batches=2)
    with pytest.raises(ValueError, match="minimum 2"):
        run_experiment("batchnorm", micro_batch_size=1)
    with pytest.raises(ValueError, match="unknown demo"):
        run_experiment("nope")
    with pytest.raises(ValueError, match="unknown demo"):
        run_experiment("_sleep")  # diagnostics need the env var


def test_accumulation_other_params_still_match() -> None:
    r = run_experiment("accumulation", device="cpu", micro_batches=3, micro_batch_size=5)
    v = r.numbers["variants"]
    assert r.params == {"micro_batches": 3, "micro_batch_size": 5}
    assert r.numbers["effective_batch"] == 15
    assert v["correct"]["grad_rel_error"] < 1e-5
    assert v["no_loss_division"]["norm_ratio"] == pytest.approx(3, rel=1e-5)
    assert v["no_loss_division"]["diverged"] and not v["correct"]["diverged"]
    one = run_experiment("accumulation", device="cpu", micro_batches=1, micro_batch_size=1)
    assert not one.numbers["variants"]["no_loss_division"]["diverged"]  # N = 1: nothing to fix


# ------------------------------------------------------------------ formats
def test_formats_against_ieee(results: dict[str, DemoResult]) -> None:
    num = results["formats"].numbers
    f = num["formats"]
    assert f["fp16"]["max"] == 65504
    assert (f["fp16"]["exponent_bits"], f["fp16"]["mantissa_bits"]) == (5, 10)
    assert (f["bf16"]["exponent_bits"], f["bf16"]["mantissa_bits"]) == (8, 7)
    assert (f["fp32"]["exponent_bits"], f["fp32"]["mantissa_bits"]) == (8, 23)
    assert f["fp16"]["smallest_subnormal"] == 2.0**-24
    assert f["fp16"]["smallest_normal"] == 2.0**-14
    vals = num["values"]
    assert vals["1e-8"]["fp16"] == 0.0
    assert vals["1e-8"]["bf16"] != 0.0
    assert vals["70000"]["fp16"] == "inf"  # non-finite → string in strict JSON
    assert vals["65504"]["fp16"] == 65504
    assert vals["1+2^-8"]["fp16"] == 1 + 2.0**-8 and vals["1+2^-8"]["bf16"] == 1.0
    assert vals["3e38"]["fp16"] == "inf" and vals["3e38"]["bf16"] != "inf"


# ------------------------------------------------------------------ loss scaling
def test_loss_scaling_reduces_underflow(results: dict[str, DemoResult]) -> None:
    num = results["loss-scaling"].numbers
    assert num["method"] == "autocast backward"  # CPU autocast fp16 is available in torch>=2.4
    for table in (num["underflow_fraction"], num["cast_underflow_fraction"]):
        assert table["fp16_no_scaler"] > 0.1
        assert table["fp16_with_scaler"] < table["fp16_no_scaler"]
        assert table["fp16_with_scaler"] < 0.01
        assert table["bf16_no_scaler"] < 0.01


# ------------------------------------------------------------------ master weights
def test_master_weights(results: dict[str, DemoResult]) -> None:
    num = results["master-weights"].numbers
    assert num["stalled"] == {
        "fp32": False,
        "fp16": True,
        "bf16": True,
        "fp16_from_master": False,
    }
    assert num["final"]["fp32"] == pytest.approx(num["expected_final"], abs=1e-4)
    assert num["final"]["fp16_from_master"] == pytest.approx(num["expected_final"], abs=1e-3)
    assert num["lr_times_grad"] < num["half_spacing_below_1"]["fp16"]


# ------------------------------------------------------------------ accumulation precision
def test_fp16_accumulation_error_grows(results: dict[str, DemoResult]) -> None:
    err = results["accumulation-precision"].numbers["mean_rel_error"]
    e16, e32 = err["fp16_accumulator"], err["fp32_accumulator"]
    assert e16[-1] > 10 * e16[0]  # grows with length
    assert all(a > b for a, b in zip(e16, e32, strict=True))
    assert e16[-1] > 0.01 and e32[-1] < 1e-5
    # torch.sum on an fp16 tensor accumulates in fp32: only the final rounding remains.
    assert err["torch_sum_fp16_tensor"][-1] < 1e-3


# ------------------------------------------------------------------ batchnorm
def test_batchnorm_differs_group_and_layer_norm_match(results: dict[str, DemoResult]) -> None:
    norms = results["batchnorm"].numbers["norms"]
    assert norms["batchnorm"]["grad_rel_error"] > 1e-2
    assert norms["batchnorm"]["running_mean_rel_diff"] > 1e-2
    assert norms["batchnorm"]["num_batches_tracked"] == {"full_batch": 1, "accumulated": 4}
    for n in ("groupnorm", "layernorm"):
        assert norms[n]["grad_rel_error"] < 1e-5
        assert norms[n]["cosine"] == pytest.approx(1.0, abs=1e-6)


# ------------------------------------------------------------------ autocast / speed
def test_autocast_reports_cpus_own_lists(results: dict[str, DemoResult]) -> None:
    num = results["autocast"].numbers
    obs = num["observed"]
    for low, name in (("fp16", "float16"), ("bf16", "bfloat16")):
        for op in ("linear", "matmul", "conv2d"):  # fp32 inputs, lowered
            assert obs[low][op] == name
        # 16-bit inputs: on CPU these stay 16-bit (CUDA's list casts them up).
        for op in ("softmax", "log_softmax", "sum"):
            assert obs[low][op] == name, (low, op)
            assert op in num["kept_in_16bit"][low]
        for op in ("mse_loss", "cross_entropy"):  # on CPU's fp32 list
            assert obs[low][op] == "float32"
    assert num["cast_up_to_fp32"]["fp16"] == ["mse_loss", "cross_entropy"]


def test_autocast_figure_says_the_lists_differ_by_device(
    runs: dict[str, tuple[DemoResult, dict[str, Any]]],
) -> None:
    note = runs["autocast"][1]["note"]
    assert note.startswith("On cpu: softmax, log_softmax, sum kept in 16-bit.")
    assert "differ by device" in note


def test_autocast_shows_which_amp_apis_are_deprecated(results: dict[str, DemoResult]) -> None:
    # mp-06: observed on the installed torch, not asserted from memory.
    apis = results["autocast"].numbers["apis"]
    assert apis['torch.amp.autocast("cpu", dtype=torch.float16)']["status"] == "current"
    assert apis['torch.amp.GradScaler("cpu")']["status"] == "current"
    for old in ("torch.cuda.amp.autocast()", "torch.cuda.amp.GradScaler()"):
        assert apis[old]["status"] == "deprecated"
        assert "is deprecated" in apis[old]["message"]


def test_speed_memory_reports_halved_memory(results: dict[str, DemoResult]) -> None:
    num = results["speed-memory"].numbers
    assert num["tensor_bytes"]["fp32"] == 2 * num["tensor_bytes"]["bf16"] == 4 * 2**20
    assert isinstance(num["matmul_gflops"]["fp32"], float) and num["matmul_gflops"]["fp32"] > 0


def test_speed_memory_medians_of_repeats_and_device_caveat(
    runs: dict[str, tuple[DemoResult, dict[str, Any]]],
) -> None:
    result, fig = runs["speed-memory"]
    num = result.numbers
    for k, s in num["gflops_spread"].items():
        assert s["repeats"] == num["repeats"] == 7
        assert s["min"] <= s["median"] == num["matmul_gflops"][k] <= s["max"]
    assert fig["note"].startswith("CPU caveat: no tensor cores")
    assert "x" in fig["lesson"] and "bf16" in fig["lesson"]  # the measured ratio, on the figure


def test_master_weights_draws_fp16_above_bf16() -> None:
    from experiments.master_weights import STYLES

    assert list(STYLES)[-1] == "fp16"  # drawn last: on top of the flat bf16 line
    assert STYLES["fp16"]["zorder"] > STYLES["bf16"]["zorder"]
    assert STYLES["bf16"]["lw"] > STYLES["fp16"]["lw"]  # wide grey band under a red dash


# ------------------------------------------------------------------ new demos (issue 15)
def test_fp8_formats_against_the_spec(results: dict[str, DemoResult]) -> None:
    num = results["fp8-formats"].numbers
    e4, e5 = num["formats"]["e4m3"], num["formats"]["e5m2"]
    # From all 256 bit patterns: E4M3 = (1 + 6/8) * 2^8, no inf, NaN only at S.1111.111.
    assert (e4["max"], e4["has_inf"], e4["nan_patterns"]) == (448, False, 2)
    assert (e5["max"], e5["has_inf"], e5["nan_patterns"]) == (57344, True, 6)
    assert e4["smallest_subnormal"] == 2.0**-9 and e5["smallest_subnormal"] == 2.0**-16
    assert (e4["mantissa_bits"], e5["mantissa_bits"]) == (3, 2)
    r = num["rounding"]
    assert (r["0.1"]["e4m3"], r["0.1"]["e5m2"]) == (0.1015625, 0.09375)
    assert (r["pi"]["e4m3"], r["pi"]["e5m2"]) == (3.25, 3.0)
    assert r["1e-5"]["e4m3"] == 0.0  # below half E4M3's smallest subnormal
    for label, row in r.items():  # the cast is round-to-nearest-even onto the grid
        for k in ("e4m3", "e5m2"):
            if row[f"{k}_nearest"] is not None:
                assert row[k] == row[f"{k}_nearest"], (label, k)
    assert r["70000 (past E5M2's max)"]["e5m2"] == "inf"
    assert r["1000 (past E4M3's max)"]["e4m3"] in (448.0, "nan")  # saturates or NaN, never inf
    s4, s5 = num["scaling"]["e4m3"], num["scaling"]["e5m2"]
    assert s4["direct"]["zeroed"] > 0.5 and s4["scaled"]["zeroed"] == 0.0
    assert s4["scaled_amax"] == 448.0 and s5["scaled_amax"] == 57344.0
    # Amax-scaled values are normal numbers: relative error at most half an ulp, 2^-(m+1).
    assert s4["scaled"]["max_rel_error"] <= 2.0**-4 and s5["scaled"]["max_rel_error"] <= 2.0**-3
    assert s4["scaled"]["mean_rel_error"] < s5["scaled"]["mean_rel_error"]  # E4M3 finer


def test_clip_without_unscale_shrinks_the_step_by_the_scale(results: dict[str, DemoResult]) -> None:
    num = results["clip-unscale"].numbers
    v, scale = num["variants"], num["init_scale"]
    assert scale == 2.0**16 and num["max_norm"] == pytest.approx(0.5 * num["true_grad_norm"])
    ref = v["fp32_reference"]
    assert ref["update_norm"] == pytest.approx(num["expected_update_norm"], rel=1e-5)
    bad, good = v["scaler_no_unscale"], v["scaler_with_unscale"]
    # clip saw the scaled norm, clipped it to max_norm, then step() divided by the scale.
    assert bad["norm_seen_by_clip"] == pytest.approx(scale * num["true_grad_norm"], rel=1e-2)
    assert bad["update_norm_ratio"] == pytest.approx(1 / scale, rel=1e-3)
    assert good["norm_seen_by_clip"] == pytest.approx(num["true_grad_norm"], rel=1e-2)
    assert good["update_norm_ratio"] == pytest.approx(1.0, rel=1e-4)
    assert good["update_rel_error"] < 0.02  # only fp16 autocast rounding differs


def test_scaler_accumulation_matches_full_batch(results: dict[str, DemoResult]) -> None:
    r = results["scaler-accumulation"]
    v, n = r.numbers["variants"], r.params["micro_batches"]
    assert v["correct"]["update_rel_error"] < 1e-2
    assert v["correct"]["update_norm_ratio"] == pytest.approx(1.0, rel=1e-3)
    assert v["correct"]["optimizer_steps"] == 1 and v["correct"]["skipped_steps"] == 0
    assert v["step_every_micro_batch"]["optimizer_steps"] == n
    assert v["step_every_micro_batch"]["update_rel_error"] > 10 * v["correct"]["update_rel_error"]
    assert v["no_loss_division"]["update_norm_ratio"] == pytest.approx(n, rel=1e-3)


def test_scaler_accumulation_without_division_overflows_sooner() -> None:
    r = run_experiment("scaler-accumulation", device="cpu", micro_batches=16)
    v = r.numbers["variants"]
    assert v["correct"]["skipped_steps"] == 0
    # 16x the gradient at scale 2^16 overflows fp16: step skipped, scale halved.
    assert v["no_loss_division"]["skipped_steps"] == 1
    assert v["no_loss_division"]["final_scale"] == 2.0**15
    assert v["no_loss_division"]["update_norm_ratio"] == 0.0


def test_uneven_tokens_bias_against_theory(results: dict[str, DemoResult]) -> None:
    num = results["uneven-tokens"].numbers
    counts, n, total = num["token_counts"], num["micro_batches"], num["total_tokens"]
    assert len(set(counts)) == n == 4 and sum(counts) == total
    w = num["weight_per_token_vs_fair"]["mean_of_means"]
    assert w == pytest.approx([total / (n * c) for c in counts])
    v = num["variants"]
    assert v["sum_over_total_tokens"]["grad_rel_error"] < 1e-5
    assert v["sum_over_total_tokens"]["loss"] == pytest.approx(v["full_batch"]["loss"], rel=1e-5)
    assert v["mean_of_means"]["grad_rel_error"] > 0.05


def test_uneven_tokens_mean_of_means_is_the_reweighted_loss() -> None:
    from experiments import uneven_tokens as ut

    model, mbs = ut.make_problem(CPU, 4, 8)
    n = len(mbs)
    expected = sum(
        torch.nn.functional.cross_entropy(model(x), y, reduction="sum").item() / (n * len(y))
        for x, y in mbs
    )
    assert ut.accumulate(copy.deepcopy(model), mbs, "mean_of_means") == pytest.approx(expected)
    equal = [(x[:2], y[:2]) for x, y in mbs]  # equal counts: no bias
    a, b = copy.deepcopy(model), copy.deepcopy(model)
    ut.accumulate(a, equal, "mean_of_means")
    ut.accumulate(b, equal, "sum_over_total_tokens")
    torch.testing.assert_close(ut._grad(a), ut._grad(b))


def test_adam_epsilon_in_fp16(results: dict[str, DemoResult]) -> None:
    num = results["adam-epsilon"].numbers
    assert num["eps_in_fp16"] == 0.0
    assert num["eps_in_bf16"] == pytest.approx(1e-8, rel=0.01)
    sweep = num["sweep"]
    for i, scale in enumerate(num["grad_scales"]):
        # fp32 Adam's first step is lr * g / (|g| + eps): lr, whatever |g| is.
        assert sweep["fp32_state"][i]["first_update_over_lr"] == pytest.approx(
            scale / (scale + 1e-8), rel=1e-3
        )
        # fp16 state: v = (1 - beta2) g^2 underflows exactly where theory says, and then
        # m / (0 + 0) is inf.
        underflows = num["theory_v_underflows"][i]
        assert sweep["fp16_state"][i]["finite"] is not underflows, scale
        assert (sweep["fp16_state"][i]["v_zero_fraction"] == 1.0) is underflows
    assert num["theory_v_underflows"] == [False, False, True, True, True, True]
    big_eps = {p["grad"]: p for p in sweep["fp16_state_eps_1e-4"]}
    # With v = 0 the step is lr * |g| / eps: 10x too big at 1e-3, rounded away at 1e-5.
    assert big_eps[1e-3]["first_update_over_lr"] == pytest.approx(10, rel=0.05)
    assert big_eps[1e-5]["first_update_over_lr"] == 0.0
    train = num["train"]
    assert not train["fp16_state"]["finite"]
    assert train["fp32_state"]["losses"][-1] < 0.5 * train["fp32_state"]["losses"][0]
    assert train["fp16_state_eps_1e-4"]["losses"][-1] == train["fp16_state_eps_1e-4"]["losses"][0]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
@pytest.mark.parametrize("name", list(CATALOG))
def test_cuda_path(name: str) -> None:
    FIGURE_LOG.clear()
    r = run_experiment(name, device="cuda")
    assert r.device.startswith("cuda")
    check_figure(FIGURE_LOG[-1])
    json.loads(r.to_json(allow_nan=False))
    num = r.numbers
    if name == "accumulation":
        assert num["variants"]["correct"]["grad_rel_error"] < 1e-5
        assert num["variants"]["no_loss_division"]["diverged"]
        assert num["cost"]["memory_ratio"] == pytest.approx(8)
    if name == "autocast":
        obs = num["observed"]
        assert obs["fp16"]["matmul"] == "float16"
        for op in ("softmax", "log_softmax", "sum"):  # CUDA autocast casts these up
            assert obs["fp16"][op] == obs["bf16"][op] == "float32"
        assert num["apis"]['torch.amp.autocast("cuda", dtype=torch.float16)']["status"] == (
            "current"
        )
        # CPU and this GPU side by side; every question linking the demo agrees with both.
        assert list(num["by_device"]) == ["cpu", "cuda"]
        assert mismatches(num, "cpu") == [] and mismatches(num, "cuda") == []
    if name == "speed-memory":
        major, minor = torch.cuda.get_device_capability()
        assert num["hardware"] == capability_claims(major, minor)
        assert num["tf32_matmul"] is False  # PyTorch's default precision, "highest"
        from experiments.cuda import probe  # the doctor's probe: works, the same claims

        found = probe("cuda")
        assert found["reason"] is None and found["capability"] == num["hardware"]
        if major >= 8:  # bf16 and fp16 tensor cores
            assert num["speedup_vs_fp32"]["bf16"] > 1 and num["speedup_vs_fp32"]["fp16"] > 1
    if name == "loss-scaling":  # the real autocast backward, never a silent "cast only"
        assert num["method"] == "autocast backward"
    if name == "master-weights":
        assert num["stalled"]["fp16"] and not num["stalled"]["fp16_from_master"]
    if name == "fp8-formats":
        assert num["formats"]["e4m3"]["max"] == 448 and num["formats"]["e5m2"]["has_inf"]
        for row in num["rounding"].values():
            for k in ("e4m3", "e5m2"):
                if row[f"{k}_nearest"] is not None:
                    assert row[k] == row[f"{k}_nearest"]
        assert num["rounding"]["1000 (past E4M3's max)"]["e4m3"] in (448.0, "nan")
        assert num["scaling"]["e4m3"]["scaled"]["max_rel_error"] <= 2.0**-4
    if name == "clip-unscale":
        v = num["variants"]
        assert v["scaler_no_unscale"]["update_norm_ratio"] == pytest.approx(2.0**-16, rel=1e-3)
        assert v["scaler_with_unscale"]["update_rel_error"] < 0.02
    if name == "scaler-accumulation":
        assert num["variants"]["correct"]["update_rel_error"] < 1e-2
    if name == "uneven-tokens":
        assert num["variants"]["sum_over_total_tokens"]["grad_rel_error"] < 1e-5
        assert num["variants"]["mean_of_means"]["grad_rel_error"] > 0.05
    if name == "adam-epsilon":
        for i, p in enumerate(num["sweep"]["fp16_state"]):
            assert p["finite"] is not num["theory_v_underflows"][i]


def test_cuda_figures_render_without_a_gpu() -> None:
    """The CUDA branches of the captions, fed numbers shaped like a GPU's, still fit."""
    from experiments import autocast_demo, speed_memory

    cpu = run_experiment("autocast", device="cpu").numbers
    cuda = copy.deepcopy(cpu) | {"device_type": "cuda"}
    for low in ("fp16", "bf16"):
        for op in autocast_demo.UPCAST_CANDIDATES:
            cuda["observed"][low][op] = "float32"
        cuda["cast_up_to_fp32"][low] = list(autocast_demo.UPCAST_CANDIDATES)
        cuda["kept_in_16bit"][low] = []
    cuda["by_device"] = {"cpu": cpu["observed"], "cuda": cuda["observed"]}
    FIGURE_LOG.clear()
    autocast_demo.plot(cuda)
    check_figure(FIGURE_LOG[-1])
    assert FIGURE_LOG[-1]["note"].endswith(
        "On cuda: softmax, log_softmax, sum cast up to fp32. The op lists differ by device."
    )
    sm = run_experiment("speed-memory", device="cpu").numbers
    sm |= {"device_type": "cuda", "matmul_size": 4096, "tf32_matmul": False}
    sm["hardware"] = capability_claims(9, 0)
    FIGURE_LOG.clear()
    speed_memory.plot(sm)
    check_figure(FIGURE_LOG[-1])
    assert FIGURE_LOG[-1]["note"] == (
        "GPU sm_90: fp16 and bf16 tensor cores; fp32 matmuls TF32 off. "
        "End-to-end gains are smaller."
    )
    # A Turing card: tensor cores for fp16 only, and no TF32 at all.
    sm["hardware"] = capability_claims(7, 5)
    FIGURE_LOG.clear()
    speed_memory.plot(sm)
    check_figure(FIGURE_LOG[-1])
    assert FIGURE_LOG[-1]["note"].startswith(
        "GPU sm_75: fp16 tensor cores; fp32 matmuls no TF32 before sm_80."
    )


# ------------------------------------------------------------------ CLI
CONTRACT_KEYS = {
    "demo",
    "device",
    "params",
    "micro_batches",
    "micro_batch_size",
    "effective_batch",
    "curvature",
    "lr",
    "lr_times_curvature",
    "no_division_lr_times_curvature",
    "theory_no_division_growth",
    "clip_max_norm",
    "variants",
    "cost",
    "elapsed_s",
}
VARIANT_KEYS = {
    "grad_rel_error",
    "cosine",
    "norm_ratio",
    "losses",
    "diverged",
    "clip_coefficient",
    "adam_update_rel_diff",
}


def test_cli_json_contract_subprocess() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "experiments", "accumulation", "--json", "--micro-batches", "2"],
        cwd=ROOT,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    data = json.loads(out.stdout)
    assert set(data) == CONTRACT_KEYS
    assert data["demo"] == "accumulation"
    assert data["params"] == {"micro_batches": 2, "micro_batch_size": 4}
    assert set(data["variants"]) == set(acc.VARIANTS)
    for v in ("correct", "zero_grad_every_micro_batch", "no_loss_division"):
        assert set(data["variants"][v]) == VARIANT_KEYS
        assert all(isinstance(x, float) for x in data["variants"][v]["losses"])
    assert isinstance(data["elapsed_s"], float) and isinstance(data["device"], str)


def test_cli_human_output_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "p.png"
    assert cli_main(["master-weights", "--device", "cpu", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "STALLED" in out and "core loop:" in out
    assert png.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["accumulation", "--micro-batches", "17"], "maximum 16"),
        (["accumulation", "--micro-batch-size", "0"], "minimum 1"),
        (["nope"], "unknown demo"),
        (["formats", "--micro-batches", "2"], "does not take"),
        (["accumulation", "--micro-batches", "x"], "invalid int"),
        ([], "name is required"),
    ],
)
def test_cli_errors_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-CUDA error")
def test_cli_cuda_without_cuda(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["formats", "--device", "cuda"]) == 2
    assert "CUDA is not available" in capsys.readouterr().err


def test_cli_json_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["batchnorm", "--json", "--device", "cpu"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"demo", "device", "params", "norms", "elapsed_s"}
