"""Shared helpers for the demos (imports torch and matplotlib)."""

from __future__ import annotations

import io
import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import matplotlib

matplotlib.use("Agg")  # headless: the bot and the worker have no display

import matplotlib.pyplot as plt
import torch
from matplotlib.ticker import FuncFormatter

from experiments.result import DemoResult, jsonable

SEED = 0


def resolve_device(device: str = "auto") -> torch.device:
    """'auto' → cuda if available else cpu; 'cuda' or 'cuda:N' needs that GPU to exist."""
    from experiments.gpu import GpuUnavailable, is_cuda, is_device

    if not is_device(device):
        raise ValueError(f"device must be auto, cpu, cuda or cuda:N, got {device!r}")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if is_cuda(device):
        if not torch.cuda.is_available():
            raise GpuUnavailable(f"--device {device} requested but CUDA is not available here")
        dev = torch.device(device)
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise GpuUnavailable(
                f"--device {device} requested but this host has "
                f"{torch.cuda.device_count()} GPU(s) (cuda:0 ...)"
            )
        return dev
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
    with plt.rc_context(FIGURE_RC):  # type: ignore[arg-type]
        fig, axes = plt.subplots(nrows, ncols, **kw)
        try:
            yield fig, axes
        finally:
            plt.close(fig)


#: Titles at the top edge of their axes (y = 1, the default pad above it): where
#: matplotlib's automatic placement puts them when no axes has ticks on top (none here),
#: without measuring every tick label once more per axes on each draw.
FIGURE_RC: dict[str, Any] = {"axes.titley": 1.0}

_SUPERSCRIPT = str.maketrans(
    "-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
)


def _power_of_ten(value: float, _pos: object = None) -> str:
    if not value > 0:
        return ""
    exponent = math.log10(value)
    if abs(exponent - round(exponent)) > 1e-9:
        return ""
    return "10" + str(round(exponent)).translate(_SUPERSCRIPT)


def plain_log_labels(axis: Any) -> None:
    """Label a log axis's decades 10\u207b\u00b2 ... 10\u2076 in plain text (Unicode superscripts).

    Reads like matplotlib's own labels, which are mathtext: parsed anew for every figure
    (the parser's cache belongs to the renderer), about a fifth of a demo's plot time."""
    axis.set_major_formatter(FuncFormatter(_power_of_ten))


#: What each rendered figure shows (title, lesson, per-axes labels and legend); tests read
#: it to hold every demo to "title, labelled axes, a legend, the lesson in one line".
FIGURE_LOG: list[dict[str, Any]] = []
LESSON_MAX_CHARS = 125  # one line at the figure widths used here


def describe_figure(fig: Any) -> list[dict[str, Any]]:
    """Per axes: whether it is drawn (axis on), its title, axis labels and legend entries."""
    out = []
    for ax in fig.axes:
        legend = ax.get_legend()
        out.append(
            {
                "axis_on": bool(ax.axison),
                "title": ax.get_title(),
                "xlabel": ax.get_xlabel(),
                "ylabel": ax.get_ylabel(),
                "legend": [t.get_text() for t in legend.get_texts()] if legend else [],
            }
        )
    return out


def fig_to_png(
    fig: Any,
    *,
    title: str,
    lesson: str,
    note: str = "",
    top: float = 0.86,
    bottom: float = 0.2,
    left: float = 0.08,
    right: float = 0.98,
    wspace: float = 0.25,
    hspace: float = 0.35,
) -> bytes:
    """Title on top, the lesson (one line) and an optional caveat below, then PNG bytes."""
    fig.suptitle(title, fontsize=12, fontweight="bold")
    fig.text(
        0.5,
        0.055 if note else 0.02,
        lesson,
        ha="center",
        va="bottom",
        fontsize=10,
        color="#1f3b73",
        bbox={"boxstyle": "round", "facecolor": "#eef3fb", "edgecolor": "#9db4dd"},
    )
    if note:
        fig.text(0.5, 0.012, note, ha="center", va="bottom", fontsize=8.5, color="#555555")
    # Fixed margins: tight_layout costs ~0.5 s per figure on a small CPU.
    fig.subplots_adjust(
        left=left, right=right, bottom=bottom, top=top, wspace=wspace, hspace=hspace
    )
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    FIGURE_LOG.append(
        {
            "title": title,
            "lesson": lesson,
            "note": note,
            "axes": describe_figure(fig),
            "clipped_texts": _clipped_texts(fig),
        }
    )
    del FIGURE_LOG[:-50]  # bounded: the worker runs for days
    return buf.getvalue()


