"""BatchNorm vs GroupNorm/LayerNorm under gradient accumulation."""

from __future__ import annotations

import copy
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from experiments._common import SEED, fig_to_png, figure, fmt, generator, timed_run

NORMS = ("batchnorm", "groupnorm", "layernorm")
WIDTH = 16


def make_model(norm: str, dev: torch.device) -> nn.Module:
    torch.manual_seed(SEED)  # same Linear weights for every norm type
    layer: nn.Module = {
        "batchnorm": lambda: nn.BatchNorm1d(WIDTH),
        "groupnorm": lambda: nn.GroupNorm(4, WIDTH),
        "layernorm": lambda: nn.LayerNorm(WIDTH),
    }[norm]()
    return nn.Sequential(nn.Linear(8, WIDTH), layer, nn.ReLU(), nn.Linear(WIDTH, 1)).to(dev)


def accumulated_grads(
    model: nn.Module, micro_batches: list[tuple[torch.Tensor, torch.Tensor]]
) -> None:
    """Correct accumulation; BatchNorm still sees only one micro-batch at a time."""
    n = len(micro_batches)
    model.zero_grad()
    for x, y in micro_batches:
        loss = F.mse_loss(model(x), y) / n  # BatchNorm normalizes with THIS micro-batch's stats
        loss.backward()


SNIPPET = """
for x, y in micro_batches:
    loss = F.mse_loss(model(x), y) / n  # BatchNorm normalizes with THIS micro-batch's stats
    loss.backward()
"""
SNIPPET_FUNCS = (accumulated_grads,)


def _flat(model: nn.Module) -> torch.Tensor:
    return torch.cat(
        [p.grad.reshape(-1) for p in model.parameters() if p.grad is not None]
    ).double()


def _bn_stats(model: nn.Module) -> tuple[torch.Tensor, torch.Tensor, int]:
    """running_mean, running_var, num_batches_tracked of the model's BatchNorm layer."""
    bn = model.get_submodule("1")
    assert isinstance(bn, nn.BatchNorm1d)
    assert bn.running_mean is not None and bn.running_var is not None
    assert bn.num_batches_tracked is not None
    return bn.running_mean, bn.running_var, int(bn.num_batches_tracked)


def compute(dev: torch.device, micro_batches: int, micro_batch_size: int) -> dict[str, Any]:
    g = generator(dev, SEED + 1)
    total = micro_batches * micro_batch_size
    # Shifted, scaled inputs so batch statistics genuinely vary between micro-batches.
    x = (torch.randn(total, 8, generator=g) * 2 + 1).to(dev)
    y = torch.randn(total, 1, generator=g).to(dev)
    mbs = list(zip(x.split(micro_batch_size), y.split(micro_batch_size), strict=True))
    out: dict[str, Any] = {}
    for norm in NORMS:
        full = make_model(norm, dev).train()
        acc = copy.deepcopy(full)
        accumulated_grads(full, [(x, y)])  # one batch of the same total size
        accumulated_grads(acc, mbs)
        gf, ga = _flat(full), _flat(acc)
        res: dict[str, Any] = {
            "grad_rel_error": ((ga - gf).norm() / gf.norm()).item(),
            "cosine": F.cosine_similarity(ga, gf, dim=0).item(),
        }
        if norm == "batchnorm":
            (mf, vf, nf), (ma, va, na) = _bn_stats(full), _bn_stats(acc)
            res["running_mean_rel_diff"] = ((ma - mf).norm() / mf.norm()).item()
            res["running_var_rel_diff"] = ((va - vf).norm() / vf.norm()).item()
            res["num_batches_tracked"] = {"full_batch": nf, "accumulated": na}
            res["running_mean"] = {"full_batch": mf.tolist(), "accumulated": ma.tolist()}
        out[norm] = res
    return {"norms": out}


def plot(numbers: dict[str, Any]) -> bytes:
    norms = numbers["norms"]
    with figure(1, 2, figsize=(10, 4)) as (fig, (ax1, ax2)):
        errs = [max(norms[n]["grad_rel_error"], 1e-10) for n in NORMS]
        ax1.bar(NORMS, errs, color=["tab:red", "tab:green", "tab:green"])
        ax1.set_yscale("log")
        ax1.axhline(1e-6, color="gray", ls=":", label="~float32 rounding")
        ax1.set_ylabel("gradient rel. error vs full batch")
        ax1.set_xlabel("normalization layer")
        ax1.set_title("accumulated vs one big batch (log scale)", fontsize=10)
        ax1.legend(fontsize=8)
        rm = norms["batchnorm"]["running_mean"]
        ax2.plot(rm["full_batch"], "o-", label="full batch (1 update)")
        ax2.plot(rm["accumulated"], "s--", label="accumulated (N updates)")
        ax2.set_xlabel("channel")
        ax2.set_ylabel("running_mean")
        ax2.set_title("BatchNorm running_mean after one effective batch", fontsize=10)
        ax2.legend(fontsize=8)
        return fig_to_png(
            fig,
            title="BatchNorm breaks the equivalence of accumulation",
            lesson="BatchNorm normalizes each micro-batch with its own statistics: accumulated "
            "gradients differ; Group/LayerNorm match.",
            note="Its running stats also get N updates from micro-batches instead of one "
            "from the full batch.",
            bottom=0.24,
        )


def highlights(numbers: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [
        (n, f"grad rel.err {fmt(v['grad_rel_error'])}  cos {fmt(v['cosine'], 6)}")
        for n, v in numbers["norms"].items()
    ]
    bn = numbers["norms"]["batchnorm"]
    rows.append(("BN running_mean rel.diff", fmt(bn["running_mean_rel_diff"])))
    rows.append(("BN running_var rel.diff", fmt(bn["running_var_rel_diff"])))
    return rows


def run(dev: torch.device, *, micro_batches: int = 4, micro_batch_size: int = 8):
    params = {"micro_batches": micro_batches, "micro_batch_size": micro_batch_size}
    return timed_run(
        "batchnorm",
        dev,
        params,
        lambda: compute(dev, micro_batches, micro_batch_size),
        plot,
        SNIPPET,
        highlights,
    )
