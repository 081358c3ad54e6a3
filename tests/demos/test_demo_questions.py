"""Every question that links the autocast demo agrees with what the demo shows, in its
CPU column and in the worker's device's column (the CUDA column on a GPU host: checked
by the CUDA test of test_experiments), and the demo's figure shows both side by side."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bot.quizbank.files import load_bank
from experiments import run_experiment
from experiments._common import FIGURE_LOG
from experiments.generators import build_instance
from experiments.generators.autocast import OPS
from tests.support.autocast_claims import API_CLAIMS, OP_CLAIMS, mismatches


@pytest.fixture(scope="module")
def autocast() -> dict[str, Any]:
    return run_experiment("autocast", device="cpu").numbers


def test_every_question_linking_the_autocast_demo_has_its_claims_checked() -> None:
    linking = {
        q.id
        for quiz in load_bank().quizzes.values()
        for q in quiz.questions
        if q.demo == "autocast"
    }
    assert linking == set(OP_CLAIMS) | set(API_CLAIMS)


def test_the_questions_agree_with_the_demos_cpu_column(autocast: dict[str, Any]) -> None:
    assert list(autocast["by_device"]) == ["cpu"]
    assert mismatches(autocast, "cpu") == []


def test_a_wrong_claim_is_caught(autocast: dict[str, Any]) -> None:
    """The check can fail: a demo column where CPU softmax came out float32 (CUDA's rule,
    ma-01's wrong answer) contradicts ma-01 and mp-08."""
    cuda_like = copy.deepcopy(autocast)
    for low in ("fp16", "bf16"):
        cuda_like["by_device"]["cpu"][low]["softmax"] = "float32"
    found = mismatches(cuda_like, "cpu")
    assert any(m.startswith("ma-01: cpu bf16 softmax") for m in found)
    assert any(m.startswith("mp-08: cpu fp16 softmax") for m in found)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_generated_autocast_questions_agree_with_the_demos_cpu_column(
    autocast: dict[str, Any], dtype: str
) -> None:
    """The template feeds fp32 inputs and asks what two ops return: an op the demo shows
    lowered returns the autocast dtype, any other op (cast up or left alone) float32."""
    column = autocast["by_device"]["cpu"]["fp16" if dtype == "float16" else "bf16"]
    shared = [op for op in OPS if op in column]
    assert {"matmul", "linear", "softmax", "sum", "mse_loss"} <= set(shared)

    def shown(op: str) -> str:
        lowered = op in ("matmul", "linear", "conv2d") and column[op] == dtype
        return f"torch.{dtype if lowered else 'float32'}"

    for first, second in zip(shared, [*shared[1:], shared[0]], strict=True):
        instance = build_instance("autocast-dtype", {"dtype": dtype, "ops": [first, second]})
        assert instance.demo == "autocast"
        right = instance.choices["en"][instance.answer]
        assert right == f"{shown(first)} {shown(second)}", (first, second)


def test_on_a_gpu_host_the_figure_shows_cpu_and_cuda_side_by_side(
    autocast: dict[str, Any],
) -> None:
    """Numbers shaped like a GPU worker's (CUDA casts softmax, log_softmax, sum up): the
    table has both columns, the caption says what each device did, and both fit."""
    from experiments import autocast_demo
    from tests.demos.test_experiments import check_figure

    cuda = copy.deepcopy(autocast["by_device"]["cpu"])
    for low in ("fp16", "bf16"):
        for op in autocast_demo.UPCAST_CANDIDATES:
            cuda[low][op] = "float32"
    numbers = autocast | {"device_type": "cuda", "observed": cuda}
    numbers["by_device"] = {"cpu": autocast["by_device"]["cpu"], "cuda": cuda}
    numbers["apis"] = {k.replace('"cpu"', '"cuda"'): v for k, v in autocast["apis"].items()}
    FIGURE_LOG.clear()
    autocast_demo.plot(numbers)
    figure = FIGURE_LOG[-1]
    check_figure(figure)
    assert figure["title"] == "What autocast does on cpu and cuda"
    assert figure["note"] == (
        "On cpu: softmax, log_softmax, sum kept in 16-bit. "
        "On cuda: softmax, log_softmax, sum cast up to fp32. The op lists differ by device."
    )
    assert mismatches(numbers, "cpu") == [] and mismatches(numbers, "cuda") == []
    rows = dict(autocast_demo.highlights(numbers))
    assert rows["softmax"] == (
        "cpu fp16→float16  cpu bf16→bfloat16  cuda fp16→float32  cuda bf16→float32"
    )
