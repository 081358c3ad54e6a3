"""The numbers and claims of the accumulation-at-scale quiz, checked with real torch computations.

Each test names the questions whose explanation it backs. The DDP claims run a real
DistributedDataParallel over the gloo backend in forked CPU processes (4 ranks, a few
milliseconds of work each); everything else runs in this process.
"""

from __future__ import annotations

import inspect
import json
import math
import multiprocessing as mp
import re
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from bot.quizbank.cues import answer_cues
from bot.quizbank.files import SHIPPED_DIR, load_bank
from bot.quizbank.schema import Question, Quiz
from experiments.catalog import CATALOG

# Real subprocesses (bot processes, the CLI, torch workers): left out by -m 'not slow'.
pytestmark = pytest.mark.slow

QUIZ_ID = "accumulation-at-scale"
WORLD = 4
MICRO_BATCHES = 4
FEATURES, CLASSES = 5, 3


@pytest.fixture(scope="module")
def quiz() -> Quiz:
    return load_bank().quiz(QUIZ_ID)


def question(quiz: Quiz, qid: str) -> Question:
    return quiz.question(qid)


# ---------------------------------------------------------------------------- the quiz file


def test_quiz_loads_with_17_tagged_bilingual_questions(quiz: Quiz) -> None:
    assert (SHIPPED_DIR / f"{QUIZ_ID}.yaml").is_file()
    # as-17 (what accumulation shrinks, asked again by ga-01) gave way to as-18 in issue 35.
    assert [q.id for q in quiz.questions] == [f"as-{n:02d}" for n in range(1, 19) if n != 17]
    assert quiz.title == {
        "id": "Akumulasi Gradien dalam Skala Besar",
        "en": "Gradient Accumulation at Scale",
    }
    for q in quiz.questions:
        assert q.topic and q.difficulty in (1, 2, 3), q.id
        assert q.demo is None or q.demo in CATALOG, q.id
        assert q.references and all(
            re.match(
                r"https://(arxiv\.org|docs\.pytorch\.org|pytorch\.org|huggingface\.co)/", r.url
            )
            for r in q.references
        ), q.id
        for locale in ("id", "en"):
            assert len(q.choices[locale]) == 4, q.id
            assert all(len(c) <= 80 for c in q.choices[locale]), q.id  # Discord button labels
            assert len(q.prompt[locale]) <= 256, q.id
            sentences = re.findall(r"[.!?](?:\s|$)", q.explanation[locale].strip())
            assert 2 <= len(sentences) <= 4, (q.id, locale, len(sentences))
        assert q.prompt["id"] != q.prompt["en"], q.id


def test_no_answer_cues_in_length_or_slot(quiz: Quiz) -> None:
    slots = Counter(q.answer for q in quiz.questions)
    assert set(slots) == {0, 1, 2, 3}, slots
    assert answer_cues(quiz) == [], [cue.message() for cue in answer_cues(quiz)]


def test_no_always_or_never_only_in_distractors(quiz: Quiz) -> None:
    absolutes = {"en": ("always", "never"), "id": ("selalu", "tidak pernah", "tak pernah")}
    for q in quiz.questions:
        for locale, words in absolutes.items():
            right = q.choices[locale][q.answer].lower()
            for i, choice in enumerate(q.choices[locale]):
                for word in words:
                    if i != q.answer and re.search(rf"\b{word}\b", choice.lower()):
                        assert re.search(rf"\b{word}\b", right), (q.id, choice)


# ---------------------------------------------------------------------------- real DDP (as-01, as-02, as-04, as-10)


