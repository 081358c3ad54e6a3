"""The numbers and behaviours the loss-scaling-in-practice quiz (ls-01..ls-17) teaches,
checked with real torch on CPU, and the quiz held to the answer-cue limits. The footnotes of
ls-09 and ls-11 and the new ls-19 and ls-20 are checked in test_curriculum_additions."""

from __future__ import annotations

import re
import warnings
from collections import Counter

import pytest
import torch
from torch import nn

from bot.quizbank.cues import answer_cues
from bot.quizbank.files import load_bank
from experiments.catalog import CATALOG

QUIZ_ID = "loss-scaling-in-practice"
FP16_TINY = 2.0**-24  # fp16's smallest positive (subnormal) value


def grad(p: torch.Tensor) -> torch.Tensor:
    assert p.grad is not None, "no gradient"
    return p.grad


def fresh_scaler() -> torch.amp.GradScaler:
    return torch.amp.GradScaler("cpu")


def one_param(value: float = 1.0, n: int = 4) -> nn.Parameter:
    return nn.Parameter(torch.full((n,), value))


def scaled_backward(scaler: torch.amp.GradScaler, w: nn.Parameter, poison: float | None = None):
    scaler.scale((w * w).sum()).backward()
    if poison is not None:
        grad(w)[0] = poison  # an overflowed (or NaN) gradient entry


# ------------------------------------------------------------------ GradScaler dynamics


def test_gradscaler_defaults_of_the_installed_torch() -> None:  # ls-01, ls-02
    scaler = fresh_scaler()
    assert scaler.get_scale() == 2.0**16 == 65536
    assert scaler.get_growth_factor() == 2.0
    assert scaler.get_backoff_factor() == 0.5
    assert scaler.get_growth_interval() == 2000


def test_scale_doubles_every_2000_clean_steps() -> None:  # ls-01
    w = one_param()
    opt = torch.optim.SGD([w], lr=0.0)
    scaler = fresh_scaler()
    scaler.scale(w.sum())  # initialises the scale lazily, as the first real step does
    w.grad = torch.ones_like(w)
    seen = {}
    for step in range(1, 6001):
        w.grad.fill_(1.0)  # a clean gradient every step
        scaler.step(opt)
        scaler.update()
        if step in (1999, 2000, 6000):
            seen[step] = scaler.get_scale()
    assert seen == {1999: 65536.0, 2000: 131072.0, 6000: 524288.0} and 2**19 == 524288
    assert 2.0**19 > torch.finfo(torch.float16).max  # the scale is not capped at 65504


def test_inf_gradient_skips_the_step_and_halves_the_scale() -> None:  # ls-02
    w = one_param()
    opt = torch.optim.Adam([w], lr=0.1)
    scaler = fresh_scaler()
    scaled_backward(scaler, w)
    scaler.step(opt)
    scaler.update()
    before = w.detach().clone()
    moments = {k: v.clone() for k, v in opt.state[w].items()}
    opt.zero_grad()
    scaled_backward(scaler, w, poison=float("inf"))
    scaler.step(opt)
    scaler.update()
    assert torch.equal(w.detach(), before)  # no update at all, not even for finite entries
    assert all(torch.equal(opt.state[w][k], v) for k, v in moments.items())
    assert scaler.get_scale() == 32768.0
    assert scaler.state_dict()["_growth_tracker"] == 0


