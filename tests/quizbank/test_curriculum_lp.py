"""The low-precision-formats quiz: its form (no answer cues) and every number it claims.

Each numeric test names the question whose explanation states the number; the numbers
are computed with the installed torch (CPU), not copied from a table.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from collections import Counter

import pytest
import torch
import torch.nn.functional as F

from bot.quizbank.cues import answer_cues
from bot.quizbank.files import SHIPPED_DIR, load_bank
from bot.quizbank.schema import Quiz
from experiments.catalog import CATALOG

QUIZ_ID = "low-precision-formats"
QUIZ_FILE = SHIPPED_DIR / f"{QUIZ_ID}.yaml"
LOCALES = ("id", "en")
AUTHORITATIVE = ("arxiv.org", "pytorch.org", "docs.nvidia.com", "huggingface.co")

E4M3 = torch.float8_e4m3fn
E5M2 = torch.float8_e5m2


@pytest.fixture(scope="module")
def quiz() -> Quiz:
    return load_bank().quiz(QUIZ_ID)


def all_codes(dtype: torch.dtype) -> torch.Tensor:
    """Every one of the 256 bit patterns of an 8-bit dtype, as float32."""
    return torch.arange(256, dtype=torch.uint8).view(dtype).float()


def to(value: float, dtype: torch.dtype) -> float:
    return torch.tensor(value, dtype=torch.float64).to(dtype).item()


def rel_err(stored: float, exact: float) -> float:
    return abs(stored - exact) / abs(exact)


# ---------------------------------------------------------------------------- form and cues


def test_quiz_has_17_tagged_bilingual_questions(quiz: Quiz) -> None:
    assert quiz.title == {"id": "Kuis Format Presisi Rendah", "en": "Low-Precision Formats Quiz"}
    # lp-08 and lp-09 (updates below half an ulp, asked again) gave way to lp-18 and lp-19.
    expected = [f"lp-{n:02d}" for n in range(1, 20) if n not in (8, 9)]
    assert [q.id for q in quiz.questions] == expected
    for q in quiz.questions:
        assert q.topic and q.difficulty in (1, 2, 3), q.id
        assert any(host in ref.url for ref in q.references for host in AUTHORITATIVE), q.id
        for locale in LOCALES:
            assert len(q.choices[locale]) == 4, q.id
            assert all(len(choice) <= 80 for choice in q.choices[locale]), q.id  # button labels
            assert len(q.prompt[locale]) <= 256, q.id
            sentences = re.findall(r"[.!?](?:\s|$)", q.explanation[locale].strip())
            assert 2 <= len(sentences) <= 4, (q.id, locale)
        assert q.prompt["id"] != q.prompt["en"], q.id


def test_no_answer_cues(quiz: Quiz) -> None:
    assert answer_cues(quiz) == [], [cue.message() for cue in answer_cues(quiz)]
    slots = Counter(q.answer for q in quiz.questions)
    assert set(slots) == {0, 1, 2, 3}, slots
    absolutes = re.compile(r"\b(always|never|selalu|tidak pernah|tak pernah)\b", re.IGNORECASE)
    for q in quiz.questions:
        for locale in LOCALES:
            choices = q.choices[locale]
            in_wrong = any(absolutes.search(c) for i, c in enumerate(choices) if i != q.answer)
            assert not in_wrong or absolutes.search(choices[q.answer]), (q.id, locale)


def test_the_fp8_questions_show_the_fp8_demo() -> None:
    quiz = load_bank().quiz("low-precision-formats")
    demos = {q.id: q.demo for q in quiz.questions}
    assert all(demos[f"lp-0{i}"] == "fp8-formats" for i in range(1, 5)), demos
    assert {d for d in demos.values() if d} <= set(CATALOG)


# ---------------------------------------------------------------------------- FP8 (lp-01..lp-04)


def test_lp01_e4m3_precision_vs_e5m2_range() -> None:
    e4, e5 = torch.finfo(E4M3), torch.finfo(E5M2)
    assert (e4.max, e4.eps) == (448.0, 0.125)  # 3 mantissa bits
    assert (e5.max, e5.eps) == (57344.0, 0.25)  # 2 mantissa bits
    range4 = e4.max / (e4.smallest_normal * e4.eps)  # down to the smallest subnormal
    range5 = e5.max / (e5.smallest_normal * e5.eps)
    assert range5 / range4 == 2**14
    assert e5.smallest_normal == torch.finfo(torch.float16).smallest_normal == 2**-14
    assert f"{e5.smallest_normal:.2g}" == "6.1e-05"


def test_lp02_e4m3fn_spends_no_codes_on_infinity() -> None:
    codes = all_codes(E4M3)
    assert int(codes.isnan().sum()) == 2 and int(codes.isinf().sum()) == 0
    nan_codes = torch.arange(256)[codes.isnan()].tolist()
    assert nan_codes == [0x7F, 0xFF]  # S.1111.111: mantissa 111 of the top exponent, either sign
    assert codes[codes.isfinite()].max().item() == 448.0 == 1.75 * 2**8
    assert codes[codes > 0].min().item() == 2**-9  # subnormals exist
    assert torch.finfo(E4M3).smallest_normal == 2 ** (1 - 7)  # bias 7
    assert 1.875 * 2**7 == 240  # IEEE style: the all-ones exponent reserved
    fnuz = all_codes(torch.float8_e4m3fnuz)
    assert torch.finfo(torch.float8_e4m3fnuz).max == 240.0
    assert int(fnuz.isnan().sum()) == 1 and int((fnuz == 0).sum()) == 1  # no negative zero
    assert int((codes == 0).sum()) == 2  # fn keeps +0 and -0
    e5 = all_codes(E5M2)
    assert int(e5.isinf().sum()) == 2 and int(e5.isnan().sum()) == 6  # IEEE-like


def test_lp03_delayed_scale_from_history_clips_a_spike() -> None:
    fp8_max = torch.finfo(E4M3).max
    history = torch.tensor([2.0, 3.5, 1.25])  # amaxes recorded in earlier steps
    scale = fp8_max / history.max()  # amax_compute_algo="max"
    assert scale.item() == 128.0
    gen = torch.Generator().manual_seed(0)
    steady = torch.rand(1024, generator=gen) * 3.5
    assert (steady * scale).abs().max() <= fp8_max  # in range: nothing clipped
    spike = torch.tensor([7.0])  # twice the recorded history
    assert (spike * scale).item() == 896.0 > fp8_max  # outside FP8: clipped on the cast
    current_scale = fp8_max / spike.abs().max()  # current scaling reads the tensor first
    assert (spike * current_scale).item() <= fp8_max


def mx_quantize(x: torch.Tensor, block: int = 32) -> torch.Tensor:
    """MXFP8 (E4M3) round trip: one power-of-two scale per block of `block` elements."""
    blocks = x.reshape(-1, block)
    emax_elem = 8  # E4M3's largest exponent: 448 = 1.75 * 2**8
    shared = torch.floor(torch.log2(blocks.abs().amax(1, keepdim=True))) - emax_elem
    scale = torch.exp2(shared).to(torch.float8_e8m0fnu).float()
    q = (blocks / scale).clamp(-448, 448).to(E4M3).float()
    return (q * scale).reshape(x.shape)


def test_lp04_mx_block_scales_keep_small_values_an_outlier_would_zero() -> None:
    codes = all_codes(torch.float8_e8m0fnu)
    finite = codes[codes.isfinite()]
    assert int(codes.isnan().sum()) == 1 and finite.numel() == 255
    assert torch.equal(torch.log2(finite), torch.arange(-127, 128, dtype=torch.float32))
    assert 8 + 8 / 32 == 8.25
    x = torch.full((64,), 1e-3)
    x[0] = 1000.0  # one outlier in the first block of 32
    per_tensor = ((x * (448 / 1000.0)).to(E4M3).float()) / (448 / 1000.0)
    assert 1e-3 * 448 / 1000 < 2**-10  # below half of E4M3's smallest subnormal
    assert torch.all(per_tensor[1:] == 0)  # every small value flushed
    mx = mx_quantize(x)
    assert torch.all(mx[32:] != 0)  # the other block keeps its own scale
    assert (mx[32:] - 1e-3).abs().max() / 1e-3 < 0.07  # E4M3 precision: eps 0.125


# ---------------------------------------------------------------------------- TF32 (lp-05..lp-07)


def round_to_tf32(x: torch.Tensor) -> torch.Tensor:
    """Keep sign, 8 exponent bits and the top 10 mantissa bits (round to nearest even)."""
    bits = x.contiguous().view(torch.int32)
    drop = 23 - 10
    lsb = (bits >> drop) & 1
    rounded = (bits + (1 << (drop - 1)) - 1 + lsb) & ~((1 << drop) - 1)
    return rounded.view(torch.float32)


def test_lp05_tf32_has_fp32_range_and_fp16_precision() -> None:
    assert 1 + 8 + 10 == 19
    assert torch.finfo(torch.float16).eps == 2**-10
    kept, tie, lost = round_to_tf32(torch.tensor([1 + 2**-10, 1 + 2**-11, 1 + 2**-12])).tolist()
    assert (kept, tie, lost) == (1 + 2**-10, 1.0, 1.0)  # one TF32 step above 1.0 is 2^-10
    huge = round_to_tf32(torch.tensor([3e38, 1e-38])).double()
    assert torch.all(huge.isfinite()) and torch.all(huge > 0)  # fp32's range survives
    gen = torch.Generator().manual_seed(0)
    a, b = torch.randn(256, 512, generator=gen), torch.randn(512, 256, generator=gen)
    exact = a.double() @ b.double()
    tf32 = round_to_tf32(a).double() @ round_to_tf32(b).double()
    rel = ((tf32 - exact).abs() / exact.abs().mean()).max().item()
    assert 1e-5 < rel < 1e-2  # the third or fourth significant digit
    fp32 = ((a @ b).double() - exact).abs().max().item() / exact.abs().mean().item()
    assert fp32 < 1e-5


@pytest.fixture
def restore_precision():
    before = torch.get_float32_matmul_precision()
    conv = torch.backends.cudnn.conv.fp32_precision
    yield
    torch.set_float32_matmul_precision(before)
    torch.backends.cuda.matmul.fp32_precision = "none"  # back to following the global setting
    torch.backends.cudnn.conv.fp32_precision = conv


def test_lp06_matmul_tf32_is_off_by_default(restore_precision: None) -> None:
    # PyTorch's own default, in a fresh interpreter: NVIDIA's containers set
    # TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1, which turns TF32 on for the whole process.
    env = {k: v for k, v in os.environ.items() if k != "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE"}
    default = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.get_float32_matmul_precision())"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert default.stdout.split() == ["highest"]
    torch.set_float32_matmul_precision("highest")  # explicitly: whatever this host sets
    assert torch.backends.cuda.matmul.allow_tf32 is False
    torch.set_float32_matmul_precision("high")
    assert torch.backends.cuda.matmul.allow_tf32 is True
    assert torch.backends.cuda.matmul.fp32_precision == "tf32"  # the 2.9+ switch, set alike
    torch.set_float32_matmul_precision("highest")
    assert torch.backends.cuda.matmul.fp32_precision == "ieee"
    assert not hasattr(torch, "tf32")  # a math mode, not a dtype


def test_lp06_mixing_the_legacy_and_new_tf32_apis_makes_the_old_flag_unreadable(
    restore_precision: None,
) -> None:
    major, minor = (int(part) for part in torch.__version__.split(".")[:2])
    assert (major, minor) >= (2, 9)  # fp32_precision arrived in 2.9; this torch is 2.13
    torch.backends.cuda.matmul.fp32_precision = "tf32"  # the new API after the legacy one
    with pytest.raises(RuntimeError, match="mix of the legacy and new APIs"):
        getattr(torch.backends.cuda.matmul, "allow_tf32")  # noqa: B009 (a read that raises)


def test_lp07_cudnn_conv_tf32_is_a_separate_switch_that_defaults_on(
    restore_precision: None,
) -> None:
    assert torch.backends.cudnn.allow_tf32 is True
    torch.set_float32_matmul_precision("highest")
    assert torch.backends.cudnn.allow_tf32 is True  # untouched by the matmul setting
    assert torch.backends.cudnn.conv.fp32_precision == "tf32"  # its 2.9+ name, default "tf32"
    assert torch.backends.cuda.matmul.fp32_precision == "ieee"  # only the matmul one moved
    try:
        torch.backends.cudnn.conv.fp32_precision = "ieee"  # the newer switch the lesson names
        assert torch.backends.cudnn.conv.fp32_precision == "ieee"
    finally:
        torch.backends.cudnn.conv.fp32_precision = "tf32"
    assert f"{torch.finfo(torch.float32).eps:.3g}" == "1.19e-07"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_lp05_to_lp07_tf32_on_this_gpu(restore_precision: None) -> None:
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(1024, 1024, device="cuda", generator=gen)
    b = torch.randn(1024, 1024, device="cuda", generator=gen)
    exact = a.double() @ b.double()

    def matmul_error() -> float:
        return ((a @ b).double() - exact).abs().max().item() / exact.abs().mean().item()

    torch.set_float32_matmul_precision("highest")
    assert matmul_error() < 1e-5
    torch.set_float32_matmul_precision("high")
    if torch.cuda.get_device_capability() >= (8, 0):  # Ampere and later have TF32
        assert matmul_error() > 1e-5
    else:
        assert matmul_error() < 1e-5


# ---------------------------------------------------------------------------- summation (lp-10, lp-11)


def test_lp10_fp32_addition_is_not_associative_and_accumulation_differs_by_1e7(
    restore_precision: None,
) -> None:
    from experiments import accumulation

    big, one = torch.tensor(1e8), torch.tensor(1.0)
    assert ((big + one) - big).item() == 0.0
    assert ((big - big) + one).item() == 1.0
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(10_000, generator=gen)
    assert torch.equal((x / 4) * 4, x)  # dividing by 4 is exact
    torch.set_float32_matmul_precision("highest")  # full fp32 (PyTorch's default: lp-06)
    assert torch.backends.mkldnn.matmul.fp32_precision in ("none", "ieee")  # CPU: no TF32
    cpu = torch.device("cpu")
    base = accumulation.make_model(cpu)
    batch = accumulation.make_batch(4, 8, cpu)
    full = accumulation.variant_grad(base, batch, "full_batch")
    accumulated = accumulation.variant_grad(base, batch, "correct")
    rel = accumulation.compare(accumulated, full)["grad_rel_error"]
    assert 1e-8 < rel < 1e-6  # of order fp32's epsilon, 1.19e-7


def test_lp11_a_running_fp32_total_drifts_while_torch_sum_does_not() -> None:
    assert torch.finfo(torch.float32).eps / 2 == 2**-24 and f"{2**-24:.2g}" == "6e-08"
    stuck = torch.tensor(2.0**24)
    assert (stuck + 1.0).item() == 16777216.0
    assert torch.ones(2**25).sum().item() == 33554432.0
    gen = torch.Generator().manual_seed(0)
    x = torch.rand(2**15, 256, generator=gen)  # 256 independent sums of 32768 terms
    exact = x.double().sum(0)
    total = torch.zeros(256)
    for row in x:
        total += row
    naive = ((total.double() - exact).abs() / exact).mean().item()
    tree = ((x.sum(0).double() - exact).abs() / exact).mean().item()
    assert naive > 10 * tree


def test_lp11_the_accumulation_precision_demo_shows_the_running_total_drift() -> None:
    from experiments import accumulation_precision

    errors = accumulation_precision.compute(torch.device("cpu"))["mean_rel_error"]
    running = errors["fp16_accumulator"]
    assert running[-1] > 10 * running[0]  # grows with the length
    assert errors["torch_sum_fp16_tensor"][-1] < running[-1] / 10


# ---------------------------------------------------------------------------- overflow (lp-12, lp-13)


def test_lp12_fp16_attention_logits_overflow_before_softmax() -> None:
    assert 128 * 24**2 == 73728 > torch.finfo(torch.float16).max
    q = torch.full((1, 4, 128), 24.0, dtype=torch.float16)
    k = q.clone()
    logits = q @ k.transpose(-1, -2)
    assert torch.all(logits.isinf())
    assert torch.all(torch.softmax(logits, dim=-1).isnan())  # inf - inf
    inv_sqrt_d = torch.tensor(128**-0.5, dtype=torch.float16)
    assert f"{inv_sqrt_d.item():.2g}" == "0.088"
    assert torch.all(((q * inv_sqrt_d) @ k.transpose(-1, -2)).isfinite())
    v = torch.randn(1, 4, 128, generator=torch.Generator().manual_seed(0)).half()
    assert torch.all(F.scaled_dot_product_attention(q, k, v).isfinite())
    row = torch.tensor([3.0, 1.0, -2.0], dtype=torch.float16)
    assert torch.exp(row - row.max()).sum().item() >= 1.0  # the max contributes exp(0)


def test_lp13_bf16_reduction_is_the_fsdp_default_and_costs_accuracy() -> None:
    from torch.distributed.fsdp import MixedPrecision, MixedPrecisionPolicy

    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16)  # FSDP2
    assert policy.reduce_dtype is None
    doc = " ".join((MixedPrecisionPolicy.__doc__ or "").split())
    assert (
        "is ``None`` but ``param_dtype`` is not ``None``, then the reduction uses the compute dtype"
        in doc
    )
    assert MixedPrecision(param_dtype=torch.bfloat16).reduce_dtype is None  # FSDP1, the same
    doc = " ".join((MixedPrecision.__doc__ or "").split())
    assert (
        "takes on the ``param_dtype`` value, still running gradient reduction in low precision"
        in doc
    )
    assert (torch.bfloat16.itemsize, torch.float32.itemsize) == (2, 4)
    gen = torch.Generator().manual_seed(0)
    grads = torch.randn(64, 20_000, generator=gen)  # one gradient shard per rank
    exact = grads.double().sum(0)
    hop = torch.zeros(20_000, dtype=torch.bfloat16)
    for rank in grads:  # each hop of a ring rounds the partial sum to bf16
        hop = hop + rank.bfloat16()
    once = grads.bfloat16().float().sum(0).bfloat16()  # fp32 reduction, one rounding
    scale = exact.abs().mean()
    ratio = ((hop.double() - exact).abs().mean() / (once.double() - exact).abs().mean()).item()
    assert 3 < ratio < 5, ratio
    assert (once.double() - exact).abs().mean() / scale < 0.01


# ---------------------------------------------------------------------------- subnormals and rounding


def test_lp14_flush_to_zero_acts_on_operations_not_on_stored_bits() -> None:
    fi = torch.finfo(torch.float32)
    assert fi.smallest_normal == 2**-126 and f"{fi.smallest_normal:.3g}" == "1.18e-38"
    assert fi.smallest_normal * fi.eps == 2**-149 and f"{2**-149:.2g}" == "1.4e-45"
    x = torch.tensor([1e-40])  # stored before the flag is set: a valid subnormal
    bits = x.view(torch.int32).clone()
    assert (x * 2).item() == pytest.approx(2e-40, rel=1e-4)
    half = torch.tensor([1e-6], dtype=torch.float16)  # an fp16 subnormal
    assert half.item() < torch.finfo(torch.float16).smallest_normal
    assert torch.set_flush_denormal(True)  # x86 with SSE3
    try:
        assert (x * 2).item() == 0.0 and x.item() == 0.0  # any operation reads it as zero
        assert torch.equal(x.view(torch.int32), bits)  # while its bits are untouched
        assert (torch.tensor([1e-20]) * torch.tensor([1e-20])).item() == 0.0  # results flushed
        assert torch.tensor([1e-37]).item() != 0.0  # normals are untouched
        assert (half * 2).item() == pytest.approx(2 * half.item())  # computed in fp32: normal
        assert (torch.tensor([1e-40], dtype=torch.bfloat16) * 2).item() == 0.0  # fp32's range
    finally:
        torch.set_flush_denormal(False)
    assert (x * 2).item() != 0.0


def test_lp15_bf16_position_ids_merge_above_256() -> None:
    ints = torch.arange(257, dtype=torch.float32)
    assert torch.equal(ints.bfloat16().float(), ints)  # exact up to 256
    assert to(257, torch.bfloat16) == 256.0 and to(258, torch.bfloat16) == 258.0
    assert to(1002, torch.bfloat16) == 1000.0  # tie between 1000 and 1004: even mantissa
    assert to(1001, torch.bfloat16) == 1000.0 and to(1003, torch.bfloat16) == 1004.0
    assert to(2048 + 16, torch.bfloat16) - to(2048, torch.bfloat16) == 16.0
    assert torch.arange(4096).bfloat16().unique().numel() == 769
    assert to(2**24 + 1, torch.float32) == 2**24  # what "exact to 2^24" would need: fp32
    assert to(2049, torch.float16) == 2048.0


def test_lp16_70000_overflows_fp16_to_inf_and_rounds_in_bf16() -> None:
    from experiments.formats import convert

    assert to(65519, torch.float16) == 65504.0
    assert math.isinf(to(65520, torch.float16))  # 65504 + half its gap of 32
    assert math.isinf(convert(70000.0, torch.float16))  # what the formats demo shows
    assert convert(70000.0, torch.bfloat16) == 70144.0 == 137 * 512
    assert to(65536 + 512, torch.bfloat16) - 65536 == 512
    # Saturation belongs to some FP8 casts (PyTorch's E4M3 cast here), not to fp16's.
    assert to(500.0, E4M3) == 448.0 and math.isinf(to(1e6, E5M2))
    assert to(65536 + 256 + 1, torch.bfloat16) == 65536 + 512


def test_lp17_bf16_stores_1e6_better_than_subnormal_fp16() -> None:
    from experiments.formats import format_info

    fp16, bf16 = format_info(torch.float16), format_info(torch.bfloat16)
    assert fp16["smallest_subnormal"] < 1e-6 < fp16["smallest_normal"] == 2**-14
    assert bf16["smallest_normal"] < 1e-6
    stored16, stored_bf = to(1e-6, torch.float16), to(1e-6, torch.bfloat16)
    assert stored16 == 17 * 2**-24 and f"{stored16:.4g}" == "1.013e-06"
    assert (17).bit_length() == 5  # significant bits left in that subnormal
    assert f"{rel_err(stored16, 1e-6):.1%}" == "1.3%"
    assert f"{stored_bf:.3g}" == "9.98e-07" and f"{rel_err(stored_bf, 1e-6):.2%}" == "0.16%"
