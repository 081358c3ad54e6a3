"""The memory-and-autocast quiz: its claims, checked with real torch on CPU, and its form.

Each test names the question whose number or behaviour it checks. CUDA-only facts (softmax
cast up to float32 there) are cited from the docs, not asserted here: no GPU on this machine.
"""

from __future__ import annotations

import math
import re
import warnings
from collections import Counter
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

from bot.quizbank import Question
from bot.quizbank.cues import answer_cues
from bot.quizbank.files import SHIPPED_DIR, load_bank, load_quizzes

QUIZ_FILE = SHIPPED_DIR / "memory-and-autocast.yaml"
CPU_BF16 = {"device_type": "cpu", "dtype": torch.bfloat16}


@pytest.fixture(autouse=True)
def _seeded() -> None:
    torch.manual_seed(0)


# ---------------------------------------------------------------------------- the quiz's form


def load() -> list[Question]:
    quizzes, problems = load_quizzes([QUIZ_FILE])
    assert problems == []
    (quiz,) = quizzes
    assert quiz.id == "memory-and-autocast"
    return list(quiz.questions)


def test_seventeen_bilingual_questions_with_sources_and_tags() -> None:
    questions = load()
    # ma-11 (a near-duplicate of as-17) was removed in issue 25; ma-18 is new. ma-02 and ma-07
    # (facts asked again by ls-17 and lp-16) gave way to ma-19 and ma-20 in issue 35.
    assert [q.id for q in questions] == [f"ma-{n:02d}" for n in range(1, 21) if n not in (2, 7, 11)]
    for q in questions:
        assert q.references and all(
            re.match(
                r"https://(arxiv\.org|pytorch\.org|docs\.pytorch\.org|huggingface\.co)/", r.url
            )
            for r in q.references
        ), q.id
        assert q.topic and q.difficulty in (1, 2, 3), q.id
        for locale in ("id", "en"):
            assert len(q.choices[locale]) == 4, q.id
            sentences = re.findall(r"[.!?](?:\s|$)", q.explanation[locale].strip())
            assert 2 <= len(sentences) <= 4, (q.id, locale, len(sentences))
        assert q.prompt["id"] != q.prompt["en"], q.id
    # The shipped bank loads it next to the other quizzes (ids unique across files).
    assert "memory-and-autocast" in load_bank().quizzes


def test_no_answer_cues_from_length_or_slot() -> None:
    quiz = load_bank().quiz("memory-and-autocast")
    assert answer_cues(quiz) == [], [cue.message() for cue in answer_cues(quiz)]
    slots = Counter(q.answer for q in quiz.questions)
    assert set(slots) == {0, 1, 2, 3}, slots
    for q in quiz.questions:
        for locale in ("id", "en"):
            lengths = [len(c) for c in q.choices[locale]]
            # Distractors of similar length: none under 60% of the longest choice.
            assert min(lengths) >= 0.6 * max(lengths), (q.id, locale, lengths)
            right = q.choices[locale][q.answer].lower()
            for word in ("always", "never", "selalu", "tidak pernah"):
                if any(word in c.lower() for c in q.choices[locale]):
                    assert word in right, (q.id, word)


# ---------------------------------------------------------------------------- autocast (ma-01..06)


def test_ma01_cpu_autocast_leaves_softmax_in_the_matmul_dtype() -> None:
    x, w = torch.randn(4, 8), torch.randn(8, 8)
    with torch.autocast(**CPU_BF16):
        h = x @ w
        assert torch.softmax(h, dim=-1).dtype == torch.bfloat16
        assert torch.log_softmax(h, dim=-1).dtype == torch.bfloat16
        assert h.sum().dtype == torch.bfloat16
        # An fp32 input stays fp32: softmax is on no CPU list, it follows its input.
        assert torch.softmax(x, dim=-1).dtype == torch.float32


def test_ma03_backward_inside_autocast_changes_nothing() -> None:
    layer, x = nn.Linear(8, 8), torch.randn(4, 8)
    grads = []
    for backward_inside in (False, True):
        layer.zero_grad()
        with torch.autocast(**CPU_BF16):
            loss = layer(x).float().square().mean()
            if backward_inside:
                loss.backward()
        if not backward_inside:
            loss.backward()
        grads.append(layer.weight.grad.clone())
    assert torch.equal(grads[0], grads[1])
    assert grads[0].dtype == torch.float32
    assert "Backward passes under autocast are not recommended" in (torch.autocast.__doc__ or "")