def test_scheduler_warns_only_when_the_first_step_is_skipped() -> None:  # ls-03
    w = one_param()
    opt = torch.optim.SGD([w], lr=1.0)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    scaler = fresh_scaler()
    steps = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for poison in (float("inf"), None, float("inf")):
            opt.zero_grad()
            scaled_backward(scaler, w, poison)
            before = w.detach().clone()
            scaler.step(opt)  # the loop calls the optimizer (via the scaler) first
            scaler.update()
            sched.step()
            steps.append((not torch.equal(w.detach(), before), sched.get_last_lr()[0]))
    messages = [str(c.message) for c in caught if "lr_scheduler.step()" in str(c.message)]
    assert len(messages) == 1 and "before `optimizer.step()`" in messages[0]
    # Skipped, stepped, skipped: the schedule advanced on all three, silently the third time.
    assert steps == [(False, 0.5), (True, 0.25), (False, 0.125)]
    # No calibration step: when the first iteration does not overflow, nothing warns.
    w = one_param()
    opt = torch.optim.SGD([w], lr=1.0)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    scaler = fresh_scaler()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        opt.zero_grad()
        scaled_backward(scaler, w)
        scaler.step(opt)
        scaler.update()
        sched.step()
    assert not [c for c in caught if "lr_scheduler.step()" in str(c.message)]
    assert not torch.equal(w.detach(), torch.ones(4))  # the first step was taken


def test_scale_below_one_means_every_step_was_skipped() -> None:  # ls-04
    w = one_param()
    opt = torch.optim.SGD([w], lr=0.1)
    scaler = fresh_scaler()
    updated = 0
    for step in range(20):  # 17 NaN steps and 3 clean ones: 0.5 by step 20
        opt.zero_grad()
        loss = (w * w).sum()
        if step not in (5, 11, 17):
            loss = loss * torch.tensor(float("nan"))  # a NaN from the forward pass
        scaler.scale(loss).backward()
        before = w.detach().clone()
        scaler.step(opt)
        scaler.update()
        updated += not torch.equal(w.detach(), before)
    assert scaler.get_scale() == 0.5 == 2.0**-1 < 1  # 17 halvings of 2**16
    assert updated == 3 and 20 - updated == 17  # each halving was a skipped step
    assert scaler.get_growth_interval() == 2000  # clean steps in a row needed to double


# ------------------------------------------------------------------ clipping and unscale_


def _clipped_update(unscale_first: bool) -> torch.Tensor:
    w = one_param(0.25)  # true gradient 2w = 0.5 per entry, norm 1.0
    opt = torch.optim.SGD([w], lr=1.0)
    scaler = fresh_scaler()
    scaled_backward(scaler, w)
    if unscale_first:
        scaler.unscale_(opt)
    nn.utils.clip_grad_norm_([w], max_norm=2.0)  # the true norm (1.0) is under the limit
    scaler.step(opt)
    return 0.25 - w.detach()


def test_clipping_scaled_gradients_shrinks_the_step_by_the_scale() -> None:  # ls-05
    right = _clipped_update(unscale_first=True)
    wrong = _clipped_update(unscale_first=False)
    assert torch.allclose(right, torch.full((4,), 0.5))  # unclipped, as intended
    # The norm was measured at 65536x, so the update shrank by 65536 / 2.
    assert torch.allclose(wrong * 65536 / 2, right)


def test_clipping_an_inf_norm_still_gets_caught() -> None:  # ls-05
    w = one_param()
    opt = torch.optim.SGD([w], lr=0.1)
    scaler = fresh_scaler()
    scaled_backward(scaler, w, poison=float("inf"))
    nn.utils.clip_grad_norm_([w], max_norm=1.0)
    assert torch.isnan(grad(w)[0])
    scaler.step(opt)
    scaler.update()
    assert torch.equal(w.detach(), torch.ones(4)) and scaler.get_scale() == 32768.0


def test_unscale_then_step_divides_once_and_unscale_twice_raises() -> None:  # ls-06
    w = one_param()
    opt = torch.optim.SGD([w], lr=0.1)
    scaler = fresh_scaler()
    scaled_backward(scaler, w)
    assert torch.allclose(grad(w), torch.full((4,), 2.0 * 65536))
    scaler.unscale_(opt)
    assert torch.allclose(grad(w), torch.full((4,), 2.0))
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    assert torch.allclose(w.detach(), torch.full((4,), 1.0 - 0.1 * 2.0))


