"""Shared helpers for the demos (imports torch and matplotlib)."""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless: the bot and the worker have no display

import matplotlib.pyplot as plt
import torch

from experiments.result import DemoResult, jsonable

SEED = 0


def resolve_device(device: str = "auto") -> torch.device:
    """'auto' → cuda if available else cpu; asking for absent CUDA is an error."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError("--device cuda requested but CUDA is not available on this machine")
    if device != "cpu" and not device.startswith("cuda"):
        raise ValueError(f"device must be auto, cpu or cuda, got {device!r}")
    return torch.device(device)


def device_name(dev: torch.device) -> str:
    if dev.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(dev)})"
    return "cpu"


def sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def generator(dev: torch.device, seed: int = SEED) -> torch.Generator:
    """Seeded generator; data are drawn on CPU then moved so CPU/CUDA see the same values."""
    del dev
    return torch.Generator().manual_seed(seed)


@contextmanager
def figure(nrows: int = 1, ncols: int = 1, **kw: Any) -> Iterator[tuple[Any, Any]]:
    fig, axes = plt.subplots(nrows, ncols, **kw)
    try:
        yield fig, axes
    finally:
        plt.close(fig)


def fig_to_png(fig: Any) -> bytes:
    buf = io.BytesIO()
    # Fixed margins: tight_layout costs ~0.5 s per figure on a small CPU.
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.15, top=0.9, wspace=0.25, hspace=0.35)
    fig.savefig(buf, format="png", dpi=80)
    return buf.getvalue()


def timed_run(
    demo: str,
    dev: torch.device,
    params: dict[str, int],
    compute: Callable[[], dict[str, Any]],
    plot: Callable[[dict[str, Any]], bytes],
    snippet: str,
    highlights: Callable[[dict[str, Any]], list[tuple[str, str]]],
) -> DemoResult:
    """Run ``compute`` (timed, seeded), render the plot, pack a DemoResult."""
    torch.manual_seed(SEED)
    t0 = time.perf_counter()
    numbers = compute()
    sync(dev)
    png = plot(numbers)
    elapsed = time.perf_counter() - t0
    return DemoResult(
        demo=demo,
        params=dict(params),
        device=device_name(dev),
        numbers=jsonable(numbers),
        snippet=snippet.strip("\n"),
        png=png,
        elapsed_s=elapsed,
        highlights=highlights(numbers),
    )


def fmt(x: float, digits: int = 3) -> str:
    if isinstance(x, str):
        return x
    return f"{x:.{digits}g}"


def snippet_in_sync(snippet: str, *funcs: Callable[..., Any]) -> bool:
    """True if every non-blank snippet line occurs, in order, in the functions' source.

    Lets each demo show a curated excerpt while a test guarantees it is the real code.
    """
    import inspect

    source = [ln.strip() for f in funcs for ln in inspect.getsource(f).splitlines()]
    i = 0
    for line in (ln.strip() for ln in snippet.splitlines()):
        if not line:
            continue
        while i < len(source) and source[i] != line:
            i += 1
        if i == len(source):
            return False
        i += 1
    return True


_WARM = False


def warm_up() -> None:
    """Pay one-time costs (torch.optim pulls in torch._dynamo, ~1-3 s) outside the timers.

    Idempotent; the DemoRunner worker calls it at start so the first user demo is fast.
    """
    global _WARM
    if _WARM:
        return
    p = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    opt.step()
    with figure() as (fig, ax):
        ax.plot([0, 1])
        fig_to_png(fig)
    _WARM = True