def _micro_batch(rank: int, k: int, tokens: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(1000 * rank + k)
    n = tokens if tokens is not None else 6
    return torch.randn(n, FEATURES, generator=g), torch.randint(0, CLASSES, (n,), generator=g)


def _tokens(rank: int, k: int) -> int:
    # Uneven token counts per rank and micro-batch: 3 .. 30.
    return 3 + (7 * rank + 11 * k) % 28


def _model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Linear(FEATURES, CLASSES)


def _flat_grad(model: nn.Module) -> list[float]:
    return torch.cat([p.grad.reshape(-1) for p in model.parameters()]).tolist()


def _ddp_worker(rank: int, store_path: str, out_dir: str) -> None:
    # A plain file per rank, then os._exit: tearing down DDP and gloo objects in a throwaway
    # process can hang now and then, and nothing after the result is needed.
    import faulthandler
    import os
    import sys
    import traceback

    faulthandler.dump_traceback_later(60, exit=True, file=sys.__stderr__)  # never linger
    out = Path(out_dir, f"rank{rank}.json")
    try:
        keep: list[object] = []  # the DDP objects stay alive until the process ends
        out.write_text(json.dumps(_ddp_run(rank, store_path, keep)), encoding="utf-8")
        code = 0
    except BaseException:
        out.write_text(json.dumps(traceback.format_exc()), encoding="utf-8")
        code = 1
    sys.stderr.flush()
    os._exit(code)


def _ddp_run(rank: int, store_path: str, keep: list[object]) -> dict[str, Any]:
    import torch.distributed as dist
    from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store_path}", rank=rank, world_size=WORLD)
    results: dict[str, Any] = {}

    def counted(name: str) -> DDP:
        ddp = DDP(_model())
        keep.append(ddp)
        results[name + "_allreduces"] = 0

        # No annotations: DDP compares them with dist.GradBucket, and this module's are strings.
        def hook(state, bucket):  # type: ignore[no-untyped-def]
            results[name + "_allreduces"] += 1
            return allreduce_hook(None, bucket)  # type: ignore[arg-type]

        ddp.register_comm_hook(None, hook)
        return ddp

    def loss_of(ddp: nn.Module, k: int) -> torch.Tensor:
        x, y = _micro_batch(rank, k)
        return F.cross_entropy(ddp(x), y) / MICRO_BATCHES

    # Sync on every micro-batch.
    ddp = counted("sync")
    for k in range(MICRO_BATCHES):
        loss_of(ddp, k).backward()
    results["sync_grad"] = _flat_grad(ddp.module)
    # no_sync() around forward and backward of the first N-1 micro-batches.
    ddp = counted("nosync")
    for k in range(MICRO_BATCHES):
        if k < MICRO_BATCHES - 1:
            with ddp.no_sync():
                loss_of(ddp, k).backward()
        else:
            loss_of(ddp, k).backward()
    results["nosync_grad"] = _flat_grad(ddp.module)
    # Forward outside no_sync(), only the backward inside.
    ddp = counted("fwd_outside")
    for k in range(MICRO_BATCHES):
        loss = loss_of(ddp, k)
        if k < MICRO_BATCHES - 1:
            with ddp.no_sync():
                loss.backward()
        else:
            loss.backward()
    results["fwd_outside_grad"] = _flat_grad(ddp.module)

    # Uneven token counts: four ways to scale each rank's summed token loss (as-10).
    own = sum(_tokens(rank, k) for k in range(2))
    total = torch.tensor(float(own))
    dist.all_reduce(total)  # the global token count of the step
    scalings = {
        "right": lambda s: s * WORLD / total,
        "global_only": lambda s: s / total,
        "own_count": lambda s: s / own,
        "plain_sum": lambda s: s,
    }
    for name, scale in scalings.items():
        ddp = DDP(_model())
        keep.append(ddp)
        for k in range(2):
            x, y = _micro_batch(rank, k, _tokens(rank, k))
            ctx = ddp.no_sync() if k == 0 else torch.enable_grad()
            with ctx:
                scale(F.cross_entropy(ddp(x), y, reduction="sum")).backward()
        results[f"tokens_{name}"] = _flat_grad(ddp.module)
    dist.barrier()
    return results


def _ddp_launcher(out_dir: str) -> None:
    """Runs in a fresh spawned interpreter: imports once, then forks the ranks from there."""
    # DDP's first construction imports torch._dynamo (~2 s); do it once, before forking.
    import torch._dynamo  # noqa: F401

    ctx = mp.get_context("fork")  # safe here: this process has run no threads or torch ops
    store = str(Path(out_dir, "store"))
    procs = [ctx.Process(target=_ddp_worker, args=(r, store, out_dir)) for r in range(WORLD)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=90)
        if p.is_alive():
            p.kill()
            p.join()


@pytest.fixture(scope="module")
def ddp_results(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, Any]]:
    # Not a fork of pytest's process (after other torch tests it can deadlock), and not the
    # process-wide forkserver (bot.demos.runner owns that one and its environment).
    out_dir = tmp_path_factory.mktemp("ddp")
    launcher = mp.get_context("spawn").Process(target=_ddp_launcher, args=(str(out_dir),))
    launcher.start()
    launcher.join(timeout=180)
    if launcher.is_alive():
        launcher.kill()
        launcher.join()
    results = {}
    for rank in range(WORLD):
        file = out_dir / f"rank{rank}.json"
        assert file.exists(), f"DDP rank {rank} wrote no result (launcher exit {launcher.exitcode})"
        results[rank] = json.loads(file.read_text(encoding="utf-8"))
    failures = [r for r in results.values() if isinstance(r, str)]
    assert not failures, failures[0]
    return results