# ------------------------------------------------------------------ accumulation


def _accumulated_update(poison_micro_batch: int | None, n: int) -> tuple[torch.Tensor, float]:
    torch.manual_seed(0)
    data = torch.randn(n, 8, 4)
    w = nn.Parameter(torch.ones(4))
    opt = torch.optim.SGD([w], lr=0.1)
    scaler = fresh_scaler()
    for i in range(n):
        loss = (data[i] @ w).pow(2).mean()
        scaler.scale(loss / n).backward()
        if i == poison_micro_batch:
            grad(w)[0] = float("inf")
    scaler.step(opt)
    scaler.update()
    return w.detach().clone(), scaler.get_scale()


def test_scaler_with_accumulation_matches_the_full_batch() -> None:  # ls-07
    w_acc, scale = _accumulated_update(None, n=4)
    torch.manual_seed(0)
    data = torch.randn(4, 8, 4)
    w = nn.Parameter(torch.ones(4))
    (data.reshape(32, 4) @ w).pow(2).mean().backward()
    assert torch.allclose(w_acc, w.detach() - 0.1 * grad(w), atol=1e-6)
    assert scale == 65536.0


def test_update_without_step_and_second_step_are_refused() -> None:  # ls-07, ls-16
    w = one_param()
    opt = torch.optim.SGD([w], lr=0.1)
    scaler = fresh_scaler()
    scaled_backward(scaler, w)
    with pytest.raises(AssertionError, match="No inf checks were recorded"):
        scaler.update()  # update() mid-window, before any step()
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)  # deferring update() to the epoch's end
    scaler.update()
    with pytest.raises(AssertionError, match="No inf checks were recorded"):
        scaler.update()  # a second update() in the same iteration


def test_one_inf_micro_batch_skips_the_whole_window() -> None:  # ls-08
    w, scale = _accumulated_update(poison_micro_batch=2, n=8)
    assert torch.equal(w, torch.ones(4)) and scale == 32768.0
    # The scale does not move during the window: backward never looks at the gradients.
    p = one_param()
    scaler = fresh_scaler()
    for k in range(8):
        scaled_backward(scaler, p, poison=float("inf") if k == 2 else None)
        assert scaler.get_scale() == 65536.0


# ------------------------------------------------------------------ precision and dtypes


def test_power_of_two_scaling_does_not_change_bf16_rounding() -> None:  # ls-09
    torch.manual_seed(0)
    x = torch.randn(100_000, dtype=torch.float64) * torch.logspace(-20, 5, 100_000, 10.0)
    x = x.float()
    plain = x.bfloat16().double()
    scaled = (x * 2.0**16).bfloat16().double() / 2.0**16
    assert torch.equal(plain, scaled)
    assert torch.finfo(torch.bfloat16).eps == 2.0**-7


def test_gradscaler_runs_silently_with_bf16_autocast() -> None:  # ls-09
    torch.manual_seed(0)
    model = nn.Linear(8, 8)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = fresh_scaler()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = model(torch.randn(4, 8)).float().pow(2).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    assert scaler.get_scale() == 65536.0


def test_scaler_state_lives_in_its_own_state_dict() -> None:  # ls-10
    w = one_param()
    opt = torch.optim.Adam([w], lr=0.1)
    scaler = fresh_scaler()
    for poison in (float("inf"), float("inf"), None):
        opt.zero_grad()
        scaled_backward(scaler, w, poison)
        scaler.step(opt)
        scaler.update()
    state = scaler.state_dict()
    assert set(state) == {
        "scale",
        "growth_factor",
        "backoff_factor",
        "growth_interval",
        "_growth_tracker",
    }
    assert "scale" not in str(opt.state_dict())
    assert fresh_scaler().get_scale() == 65536.0  # a resumed run without it starts over
    resumed = fresh_scaler()
    resumed.load_state_dict(state)
    assert resumed.get_scale() == 16384.0 and resumed.state_dict()["_growth_tracker"] == 1


