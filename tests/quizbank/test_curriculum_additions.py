"""The questions that replaced the bank's near-duplicates (mp-09, ga-09, as-18, ma-19, ma-20,
ls-19, ls-20, lp-18, lp-19), ga-01 as it now reads, and the footnotes added to kept questions
(as-03, lp-13 in FSDP2 terms; ma-06, ls-09, ls-11): every number and behaviour they state,
checked with the installed torch (CPU). The FSDP2 claims run a real two-rank `fully_shard` over
gloo in subprocesses."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from torch import nn

from bot.quizbank.files import load_bank
from tests.quizbank.test_curriculum_lp import mx_quantize, round_to_tf32

BF16, E4M3 = torch.bfloat16, torch.float8_e4m3fn


def stochastic_round_to_bf16(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Round fp32 to bf16 up with probability (remainder / gap): add 16 random low bits, cut."""
    noise = torch.randint(0, 1 << 16, x.shape, generator=gen, dtype=torch.int32)
    return ((x.view(torch.int32) + noise) & -65536).view(torch.float32).bfloat16()


def truncate_to_bf16(x: torch.Tensor) -> torch.Tensor:
    """Keep an fp32 value's top 16 bits: what a hand-written cast without rounding does."""
    return (x.view(torch.int32) & -65536).view(torch.float32)


# ---------------------------------------------------------------------------- mixed precision (mp-09)


def test_mp09_one_stochastic_rounding_step_jumps_a_whole_gap_rarely() -> None:
    gap = 2.0**-7
    assert f"{gap:.2g}" == "0.0078" and f"{1 + gap:.4f}" == "1.0078"
    assert f"{1e-4 / gap:.1%}" == "1.3%"
    weights = torch.ones(200_000)
    stepped = stochastic_round_to_bf16(weights + 1e-4, torch.Generator().manual_seed(0)).float()
    assert set(stepped.unique().tolist()) == {1.0, 1 + gap}  # stays or jumps a whole gap
    jumped = (stepped > 1).float().mean().item()
    assert abs(jumped - 1e-4 / gap) < 0.001  # about 1.3% of the weights jump
    assert abs((stepped - 1).mean().item() - 1e-4) < 1e-5  # expected change: the update itself
    assert torch.all((weights + 1e-4).bfloat16() == 1.0)  # round-to-nearest: always back to 1.0
    assert torch.tensor(1.0001).bfloat16().item() == 1.0  # bf16 cannot hold 1.0001
    # A 50/50 coin flip would move the weight half a gap per step: 39 times the update.
    assert f"{gap / 2:.2g}" == "0.0039" and round(gap / 2 / 1e-4) == 39


# ---------------------------------------------------------------------------- gradient accumulation (ga-01, ga-09)


def test_ga01_accumulation_shrinks_activations_not_weights_grads_or_adam_state() -> None:
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 64))
    params = {p.data_ptr() for p in model.parameters()}
    numel = sum(p.numel() for p in model.parameters())

    def saved_activation_bytes(batch: int) -> int:
        saved = 0

        def pack(t: torch.Tensor) -> torch.Tensor:
            nonlocal saved
            if t.data_ptr() not in params:
                saved += t.numel() * t.element_size()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            model(torch.randn(batch, 64)).square().mean().backward()
        return saved

    assert saved_activation_bytes(32) == 8 * saved_activation_bytes(4)  # 8 micro-batches of 4
    opt = torch.optim.Adam(model.parameters())
    opt.step()
    state = sum(
        t.numel() * t.element_size()
        for s in opt.state.values()
        for name, t in s.items()
        if name in ("exp_avg", "exp_avg_sq")
    )
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    grads = sum(
        p.grad.numel() * p.grad.element_size() for p in model.parameters() if p.grad is not None
    )
    assert (weights + grads + state) / numel == 16  # the same at any batch size