def _reference_grad(batches: list[tuple[torch.Tensor, torch.Tensor]]) -> torch.Tensor:
    """Single-process gradient of the per-sample (per-token) mean over every batch given."""
    model = _model()
    x = torch.cat([b[0] for b in batches])
    y = torch.cat([b[1] for b in batches])
    F.cross_entropy(model(x), y).backward()
    return torch.tensor(_flat_grad(model))


def test_no_sync_gives_the_same_gradient_with_one_allreduce(
    ddp_results: dict[int, dict[str, Any]],
) -> None:
    # as-01: same averaged gradient on every rank, 1 all-reduce instead of 4.
    # as-04: DDP averages the ranks, so the step is the mean over the global batch.
    full = _reference_grad([_micro_batch(r, k) for r in range(WORLD) for k in range(MICRO_BATCHES)])
    for rank, res in ddp_results.items():
        assert res["sync_allreduces"] == MICRO_BATCHES, rank
        assert res["nosync_allreduces"] == 1, rank
        sync, nosync = torch.tensor(res["sync_grad"]), torch.tensor(res["nosync_grad"])
        torch.testing.assert_close(nosync, sync, rtol=1e-5, atol=1e-7)
        torch.testing.assert_close(nosync, full, rtol=1e-5, atol=1e-7)
        torch.testing.assert_close(nosync, torch.tensor(ddp_results[0]["nosync_grad"]))


def test_forward_outside_no_sync_still_allreduces_every_micro_batch(
    ddp_results: dict[int, dict[str, Any]],
) -> None:
    # as-02: no error, a correct result, and no communication saved.
    for rank, res in ddp_results.items():
        assert res["fwd_outside_allreduces"] == MICRO_BATCHES, rank
        torch.testing.assert_close(
            torch.tensor(res["fwd_outside_grad"]), torch.tensor(res["sync_grad"])
        )


def test_uneven_tokens_across_ranks_need_the_global_count_times_world(
    ddp_results: dict[int, dict[str, Any]],
) -> None:
    # as-10
    batches = [_micro_batch(r, k, _tokens(r, k)) for r in range(WORLD) for k in range(2)]
    token_mean = _reference_grad(batches)
    res = ddp_results[0]
    right = torch.tensor(res["tokens_right"])
    torch.testing.assert_close(right, token_mean, rtol=1e-5, atol=1e-7)
    torch.testing.assert_close(torch.tensor(res["tokens_global_only"]) * WORLD, token_mean)
    total = sum(_tokens(r, k) for r in range(WORLD) for k in range(2))
    torch.testing.assert_close(torch.tensor(res["tokens_plain_sum"]), token_mean * total / WORLD)
    own = torch.tensor(res["tokens_own_count"])
    assert (own - token_mean).norm() > 0.01 * token_mean.norm()  # the mean-of-means bias


# ---------------------------------------------------------------------------- arithmetic in the explanations


def test_fsdp_no_sync_gradient_memory() -> None:
    # as-03: 7B parameters, bf16 gradients, 8 ranks.
    bf16_bytes = torch.empty(0, dtype=torch.bfloat16).element_size()
    full = 7e9 * bf16_bytes / 1e9
    assert full == 14.0 and full / 8 == 1.75


def test_effective_batch_and_linear_scaling() -> None:
    # as-04
    micro, steps, gpus = 32, 4, 8
    assert micro * steps * gpus == 1024
    assert math.isclose(0.1 * micro * steps * gpus / 256, 0.4)
    assert math.isclose(0.1 * gpus, 0.8)  # "multiply by the GPUs"
    assert math.isclose(0.1 * micro * steps / 256, 0.05)  # each GPU alone
    assert math.isclose(0.1 * micro * gpus / 256, 0.1)  # accumulation forgotten
    # as-05
    assert math.isclose(0.1 * 8192 / 256, 3.2) and 8192 // 256 == 32
    assert round(0.1 * math.sqrt(32), 2) == 0.57


def test_adam_is_invariant_to_gradient_scale_and_sqrt_rule() -> None:
    # as-06: Adam ignores a constant gradient scale (not its noise); sqrt(4) x 1e-4 = 2e-4.
    assert math.isclose(1e-4 * math.sqrt(256 / 64), 2e-4)
    updates = []
    for scale in (1.0, 10.0):
        w = nn.Parameter(torch.ones(8))
        opt = torch.optim.AdamW([w], lr=1e-3, weight_decay=0.0)
        g = torch.Generator().manual_seed(3)
        for _ in range(5):
            w.grad = scale * torch.randn(8, generator=g)
            opt.step()
        updates.append(w.detach() - 1)
    torch.testing.assert_close(updates[0], updates[1], rtol=1e-4, atol=1e-9)