def test_adam_epsilon_rounds_to_zero_in_fp16() -> None:  # ls-11
    assert torch.tensor(1e-8, dtype=torch.float16).item() == 0.0
    assert 1e-8 < FP16_TINY / 2 and FP16_TINY == pytest.approx(5.96e-8, rel=1e-3)
    assert torch.tensor(1e-8, dtype=torch.bfloat16).item() == pytest.approx(1e-8, rel=0.01)
    results = {}
    for grad in (1e-4, 5e-3, 6e-3):
        p = nn.Parameter(torch.ones(1, dtype=torch.float16))
        opt = torch.optim.Adam([p], lr=1e-3, eps=1e-8)
        p.grad = torch.full((1,), grad, dtype=torch.float16)
        opt.step()
        results[grad] = (opt.state[p]["exp_avg_sq"].item(), p.item())
    assert results[1e-4] == (0.0, float("-inf"))
    assert results[5e-3] == (0.0, float("-inf"))
    assert results[6e-3][0] > 0 and results[6e-3][1] == pytest.approx(0.999, abs=1e-3)
    # A zero gradient: m = v = 0, and 0/0 is NaN rather than inf.
    zero = nn.Parameter(torch.ones(1, dtype=torch.float16))
    opt_zero = torch.optim.Adam([zero], lr=1e-3, eps=1e-8)
    zero.grad = torch.zeros(1, dtype=torch.float16)
    opt_zero.step()
    assert torch.isnan(zero).all()
    assert 1 - 0.999 == pytest.approx(0.001)  # Adam's default beta2: v = 0.001 * g^2 after one step
    assert torch.tensor(0.001 * 5e-3**2, dtype=torch.float16).item() == 0.0
    p32 = nn.Parameter(torch.ones(1))
    opt32 = torch.optim.Adam([p32], lr=1e-3, eps=1e-8)
    p32.grad = torch.full((1,), 1e-4)
    opt32.step()
    assert p32.item() == pytest.approx(0.999, abs=1e-6)


def test_grads_of_an_fp32_model_under_fp16_autocast_are_fp32() -> None:  # ls-17
    model = nn.Linear(8, 8)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = fresh_scaler()
    with torch.autocast("cpu", dtype=torch.float16):
        out = model(torch.randn(4, 8))
    assert out.dtype == torch.float16  # the activation is fp16...
    scaler.scale(out.float().pow(2).mean()).backward()
    assert model.weight.dtype == grad(model.weight).dtype == torch.float32  # ...the grad is not
    scaler.step(opt)
    assert grad(model.weight).dtype == torch.float32


# ------------------------------------------------------------------ optimizer memory


def _bytes(tensors: list[torch.Tensor]) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


def test_mixed_precision_adam_needs_as_many_bytes_as_fp32_adam() -> None:  # ls-12
    torch.manual_seed(0)
    fp32 = nn.Linear(256, 256)
    n = sum(p.numel() for p in fp32.parameters())
    opt32 = torch.optim.Adam(fp32.parameters())
    fp32(torch.randn(4, 256)).pow(2).mean().backward()
    opt32.step()
    moments = lambda opt: [s[k] for s in opt.state.values() for k in ("exp_avg", "exp_avg_sq")]  # noqa: E731
    fp32_bytes = _bytes(
        [*fp32.parameters(), *(grad(p) for p in fp32.parameters()), *moments(opt32)]
    )

    half = nn.Linear(256, 256).half()
    master = [p.detach().float().requires_grad_() for p in half.parameters()]
    opt_mp = torch.optim.Adam(master)
    half(torch.randn(4, 256, dtype=torch.float16)).float().pow(2).mean().backward()
    for m, p in zip(master, half.parameters(), strict=True):
        m.grad = grad(p).float()
    opt_mp.step()
    for m in master:
        m.grad = None  # the fp32 copy of the gradient is transient
    mp_bytes = _bytes(
        [*half.parameters(), *(grad(p) for p in half.parameters()), *master, *moments(opt_mp)]
    )
    assert fp32_bytes / n == mp_bytes / n == 16
    assert 7.5e9 * 16 == 120e9  # ZeRO's example: 120 GB of model states