def _adamw_branch_after(set_to_none: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """(before, after) of a branch that the last cycle never used, stepped by AdamW."""
    used, branch = nn.Parameter(torch.ones(4)), nn.Parameter(torch.ones(4))
    opt = torch.optim.AdamW([used, branch], lr=0.1, weight_decay=0.1)
    (used.sum() + branch.sum()).backward()  # an earlier cycle used both
    opt.step()
    opt.zero_grad(set_to_none=set_to_none)
    used.sum().backward()  # this cycle skips the branch
    before = branch.detach().clone()
    opt.step()  # no error either way
    return before, branch.detach().clone()


def test_ga09_zero_grad_sets_none_by_default_and_adamw_skips_such_parameters() -> None:
    import inspect

    default = inspect.signature(torch.optim.Optimizer.zero_grad).parameters["set_to_none"]
    assert default.default is True  # since PyTorch 2.0
    before, after = _adamw_branch_after(set_to_none=True)
    assert torch.equal(before, after)  # skipped: no decay, no momentum, no movement
    before, after = _adamw_branch_after(set_to_none=False)
    moved = before - after
    decay_only = before * 0.1 * 0.1  # lr * weight_decay * w
    assert torch.all(moved > 2 * decay_only)  # momentum moves it well beyond decay alone


# ---------------------------------------------------------------------------- FSDP2 (as-03, as-18, lp-13)

FSDP2_RANK = textwrap.dedent(
    """
    import json, sys, torch, torch.distributed as dist
    from torch import nn
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    rank, store, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=2)
    torch.manual_seed(0)
    model = nn.Linear(8, 8, bias=False)
    seen = {}
    model.register_forward_pre_hook(lambda m, a: seen.update(weight=str(m.weight.dtype)))
    fully_shard(model, mp_policy=MixedPrecisionPolicy(param_dtype=torch.bfloat16))
    w = model.weight
    res = {"shard": list(w.to_local().shape), "stored": str(w.dtype)}
    inputs = [torch.randn(4, 8, generator=torch.Generator().manual_seed(10 * r + k))
              for r in range(2) for k in range(2)]
    model.set_requires_gradient_sync(False)  # as-03: accumulate the first micro-batch
    model(inputs[2 * rank]).float().sum().backward()
    res["grad_while_unsynced"] = None if w.grad is None else list(w.grad.shape)
    # Where the unreduced gradient waits: FSDP2 keeps no public handle on it, so this reads
    # its parameter record (torch 2.13) to show the full, unsharded bf16 gradient each rank holds.
    record = model._get_fsdp_state()._fsdp_param_group.fsdp_params[0]
    held = record._unsharded_param.grad
    res["held"] = [list(held.shape), str(held.dtype)]
    model.set_requires_gradient_sync(True)
    model(inputs[2 * rank + 1]).float().sum().backward()
    res.update(forward=seen["weight"], grad=str(w.grad.dtype), shard_grad=w.grad.to_local().tolist())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    opt.step()
    res["adam"] = sorted({str(t.dtype) for s in opt.state.values() for t in s.values()})
    with open(f"{out}/rank{rank}.json", "w") as f:
        json.dump(res, f)
    dist.barrier()
    dist.destroy_process_group()
    """
)


@pytest.fixture(scope="module")
def fsdp2(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    out = tmp_path_factory.mktemp("fsdp2")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", FSDP2_RANK, str(rank), str(out / "store"), str(out)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for rank in range(2)
    ]
    errors = [p.communicate(timeout=120)[1].decode()[-2000:] for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    return json.loads(Path(out, "rank0.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_as18_fsdp2_steps_on_fp32_shards_while_forward_sees_bf16(fsdp2: dict[str, object]) -> None:
    assert fsdp2["stored"] == "torch.float32" and fsdp2["shard"] == [4, 8]  # half of 8x8 per rank
    assert fsdp2["forward"] == "torch.bfloat16"  # param_dtype: the all-gathered copy
    assert fsdp2["grad"] == "torch.float32" and fsdp2["adam"] == ["torch.float32"]
    from torch.distributed.fsdp import MixedPrecisionPolicy

    doc = " ".join((MixedPrecisionPolicy.__doc__ or "").split())
    assert "The optimizer step uses the sharded parameter in the original dtype" in doc
    assert "does not require any extra memory to keep a high-precision copy" in doc


@pytest.mark.slow
def test_as03_fsdp2_unsynced_micro_batches_are_held_unreduced_and_not_lost(
    fsdp2: dict[str, object],
) -> None:
    assert fsdp2["grad_while_unsynced"] is None  # no reduce-scatter, no sharded gradient yet
    assert fsdp2["held"] == [[8, 8], "torch.bfloat16"]  # the full gradient, not a 4x8 shard
    # The synced step's shard holds both micro-batches of both ranks, averaged over the ranks.
    inputs = [
        torch.randn(4, 8, generator=torch.Generator().manual_seed(10 * r + k))
        for r in range(2)
        for k in range(2)
    ]
    expected = torch.stack([torch.ones(8, 4) @ x for x in inputs]).sum(0) / 2  # rank mean
    shard = torch.tensor(fsdp2["shard_grad"])
    torch.testing.assert_close(shard, expected[:4], rtol=0.02, atol=0.05)  # bf16 compute
    from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy

    sync_doc = " ".join((FSDPModule.set_requires_gradient_sync.__doc__ or "").split())
    assert "This is the equivalence of `no_sync` in FSDP1" in sync_doc
    policy_doc = " ".join((MixedPrecisionPolicy.__doc__ or "").split())
    assert "FSDP will accumulate gradients using ``reduce_dtype``" in policy_doc
    assert "then the reduction uses the compute dtype" in policy_doc  # lp-13: bf16 here
    held_gb = 7e9 * BF16.itemsize / 1e9  # per rank: the unsharded bf16 gradient
    shard_gb = 7e9 * torch.float32.itemsize / 8 / 1e9  # the synced fp32 shard (see as-18)
    assert (held_gb, shard_gb) == (14.0, 3.5)


# ---------------------------------------------------------------------------- autocast and memory (ma-06, ma-19, ma-20)


def test_ma06_the_cuda_custom_fwd_is_deprecated_for_the_device_generic_one() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
    future = [str(w.message) for w in caught if issubclass(w.category, FutureWarning)]
    assert any("torch.amp.custom_fwd(args..., device_type='cuda')" in m for m in future), future


def test_ma19_compile_guards_on_the_autocast_state_and_recompiles() -> None:
    import torch._dynamo
    from torch._dynamo.backends.debugging import aot_eager

    graphs: list[int] = []

    def counting(gm: torch.fx.GraphModule, inputs: list[torch.Tensor]) -> Callable[..., object]:
        graphs.append(len(gm.graph.nodes))
        return aot_eager(gm, inputs)  # traces autocast's casts into the graph

    torch._dynamo.reset()
    w = torch.randn(8, 8)

    def fn(x: torch.Tensor) -> torch.Tensor:
        return x @ w

    f = torch.compile(fn, backend=counting)
    x = torch.randn(4, 8)
    assert f(x).dtype == torch.float32 and len(graphs) == 1
    with torch.autocast("cpu", dtype=BF16):
        assert f(x).dtype == BF16  # not the first graph reused: a second one, with the casts
    assert len(graphs) == 2
    assert f(x).dtype == torch.float32 and len(graphs) == 2  # the first graph serves again
    explained = torch._dynamo.explain(fn)
    with torch.autocast("cpu", dtype=BF16):
        report = explained(x)
    assert report.graph_break_count == 0 and report.graph_count == 1  # no eager fallback

    def inside(x: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", dtype=BF16):
            return x @ w

    assert torch.compile(inside, backend=counting)(x).dtype == BF16  # entered inside works too
    assert torch._dynamo.config.recompile_limit == 8
    torch._dynamo.reset()


def absmax_int8(x: torch.Tensor, block: int) -> torch.Tensor:
    """Linear int8 round trip with one absmax scale per `block` values."""
    blocks = x.view(-1, block)
    scale = blocks.abs().amax(dim=1, keepdim=True)
    codes = torch.round(blocks / scale * 127).to(torch.int8)
    return (codes.float() / 127 * scale).view(-1)


def test_ma20_block_scales_confine_an_outlier_to_its_own_block() -> None:
    gen = torch.Generator().manual_seed(0)
    state = torch.rand(8 * 2048, generator=gen) * 1e-3 + 5e-4  # values near 1e-3
    state[0] = 1000.0  # one outlier in the first block
    per_tensor = absmax_int8(state, state.numel())
    assert torch.all(per_tensor[1:] == 0)  # every small value becomes code 0
    blocked = absmax_int8(state, 2048)
    assert torch.all(blocked[1:2048] == 0)  # only the outlier's own block loses them
    rest, exact = blocked[2048:], state[2048:]
    steps = state[2048:].view(-1, 2048).abs().amax(1).repeat_interleave(2048) / 127
    assert torch.all((rest - exact).abs() <= steps / 2 + 1e-9)  # within half a step: absmax/254
    assert not torch.equal(rest, exact)  # still rounded: nothing round-trips exactly
    assert f"{4 / 2048:.3f}" == "0.002"  # bytes per value for an fp32 scale per block


# ---------------------------------------------------------------------------- loss scaling and optimizers (ls-09, ls-11, ls-19, ls-20)


def test_ls09_scaling_adds_bits_only_in_bf16s_subnormal_range() -> None:
    tiny = torch.finfo(BF16).tiny
    assert tiny == 2.0**-126 and f"{tiny:.3g}" == "1.18e-38"
    x = torch.tensor([1.2345e-39], dtype=torch.float64)  # a bf16 subnormal
    plain = x.float().bfloat16().double()
    scaled = (x * 2.0**16).float().bfloat16().double() / 2.0**16
    assert abs(scaled - x) < abs(plain - x) / 10  # scaled into the normal range: more bits
    normal = torch.tensor([1.2345e-30], dtype=torch.float64)
    assert torch.equal(
        normal.float().bfloat16().double(), (normal * 2.0**16).float().bfloat16().double() / 2.0**16
    )


def test_ls11_fused_adam_computes_in_fp32_inside_its_kernel() -> None:
    results = {}
    for fused in (None, True):
        p = nn.Parameter(torch.ones(1, dtype=torch.float16))
        opt = torch.optim.Adam([p], lr=1e-3, eps=1e-8, fused=fused)
        p.grad = torch.full((1,), 1e-4, dtype=torch.float16)
        opt.step()
        results[fused] = (opt.state[p]["exp_avg_sq"].item(), p.item())
    assert results[None] == (0.0, float("-inf"))  # the default path: eps and v both 0
    assert results[True][0] == 0.0  # v is still stored as 0 in fp16...
    assert math.isfinite(results[True][1]) and results[True][1] == pytest.approx(0.999, abs=1e-3)


def test_ls19_the_kahan_buffer_holds_the_update_rounding_threw_away() -> None:
    w = torch.ones(1, dtype=BF16)
    c = torch.zeros(1, dtype=BF16)
    update = torch.full((1,), 1e-4, dtype=BF16)
    plain = w.clone()
    moved_at = None
    for step in range(1, 60):
        y = update - c
        t = w + y
        c = (t - w) - y
        w = t
        plain = plain + update
        if step == 1:
            assert w.item() == 1.0 and c.item() == pytest.approx(-1e-4, rel=2.0**-8)
        if moved_at is None and w.item() != 1.0:
            moved_at = step
    assert moved_at == 39 and plain.item() == 1.0  # without the buffer, lost for good
    gap = 2.0**-7
    assert f"{gap:.2g}" == "0.0078" and f"{gap / 2:.2g}" == "0.0039"
    assert torch.tensor(1.0001).bfloat16().item() == 1.0
    assert (BF16.itemsize * 2, BF16.itemsize + torch.float32.itemsize) == (4, 6)


def test_ls20_tf32_keeps_fp32s_range_so_nothing_underflows_sooner() -> None:
    fi = torch.finfo(torch.float32)
    assert f"{fi.tiny:.3g}" == "1.18e-38" and f"{fi.max:.3g}" == "3.4e+38"
    grads = torch.tensor([1e-9, 1e-20, 2.0**-126, 3e38])  # 1e-9 is already zero in fp16
    assert torch.tensor(1e-9).half().item() == 0.0
    tf32 = round_to_tf32(grads)
    assert torch.all(tf32 > 0) and torch.all(tf32.isfinite())
    assert torch.all(((tf32 - grads).abs() / grads) <= 2.0**-11)  # precision lost, not range
    assert torch.finfo(torch.float16).eps == 2.0**-10  # TF32 keeps fp16's 10 mantissa bits


# ---------------------------------------------------------------------------- formats (lp-18, lp-19)


def test_lp18_a_floor_scaled_mxfp8_block_saturates_its_largest_value() -> None:
    assert math.floor(math.log2(1.9)) == 0 and 1.9 * 2**8 == pytest.approx(486.4)
    assert torch.tensor(486.4).to(E4M3).float().item() == 448.0  # saturates, no NaN
    block = torch.full((32,), 0.5)
    block[0] = 1.9
    back = mx_quantize(block)  # the OCP v1.0 scale: 2^(floor(log2 amax) - 8)
    assert back[0].item() == 1.75 == 448 / 256
    assert f"{(1.9 - 1.75) / 1.9:.0%}" == "8%"
    per_tensor = 448 / 1.9  # an fp32 scale maps 1.9 onto 448 exactly
    assert (torch.tensor(1.9 * per_tensor).to(E4M3).float() / per_tensor).item() == pytest.approx(
        1.9
    )
    rounded_up = 2.0**-7  # the exponent rounded up instead: no saturation
    assert (torch.tensor(1.9 / rounded_up).to(E4M3).float() * rounded_up).item() == 1.875


def test_lp19_truncating_to_bf16_is_biased_toward_zero() -> None:
    x = torch.randn(100_000, generator=torch.Generator().manual_seed(0))
    cut, cast = truncate_to_bf16(x), x.bfloat16().float()
    bias_cut = ((cut.abs() - x.abs()) / x.abs()).mean().item()
    bias_cast = ((cast.abs() - x.abs()) / x.abs()).mean().item()
    assert torch.all(cut.abs() <= x.abs())  # toward zero, every time
    assert f"{-bias_cut:.1%}" == "0.3%" and abs(bias_cast) < 1e-5  # under 0.001%
    assert 0.45 < (cut != cast).float().mean().item() < 0.55  # about half of all values differ
    worst_cut = ((cut - x).abs() / x.abs()).max().item()
    worst_cast = ((cast - x).abs() / x.abs()).max().item()
    assert 2.0**-8 < worst_cut <= 2.0**-7 and worst_cast <= 2.0**-8  # twice the worst error
    tie = torch.tensor([1 + 2.0**-8])  # a tie: the cast goes to the even mantissa, 1.0
    assert tie.bfloat16().item() == 1.0 == truncate_to_bf16(tie).item()


def test_the_new_questions_are_in_the_shipped_bank() -> None:
    ids = {q.id for q in load_bank().all_questions()}
    assert {"mp-09", "ga-09", "as-18", "ma-19", "ma-20", "ls-19", "ls-20", "lp-18", "lp-19"} <= ids