def test_pipeline_bubble_fractions_by_schedule_simulation() -> None:
    # as-13: simulate a fill-and-drain (GPipe) forward + backward schedule slot by slot.
    def idle_fraction(p: int, m: int) -> float:
        busy = [set() for _ in range(p)]
        for j in range(m):
            for s in range(p):
                busy[s].add(s + j)  # forward of micro-batch j on stage s
        start_bwd = m + p - 1
        for j in range(m):
            for s in range(p):
                busy[s].add(start_bwd + (p - 1 - s) + j)  # backward runs the stages in reverse
        total = 2 * (m + p - 1)
        assert all(len(b) == 2 * m for b in busy)
        return sum(total - len(b) for b in busy) / (p * total)

    for p, m in ((4, 4), (4, 16), (8, 32)):
        assert math.isclose(idle_fraction(p, m), (p - 1) / (m + p - 1))
    assert round(idle_fraction(4, 4), 2) == 0.43 and round(idle_fraction(4, 16), 2) == 0.16
    assert f"{3 / 19:.0%}" == "16%"
    assert f"{(4 - 1) / 16:.0%}" == "19%"  # Megatron-LM's (p - 1)/m: idle over ideal compute
    assert math.isclose(idle_fraction(4, 1), (4 - 1) / 4) and f"{3 / 4:.0%}" == "75%"  # m = 1
    assert idle_fraction(4, 16) > 0 and 16 >= 4  # m >= p is still not full


# ---------------------------------------------------------------------------- per-token losses (as-08, as-09)


def test_mean_of_micro_batch_means_is_biased_with_uneven_tokens() -> None:
    # as-08: the weight of one token under the mean of means, from autograd, and the numbers.
    a, b = torch.full((10,), 2.0, requires_grad=True), torch.full((90,), 1.0, requires_grad=True)
    ((a.mean() + b.mean()) / 2).backward()
    assert a.grad is not None and b.grad is not None
    assert math.isclose(a.grad[0].item(), 1 / 20, rel_tol=1e-6)
    assert math.isclose(b.grad[0].item(), 1 / 180, rel_tol=1e-6)
    assert math.isclose(a.grad[0].item() / b.grad[0].item(), 9, rel_tol=1e-6)  # 9x, not 1/9
    assert math.isclose(((a.mean() + b.mean()) / 2).item(), 1.5)
    assert math.isclose(torch.cat([a, b]).mean().item(), 1.1, rel_tol=1e-6)
    # And the gradient of a real model is biased the same way.
    batches = [_micro_batch(0, 0, 10), _micro_batch(0, 1, 90)]
    token_mean = _reference_grad(batches)
    biased, fixed = _model(), _model()
    total = sum(len(y) for _, y in batches)
    for x, y in batches:
        (F.cross_entropy(biased(x), y) / 2).backward()
        (F.cross_entropy(fixed(x), y, reduction="sum") / total).backward()
    torch.testing.assert_close(torch.tensor(_flat_grad(fixed)), token_mean)
    assert (torch.tensor(_flat_grad(biased)) - token_mean).norm() > 0.05 * token_mean.norm()


def test_padding_with_ignore_index_keeps_the_bias() -> None:
    # as-09: -100 labels are left out of both the sum and the count.
    assert inspect.signature(F.cross_entropy).parameters["ignore_index"].default == -100
    padded, real_tokens = [], []
    for k, n in enumerate((40, 300)):
        x, y = _micro_batch(1, k, 512)
        y[n:] = -100
        padded.append((x, y))
        real_tokens.append((x[:n], y[:n]))
    model = _model()
    for (x, y), (xr, yr) in zip(padded, real_tokens, strict=True):
        torch.testing.assert_close(F.cross_entropy(model(x), y), F.cross_entropy(model(xr), yr))
    token_mean = _reference_grad(real_tokens)
    biased, fixed = _model(), _model()
    labelled = sum(int((y != -100).sum()) for _, y in padded)
    for x, y in padded:
        (F.cross_entropy(biased(x), y) / 2).backward()
        (F.cross_entropy(fixed(x), y, reduction="sum") / labelled).backward()
    torch.testing.assert_close(torch.tensor(_flat_grad(fixed)), token_mean)
    assert (torch.tensor(_flat_grad(biased)) - token_mean).norm() > 0.05 * token_mean.norm()


# ---------------------------------------------------------------------------- loops (as-11, as-12, as-14, as-15, as-16)