def _clipped_texts(fig: Any) -> list[str]:
    """Figure-level texts (title, lesson, note) that run past the figure's edges."""
    renderer = fig.canvas.get_renderer()
    width = fig.bbox.width
    texts = [*fig.texts, *([fig._suptitle] if fig._suptitle is not None else [])]
    return [
        t.get_text()
        for t in texts
        if (box := t.get_window_extent(renderer)).x0 < 0 or box.x1 > width
    ]


def median_spread(samples: list[float]) -> dict[str, float]:
    """Median, min and max of repeated measurements (the spread a plot shows)."""
    ordered = sorted(samples)
    n = len(ordered)
    mid = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
    return {"median": mid, "min": ordered[0], "max": ordered[-1], "repeats": n}


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


def elapsed_ms(dev: torch.device, fn: Callable[[], object]) -> float:
    """Milliseconds one call of ``fn`` takes on ``dev``.

    On a GPU the kernels ``fn`` launches run after it returns, so the host clock would
    time the launches only: CUDA events recorded on the stream before and after it, and
    one synchronise on the second, time the device's own work. On a CPU, the host clock.
    """
    if dev.type == "cuda":
        stream = torch.cuda.current_stream(dev)  # where `dev`'s kernels are queued
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record(stream)
        fn()
        end.record(stream)
        end.synchronize()
        return float(start.elapsed_time(end))
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def _warm_cuda(dev: torch.device) -> None:
    """First use of a GPU costs far more than any demo: the CUDA context, the cuBLAS and
    cuBLASLt handles and their heuristics per dtype, cuDNN's handle and a conv under
    autocast, autocast's casts, the caching
    allocator's first blocks. Paid here, once per worker, not in a member's demo."""
    torch.cuda.init()
    a = torch.ones(256, 256, device=dev)
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        b = a.to(dt)
        (b @ b).sum().item()
    for dt in (torch.bfloat16, torch.float16):
        with torch.autocast("cuda", dtype=dt):
            (a @ a).softmax(-1).sum().item()
    # cuDNN: its handle, its conv algorithm search, per autocast dtype.
    img = torch.ones(1, 3, 16, 16, device=dev)
    kernel = torch.ones(4, 3, 3, 3, device=dev)
    for dt in (torch.bfloat16, torch.float16):
        with torch.autocast("cuda", dtype=dt):
            torch.nn.functional.conv2d(img, kernel).sum().item()
    elapsed_ms(dev, lambda: a @ a)  # the timing events themselves
    torch.cuda.synchronize(dev)


_WARM_DEVICES: set[str] = set()


def warm_up(dev: torch.device | None = None) -> None:
    """Pay one-time costs (torch.optim pulls in torch._dynamo, ~1-3 s) outside the timers.

    Idempotent; the DemoRunner worker calls it at start so the first user demo is fast.
    With a CUDA ``dev``, the GPU's first-use costs too (`_warm_cuda`), once per device.
    """
    global _WARM
    if dev is not None and dev.type == "cuda" and str(dev) not in _WARM_DEVICES:
        _warm_cuda(dev)
        _WARM_DEVICES.add(str(dev))
    if _WARM:
        return
    p = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    opt.step()
    with figure() as (fig, ax):
        ax.plot([0, 1])
        fig_to_png(fig, title="warm-up", lesson="warm-up")
    FIGURE_LOG.clear()
    _WARM = True
