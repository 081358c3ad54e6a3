"""Uneven token counts: a mean of per-micro-batch means is not the full batch's mean.

A token-level model (cross-entropy per token) sees N micro-batches holding different
numbers of tokens. Dividing each micro-batch's mean loss by N weights a token of a short
micro-batch more than one of a long micro-batch; summing token losses and dividing by
the window's total token count gives exactly the full batch's loss and gradient.
"""

from __future__ import annotations

import copy
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from experiments._common import SEED, fig_to_png, figure, fmt, generator, timed_run

FEATURES, VOCAB = 8, 16
VARIANTS = ("full_batch", "mean_of_means", "sum_over_total_tokens")
LABELS = {
    "full_batch": "full batch: mean over all tokens",
    "mean_of_means": "mean per micro-batch, / N",
    "sum_over_total_tokens": "sum per micro-batch, / total tokens",
}


def token_counts(micro_batches: int, avg_tokens: int, g: torch.Generator) -> list[int]:
    """Uneven counts: 0.25x to 1.75x the average, in a seeded order."""
    f = torch.linspace(0.25, 1.75, micro_batches)[torch.randperm(micro_batches, generator=g)]
    return [max(1, round(avg_tokens * v)) for v in f.tolist()]


def make_problem(
    dev: torch.device, micro_batches: int, avg_tokens: int
) -> tuple[nn.Module, list[tuple[torch.Tensor, torch.Tensor]]]:
    torch.manual_seed(SEED)
    model = nn.Linear(FEATURES, VOCAB).to(dev)
    g = generator(dev, SEED + 1)
    mbs = []
    for n in token_counts(micro_batches, avg_tokens, g):
        x = torch.randn(n, FEATURES, generator=g)
        y = torch.randint(0, VOCAB, (n,), generator=g)
        mbs.append((x.to(dev), y.to(dev)))
    return model, mbs


def accumulate(
    model: nn.Module, micro_batches: list[tuple[torch.Tensor, torch.Tensor]], variant: str
) -> float:
    """Accumulate one window's gradient in .grad; returns the loss value it reports."""
    n = len(micro_batches)
    total_tokens = sum(len(y) for _, y in micro_batches)  # known before the window
    reported = 0.0
    for x, y in micro_batches:
        token_losses = F.cross_entropy(model(x), y, reduction="none")
        if variant == "mean_of_means":
            loss = token_losses.mean() / n  # BIAS: a short micro-batch's tokens weigh more
        else:
            loss = token_losses.sum() / total_tokens  # every token weighs 1 / total
        loss.backward()
        reported += loss.item()
    return reported


SNIPPET = """
total_tokens = sum(len(y) for _, y in micro_batches)  # known before the window
for x, y in micro_batches:
    token_losses = F.cross_entropy(model(x), y, reduction="none")
    if variant == "mean_of_means":
        loss = token_losses.mean() / n  # BIAS: a short micro-batch's tokens weigh more
    else:
        loss = token_losses.sum() / total_tokens  # every token weighs 1 / total
    loss.backward()
"""
SNIPPET_FUNCS = (accumulate,)


def _grad(model: nn.Module) -> torch.Tensor:
    return torch.cat(
        [p.grad.reshape(-1) for p in model.parameters() if p.grad is not None]
    ).double()


def compute(dev: torch.device, micro_batches: int, micro_batch_size: int) -> dict[str, Any]:
    base, mbs = make_problem(dev, micro_batches, micro_batch_size)
    counts = [len(y) for _, y in mbs]
    total = sum(counts)
    full = [(torch.cat([x for x, _ in mbs]), torch.cat([y for _, y in mbs]))]
    grads, losses = {}, {}
    for v in VARIANTS:
        model = copy.deepcopy(base)
        losses[v] = accumulate(model, full if v == "full_batch" else mbs, v)
        grads[v] = _grad(model)
    ref = grads["full_batch"]
    # Theory: mean of means = sum_i w_i * loss_i with w_i = 1 / (N * n_k) for a token of
    # micro-batch k, instead of the fair 1 / total.
    weights = {
        "mean_of_means": [total / (micro_batches * c) for c in counts],
        "sum_over_total_tokens": [1.0] * micro_batches,
    }
    out = {
        v: {
            "loss": losses[v],
            "loss_rel_error": abs(losses[v] - losses["full_batch"]) / losses["full_batch"],
            "grad_rel_error": ((grads[v] - ref).norm() / ref.norm()).item(),
            "cosine": F.cosine_similarity(grads[v], ref, dim=0).item(),
        }
        for v in VARIANTS
    }
    return {
        "micro_batches": micro_batches,
        "avg_tokens": micro_batch_size,
        "token_counts": counts,
        "total_tokens": total,
        "weight_per_token_vs_fair": weights,
        "variants": out,
    }