def test_leftover_micro_batches_leak_into_the_next_epoch() -> None:
    # as-11: 10 micro-batches, N = 4, zero_grad only after a step.
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = [_micro_batch(2, k) for k in range(10)]
    grads_at_step: list[torch.Tensor] = []
    weights_after_step: list[dict[str, torch.Tensor]] = []
    for _epoch in range(2):
        for i, (x, y) in enumerate(data):
            (F.cross_entropy(model(x), y) / 4).backward()
            if (i + 1) % 4 == 0:
                grads_at_step.append(torch.tensor(_flat_grad(model)))
                opt.step()
                opt.zero_grad()
                weights_after_step.append({k: v.clone() for k, v in model.state_dict().items()})
    # The first step of epoch 2 (the 3rd step) sums micro-batches 9, 10 and 1-4 at the same weights.
    probe = _model()
    probe.load_state_dict(weights_after_step[1])
    for x, y in [data[8], data[9], *data[:4]]:
        (F.cross_entropy(probe(x), y) / 4).backward()
    torch.testing.assert_close(grads_at_step[2], torch.tensor(_flat_grad(probe)))
    assert len(grads_at_step) == 4  # two steps per epoch; epoch 2's leftovers never applied
    assert math.isclose(6 / 4, 1.5)


def test_scheduler_stepped_per_micro_batch_runs_eight_times_too_fast() -> None:
    # as-12: warm-up of 1000 scheduler steps, 8 micro-batches per optimizer step.
    w = nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([w], lr=1.0)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, s / 1000))
    lr_at_step = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(8 * 200):
            w.grad = torch.ones(1)
            if (i + 1) % 8 == 0:
                lr_at_step.append(opt.param_groups[0]["lr"])
                opt.step()
            sched.step()
    order = [c for c in caught if "before `optimizer.step()`" in str(c.message)]
    assert len(order) == 1  # one warning, nothing skipped
    first_full = next(n for n, lr in enumerate(lr_at_step, start=1) if lr >= 1.0)
    assert first_full == 1000 // 8 + 1  # the 126th step is the first after 125 of warm-up
    assert math.isclose(lr_at_step[124], 0.999)


def test_logged_loss_is_the_last_micro_batch_divided_by_n() -> None:
    # as-14
    model, n = _model(), 4
    data = [_micro_batch(3, k) for k in range(n)]
    window = 0.0
    for x, y in data:
        loss = F.cross_entropy(model(x), y) / n
        loss.backward()
        window += loss.detach().item()
    with torch.no_grad():
        means = [F.cross_entropy(model(x), y).item() for x, y in data]
    assert math.isclose(loss.item(), means[-1] / n, rel_tol=1e-6)
    assert math.isclose(window, sum(means) / n, rel_tol=1e-6)
    assert not math.isclose(loss.item(), window, rel_tol=1e-2)


def test_clip_once_on_the_accumulated_gradient() -> None:
    # as-15: clip 1.0 after the last backward == clipping the full-batch gradient.
    data = [_micro_batch(4, k) for k in range(4)]
    scale = 50.0  # large gradients so clipping is active

    def accumulate(clip_each: float | None) -> nn.Module:
        model = _model()
        for x, y in data:
            (scale * F.cross_entropy(model(x), y) / 4).backward()
            if clip_each is not None:
                nn.utils.clip_grad_norm_(model.parameters(), clip_each)
        return model

    once = accumulate(None)
    nn.utils.clip_grad_norm_(once.parameters(), 1.0)
    full = _model()
    (
        scale
        * F.cross_entropy(full(torch.cat([x for x, _ in data])), torch.cat([y for _, y in data]))
    ).backward()
    nn.utils.clip_grad_norm_(full.parameters(), 1.0)
    torch.testing.assert_close(torch.tensor(_flat_grad(once)), torch.tensor(_flat_grad(full)))
    each = torch.tensor(_flat_grad(accumulate(1.0)))
    assert (each - torch.tensor(_flat_grad(full))).norm() > 0.01
    quarter = torch.tensor(_flat_grad(accumulate(0.25)))
    assert math.isclose(quarter.norm().item(), 0.25, rel_tol=1e-5)


def test_reseeding_every_micro_batch_repeats_the_dropout_mask() -> None:
    # as-16
    dropout = nn.Dropout(0.5)
    reseeded = []
    for _ in range(4):
        torch.manual_seed(0)
        reseeded.append(dropout(torch.ones(8, 16)))
    assert all(torch.equal(reseeded[0], m) for m in reseeded)
    torch.manual_seed(0)
    once = [dropout(torch.ones(8, 16)) for _ in range(4)]
    assert not any(torch.equal(once[0], m) for m in once[1:])