def test_block_wise_8bit_moments_cost_about_2_bytes_per_parameter() -> None:  # ls-13
    torch.manual_seed(0)
    block = 2048
    moment = torch.randn(64 * block)
    absmax = moment.view(-1, block).abs().amax(dim=1)  # one fp32 scale per block
    codes = torch.round(moment.view(-1, block) / absmax[:, None] * 127).to(torch.int8)
    restored = (codes.float() / 127 * absmax[:, None]).view(-1)
    assert (restored - moment).abs().max() <= absmax.max() / 254 + 1e-6
    per_value = _bytes([codes, absmax]) / moment.numel()
    assert per_value == pytest.approx(1.0, abs=0.01)
    saved_per_param = 2 * 4 - 2 * per_value  # two fp32 moments -> two 8-bit ones
    assert saved_per_param * 1e9 == pytest.approx(6e9, rel=0.01)


# ------------------------------------------------------------------ several optimizers


def test_two_optimizers_one_scaler_decide_separately() -> None:  # ls-16
    w_d, w_g = one_param(), one_param()
    opt_d = torch.optim.SGD([w_d], lr=0.1)
    opt_g = torch.optim.SGD([w_g], lr=0.1)
    scaler = fresh_scaler()
    scaler.scale((w_d * w_d).sum() + (w_g * w_g).sum()).backward()
    grad(w_g)[0] = float("inf")
    scaler.step(opt_d)
    scaler.step(opt_g)
    scaler.update()
    assert torch.allclose(w_d.detach(), torch.full((4,), 0.8))  # stepped
    assert torch.equal(w_g.detach(), torch.ones(4))  # skipped
    assert scaler.get_scale() == 32768.0  # halved once


# ------------------------------------------------------------------ the quiz itself


@pytest.fixture(scope="module")
def quiz():
    return load_bank().quiz(QUIZ_ID)


def test_quiz_has_17_tagged_referenced_questions(quiz) -> None:
    # ls-15 (stochastic rounding, a near-duplicate of lp-08) was removed in issue 25; ls-14 and
    # ls-18 (updates below half an ulp, asked again) gave way to ls-19 and ls-20 in issue 35.
    expected = [f"ls-{i:02d}" for i in range(1, 21) if i not in (14, 15, 18)]
    assert [q.id for q in quiz.questions] == expected
    official = ("arxiv.org", "pytorch.org", "docs.nvidia.com", "huggingface.co")
    for q in quiz.questions:
        assert q.topic and q.difficulty in (1, 2, 3), q.id
        assert any(any(site in r.url for site in official) for r in q.references), q.id
        assert q.demo is None or q.demo in CATALOG, q.id
        for locale in ("id", "en"):
            sentences = re.findall(r"[.!?](?:\s|$)", q.explanation[locale].strip())
            assert 2 <= len(sentences) <= 4, (q.id, locale)


def test_quiz_has_no_answer_cues(quiz) -> None:
    assert answer_cues(quiz) == [], [cue.message() for cue in answer_cues(quiz)]
    slots = Counter(q.answer for q in quiz.questions)
    assert set(slots) == {0, 1, 2, 3}, slots
    absolutes = {"en": r"\b(always|never)\b", "id": r"\b(selalu|tidak pernah)\b"}
    for locale in ("id", "en"):
        for q in quiz.questions:
            lengths = [len(c) for c in q.choices[locale]]
            assert min(lengths) >= 0.6 * max(lengths), (q.id, locale, lengths)
            marked = [bool(re.search(absolutes[locale], c, re.I)) for c in q.choices[locale]]
            assert not any(marked) or marked[q.answer], (q.id, locale)