def plot(numbers: dict[str, Any]) -> bytes:
    counts = numbers["token_counts"]
    w = numbers["weight_per_token_vs_fair"]
    v = numbers["variants"]
    with figure(1, 2, figsize=(10.5, 4.4), gridspec_kw={"width_ratios": [3, 2]}) as (
        fig,
        (ax1, ax2),
    ):
        xs = list(range(len(counts)))
        ax1.bar(
            [x - 0.2 for x in xs],
            w["mean_of_means"],
            0.4,
            color="tab:red",
            label=LABELS["mean_of_means"],
        )
        ax1.bar(
            [x + 0.2 for x in xs],
            w["sum_over_total_tokens"],
            0.4,
            color="tab:green",
            label=LABELS["sum_over_total_tokens"],
        )
        ax1.axhline(1.0, color="k", ls="--", lw=0.8, label="fair: every token counts once")
        many = len(xs) > 6
        ax1.set_xticks(
            xs, [str(c) for c in counts], fontsize=7 if many else 9, rotation=60 if many else 0
        )
        ax1.set_xlabel("micro-batches, labelled with their token counts")
        ax1.set_ylabel("weight of one token / fair weight")
        ax1.set_title(
            f"{numbers['micro_batches']} micro-batches, {numbers['total_tokens']} tokens",
            fontsize=10,
        )
        ax1.legend(fontsize=8)
        names = ["mean_of_means", "sum_over_total_tokens"]
        xs2 = [0, 1]
        g = [max(v[n]["grad_rel_error"], 1e-9) for n in names]
        lo = [max(v[n]["loss_rel_error"], 1e-9) for n in names]
        ax2.bar([x - 0.2 for x in xs2], g, 0.4, color="tab:blue", label="gradient rel. error")
        ax2.bar([x + 0.2 for x in xs2], lo, 0.4, color="tab:gray", label="reported loss rel. error")
        ax2.set_yscale("log")
        ax2.set_xticks(xs2, ["mean per\nmicro-batch / N", "sum /\ntotal tokens"])
        ax2.set_xlabel("how the loss is normalized")
        ax2.set_ylabel("vs the full batch (log)")
        ax2.set_title("bias against the full batch", fontsize=10)
        ax2.legend(fontsize=8)
        return fig_to_png(
            fig,
            title="Uneven token counts: the mean of micro-batch means is biased",
            lesson="With uneven token counts, sum the token losses and divide by the window's "
            "total tokens, not each mean by N.",
            note="A mean per micro-batch gives a token of a short micro-batch more weight; the "
            "bias vanishes only when all counts are equal.",
            bottom=0.25,
        )


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [("token counts", f"{numbers['token_counts']} (total {numbers['total_tokens']})")]
    for k, v in numbers["variants"].items():
        rows.append((k, f"loss {fmt(v['loss'], 6)}  grad rel.err {fmt(v['grad_rel_error'])}"))
    wm = numbers["weight_per_token_vs_fair"]["mean_of_means"]
    rows.append(("mean of means: token weight", f"{fmt(min(wm))}x to {fmt(max(wm))}x the fair one"))
    return rows


def run(dev: torch.device, *, micro_batches: int = 4, micro_batch_size: int = 8):
    params = {"micro_batches": micro_batches, "micro_batch_size": micro_batch_size}
    return timed_run(
        "uneven-tokens",
        dev,
        params,
        lambda: compute(dev, micro_batches, micro_batch_size),
        plot,
        SNIPPET,
        highlights,
    )