def test_ma04_in_place_and_out_variants_are_not_autocast() -> None:
    a, b, c = torch.randn(4, 8), torch.randn(4, 8), torch.randn(8, 8)
    with torch.autocast(**CPU_BF16):
        assert a.addmm(b, c).dtype == torch.bfloat16
        a.addmm_(b, c)
        assert a.dtype == torch.float32
        out = torch.empty(4, 8)
        torch.mm(b, c, out=out)
        assert out.dtype == torch.float32


def test_ma05_disabled_region_needs_an_explicit_float_cast() -> None:
    x, w, w2 = torch.randn(4, 8), torch.randn(8, 8), torch.randn(8, 8)
    with torch.autocast(**CPU_BF16):
        h = x @ w
        with torch.autocast("cpu", enabled=False):
            assert h.dtype == torch.bfloat16  # not cast back on entry
            with pytest.raises(RuntimeError, match="same dtype"):
                h @ w2
            assert (h.float() @ w2).dtype == torch.float32
            assert (h + x).dtype == torch.float32  # elementwise ops do promote
    doc = " ".join((torch.autocast.__doc__ or "").split())
    assert "inputs from the surrounding region should be cast to ``dtype`` before use" in doc


def test_ma06_custom_fwd_casts_inputs_and_disables_autocast_inside() -> None:
    seen: dict[str, object] = {}

    class Fp32Only(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
        def forward(ctx, a, b):
            seen.update(a=a.dtype, enabled=torch.is_autocast_enabled("cpu"), out=(a @ b).dtype)
            ctx.save_for_backward(a, b)
            return a @ b

        @staticmethod
        @torch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g @ b.t(), a.t() @ g

    class Plain(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            seen.update(plain=a.dtype)
            return a @ b

    x, w, w2 = torch.randn(4, 8), torch.randn(8, 8), torch.randn(8, 8)
    with torch.autocast(**CPU_BF16):
        h = x @ w  # bf16, as a kernel would receive it
        out = Fp32Only.apply(h, w2)
        Plain.apply(h, w2)
    assert seen == {
        "a": torch.float32,
        "enabled": False,
        "out": torch.float32,
        "plain": torch.bfloat16,
    }
    assert out.dtype == torch.float32


# ---------------------------------------------------------------------------- checkpointing (ma-08..10)


class Block(nn.Module):
    def __init__(self, p: float = 0.0) -> None:
        super().__init__()
        self.linear, self.drop, self.calls = nn.Linear(8, 8), nn.Dropout(p), 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return self.drop(torch.tanh(self.linear(x)))


def test_ma08_one_extra_forward_and_sqrt_n_segments() -> None:
    block, x = Block(), torch.randn(4, 8, requires_grad=True)
    block(x).sum().backward()
    assert block.calls == 1
    block.calls = 0
    checkpoint(block, x, use_reentrant=False).sum().backward()
    assert block.calls == 2  # forward once, recomputed once in backward; backward runs once
    # forward 1 + recompute 1 + backward 2 units: 4/3 of the normal step.
    assert (1 + 1 + 2) / (1 + 2) - 1 == pytest.approx(0.333, abs=1e-3)
    # Chen et al.: n/k stored segment inputs + k layers of the segment being recomputed.
    n = 100
    live = {k: n / k + k for k in range(1, n + 1) if n % k == 0}
    best = min(live, key=live.__getitem__)
    assert (best, live[best]) == (10, 20) == (math.isqrt(n), 2 * math.isqrt(n))


def test_ma09_reentrant_checkpoint_silently_drops_parameter_gradients() -> None:
    first, head, x = Block(), nn.Linear(8, 1), torch.randn(4, 8)  # x: requires_grad=False
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        hidden = checkpoint(first, x, use_reentrant=True)
    head(hidden).sum().backward()  # no error: the head still learns
    assert head.weight.grad is not None and first.linear.weight.grad is None

    first.zero_grad()
    head(first(x)).sum().backward()
    expected = first.linear.weight.grad.clone()
    first.zero_grad()
    head(checkpoint(first, x, use_reentrant=False)).sum().backward()
    assert torch.equal(first.linear.weight.grad, expected)
    # torch 2.13: leaving the argument out warns and still takes the reentrant path.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = checkpoint(first, x)
    messages = " | ".join(str(w.message) for w in caught)
    assert "use_reentrant parameter should be passed explicitly" in messages
    assert "None of the inputs have requires_grad=True" in messages and not out.requires_grad


def test_ma10_checkpoint_replays_the_dropout_mask() -> None:
    block, x = Block(p=0.5), torch.randn(16, 8, requires_grad=True)
    block.train()

    def grad_of(run: Callable[[], torch.Tensor]) -> torch.Tensor:
        block.zero_grad()
        torch.manual_seed(1)
        run().sum().backward()
        return block.linear.weight.grad.clone()

    plain = grad_of(lambda: block(x))
    replayed = grad_of(lambda: checkpoint(block, x, use_reentrant=False))
    fresh = grad_of(lambda: checkpoint(block, x, use_reentrant=False, preserve_rng_state=False))
    assert torch.equal(plain, replayed)
    assert not torch.allclose(plain, fresh)


# ---------------------------------------------------------------------------- memory (ma-12, ma-13, ma-18)


def saved_activation_bytes(model: nn.Module, batch: int) -> int:
    """Bytes autograd keeps for backward, not counting the parameters themselves."""
    params = {p.data_ptr() for p in model.parameters()}
    total = 0

    def pack(t: torch.Tensor) -> torch.Tensor:
        nonlocal total
        if t.data_ptr() not in params:
            total += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(torch.randn(batch, 64)).sum()
    return total


def test_ma12_zero_stage_memory_figures() -> None:
    psi, nd, k = 7.5e9, 64, 12  # ZeRO's Figure 1 example
    gb = 1e9
    assert (2 + 2 + k) * psi / gb == pytest.approx(120)
    assert (2 * psi + 2 * psi + k * psi / nd) / gb == pytest.approx(31.4, abs=0.05)
    assert (2 * psi + (2 + k) * psi / nd) / gb == pytest.approx(16.6, abs=0.05)
    assert (2 + 2 + k) * psi / nd / gb == pytest.approx(1.9, abs=0.05)
    assert 2 * psi / gb == pytest.approx(15)


def ring_collectives(n: int, size: int) -> tuple[int, int]:
    """Elements one rank sends in a ring reduce-scatter and in a ring all-gather of `size`
    elements over `n` ranks, checked against the exact results."""
    rng = torch.Generator().manual_seed(0)
    data = [torch.randn(size, generator=rng, dtype=torch.float64) for _ in range(n)]
    chunks = [list(d.chunk(n)) for d in data]
    sent = [0] * n
    for step in range(n - 1):  # reduce-scatter: pass a partial sum one hop at a time
        moves = [(r, (r - step - 1) % n) for r in range(n)]
        payload = [chunks[r][c].clone() for r, c in moves]
        for (r, c), part in zip(moves, payload, strict=True):
            chunks[(r + 1) % n][c] = chunks[(r + 1) % n][c] + part
            sent[r] += part.numel()
    total = torch.stack(data).sum(0).chunk(n)
    for r in range(n):
        assert torch.allclose(chunks[r][r], total[r])  # rank r owns the sum of chunk r
    reduce_scatter = sent[0]
    sent = [0] * n
    for step in range(n - 1):  # all-gather: pass each owned chunk around the ring
        moves = [(r, (r - step) % n) for r in range(n)]
        payload = [chunks[r][c].clone() for r, c in moves]
        for (r, c), part in zip(moves, payload, strict=True):
            chunks[(r + 1) % n][c] = part
            sent[r] += part.numel()
    for r in range(n):
        assert torch.allclose(torch.cat(chunks[r]), torch.cat(total))
    return reduce_scatter, sent[0]


def test_ma18_full_shard_moves_one_and_a_half_times_ddp() -> None:
    n, psi = 64, 64 * 10
    reduce_scatter, all_gather = ring_collectives(n, psi)
    assert reduce_scatter == all_gather == psi * (n - 1) // n  # 63/64 of psi per collective
    ddp = reduce_scatter + all_gather  # an all-reduce: about 2 psi
    full_shard = all_gather + all_gather + reduce_scatter  # gather for forward, again for backward
    assert full_shard / ddp == 1.5 and full_shard == 3 * psi * 63 // 64
    assert ring_collectives(4, 40) == (30, 30)  # (n - 1)/n: nearly independent of n
    assert ddp < full_shard < 64 * ddp  # more than DDP, nowhere near 64 times it


def test_ma13_attention_terms_dominate_activation_memory() -> None:
    s, b, h, a = 2048, 1, 4096, 32
    quadratic = 5 * a * s / h
    assert quadratic == 80
    assert quadratic / (34 + quadratic) == pytest.approx(0.70, abs=0.005)
    assert s * b * h * (34 + quadratic) / 1e9 == pytest.approx(0.96, abs=0.005)
    # Doubling s doubles the linear part but quadruples the attention part.
    assert 5 * a * (2 * s) ** 2 * b == 4 * (5 * a * s * s * b)


# ---------------------------------------------------------------------------- normalization (ma-14..17)


def test_ma14_batchnorm_statistics_never_span_accumulation_steps() -> None:
    assert 8 * 4 == 32 and 8 * 4 * 4 == 128
    bn = nn.BatchNorm1d(6).train()
    first, second = torch.randn(4, 6), torch.randn(4, 6)
    alone = bn(second)
    bn(first)  # an earlier micro-batch of the same window
    assert torch.allclose(bn(second), alone)  # normalised by its own 4 samples only
    sync = nn.SyncBatchNorm(6).train()  # one process, no peers: exactly BatchNorm
    assert torch.allclose(sync(second), nn.BatchNorm1d(6).train()(second))


def test_ma15_requires_grad_false_does_not_freeze_batchnorm() -> None:
    bn = nn.BatchNorm1d(6)
    for p in bn.parameters():
        p.requires_grad_(False)
    bn.train()
    pair, other = torch.randn(2, 6) + 3, torch.randn(1, 6)
    out = bn(pair)
    assert not torch.allclose(bn.running_mean, torch.zeros(6))  # running stats still move
    # The first sample's output depends on its partner in the micro-batch.
    assert not torch.allclose(out[0], bn(torch.cat([pair[:1], other]))[0])
    bn.eval()
    frozen = bn.running_mean.clone()
    assert torch.allclose(bn(pair)[0], bn(torch.cat([pair[:1], other]))[0])
    assert torch.equal(bn.running_mean, frozen)


def test_ma16_batch_renorm_equals_normalising_with_moving_statistics() -> None:
    x = torch.randn(8, 5) * 2 + 1
    mu_b, sigma_b = x.mean(0), x.var(0, unbiased=False).add(1e-5).sqrt()
    mu, sigma = torch.randn(5), torch.rand(5) + 0.5  # moving averages
    r, d = (sigma_b / sigma).detach(), ((mu_b - mu) / sigma).detach()
    renorm = (x - mu_b) / sigma_b * r + d
    assert torch.allclose(renorm, (x - mu) / sigma, atol=1e-5)
    plain = F.batch_norm(x, None, None, training=True, eps=1e-5)
    assert torch.allclose((x - mu_b) / sigma_b * 1 + 0, plain, atol=1e-5)  # r = 1, d = 0


def test_ma17_accumulated_micro_batches_behave_like_ghost_batches() -> None:
    x = torch.randn(32, 6)
    ghost = F.batch_norm(x.view(4, 8, 6).transpose(0, 1).reshape(8, 24), None, None, training=True)
    ghost = ghost.reshape(8, 4, 6).transpose(0, 1).reshape(32, 6)  # 4 ghost batches of 8
    micro = torch.cat([F.batch_norm(chunk, None, None, training=True) for chunk in x.split(8)])
    assert torch.allclose(ghost, micro, atol=1e-5)
    full = F.batch_norm(x, None, None, training=True)
    assert not torch.allclose(micro, full, atol=1e-3)
