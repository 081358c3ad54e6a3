"""Templates about GradScaler: its scale after a run of steps, and clipping with it
(torch). Both run a real ``torch.amp.GradScaler('cpu')``.
"""

from __future__ import annotations

import math
import random
import warnings
from decimal import Decimal
from typing import Any

import torch

from experiments.generators.fmt import (
    code,
    decimal_string,
    exact,
    fmt_decimal,
    near_tie,
    sig_fixed,
)
from experiments.generators.instance import Draft, Option, both
from experiments.generators.misconceptions import miss

# --------------------------------------------------------------------------- GradScaler


#: The answers: a scale of 2^k for k here, each drawn equally often (the registry's
#: answer space); init_scale stays within 2^4..2^24.
SCALER_EXPONENTS = range(8, 19)


def _draw_scaler(rng: random.Random) -> dict[str, Any]:
    """Steps and an interval first, then the final scale 2^k (k uniform), and from them
    the init_scale that leads there."""
    k = rng.choice(SCALER_EXPONENTS)
    while True:
        n = rng.randint(8, 14)
        p_overflow = rng.uniform(0.12, 0.35)
        steps = "".join("x" if rng.random() < p_overflow else "o" for _ in range(n))
        interval = rng.randint(2, 4)
        change = round(math.log2(simulate_scaler(1.0, interval, steps)))
        if 4 <= k - change <= 24:
            return {"init_scale": 2 ** (k - change), "growth_interval": interval, "steps": steps}


def run_scaler(init_scale: int, growth_interval: int, steps: str) -> list[float]:
    """The scale after each step of a real GradScaler on the CPU ('x' = inf gradient).

    Each step leaves a scaled gradient in ``w.grad`` (inf for an overflow) as backward of
    a scaled loss would, then runs the scaler's own ``step`` (unscale, inf check, skip)
    and ``update`` (backoff and growth).
    """
    w = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.0)
    scaler = torch.amp.GradScaler(
        "cpu",
        init_scale=float(init_scale),
        growth_factor=2.0,
        backoff_factor=0.5,
        growth_interval=growth_interval,
    )
    trace = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scaler.scale(torch.zeros(()))  # the scaler creates its scale tensor lazily, here
        for event in steps:
            w.grad = torch.full((1,), math.inf if event == "x" else scaler.get_scale())
            scaler.step(optimizer)
            scaler.update()
            trace.append(float(scaler.get_scale()))
    return trace


def simulate_scaler(
    init: float,
    interval: int,
    steps: str,
    *,
    reset_on_overflow: bool = True,
    backoff: bool = True,
    overflow_counts: bool = False,
    restart_after_growth: bool = True,
) -> float:
    """GradScaler's rule in plain Python, with switches for the misconceptions."""
    scale, clean = float(init), 0
    for event in steps:
        if event == "x":
            if backoff:
                scale *= 0.5
            if overflow_counts:
                clean += 1
            elif reset_on_overflow:
                clean = 0
        else:
            clean += 1
            if clean >= interval:
                scale *= 2.0
                if restart_after_growth:
                    clean = 0
    return scale


def scaler_build(params: dict[str, Any], rng: random.Random) -> Draft:
    init, gi, steps = int(params["init_scale"]), int(params["growth_interval"]), params["steps"]
    trace = run_scaler(init, gi, steps)
    right = trace[-1]
    marks = " ".join("✓" if e == "o" else "✗" for e in steps)
    src = (
        "scaler = torch.amp.GradScaler(\n"
        f"    'cpu', init_scale={init}, growth_factor=2.0, backoff_factor=0.5, growth_interval={gi}\n"
        ")"
    )
    prompt = {
        "en": code(src) + f"\nTraining then runs {len(steps)} steps, each ending in "
        "`scaler.step(optimizer)` and `scaler.update()`. The gradients were finite (✓) or "
        f"contained inf/NaN (✗) in this order:\n{marks}\n"
        "What does `scaler.get_scale()` return after the last step? (growth_factor and "
        "backoff_factor are written out with their default values; growth_interval is set "
        "far below its default of 2000.)",
        "id": code(src) + f"\nLalu pelatihan berjalan {len(steps)} langkah, masing-masing diakhiri "
        "`scaler.step(optimizer)` dan `scaler.update()`. Gradiennya berhingga (✓) atau mengandung "
        f"inf/NaN (✗) dengan urutan ini:\n{marks}\n"
        "Berapa nilai `scaler.get_scale()` setelah langkah terakhir? (growth_factor dan "
        "backoff_factor ditulis dengan nilai bawaannya; growth_interval dibuat jauh di bawah "
        "bawaannya, 2000.)",
    }
    path = " → ".join(exact(s) for s in [float(init), *trace])
    head = {
        "en": "GradScaler multiplies the scale by backoff_factor = 0.5 on every step whose "
        "gradients hold inf/NaN (and skips that optimizer.step()), and by growth_factor = 2.0 "
        f"after growth_interval = {gi} clean steps in a row; either event restarts the count. "
        f"The scale went: {path}.",
        "id": "GradScaler mengalikan skalanya dengan backoff_factor = 0.5 di setiap langkah yang "
        "gradiennya mengandung inf/NaN (dan melewati optimizer.step() langkah itu), serta dengan "
        f"growth_factor = 2.0 setelah growth_interval = {gi} langkah bersih berturut-turut; kedua "
        f"kejadian itu memulai hitungan dari nol. Skalanya berubah: {path}.",
    }
    pool = [
        miss(
            "tracker-survives-overflow",
            exact(simulate_scaler(init, gi, steps, reset_on_overflow=False)),
        ),
        miss("no-backoff", exact(simulate_scaler(init, gi, steps, backoff=False))),
        miss("grows-every-step", exact(simulate_scaler(init, 1, steps))),
        miss("growth-off-by-one", exact(simulate_scaler(init, gi + 1, steps))),
        miss("scale-fixed", exact(float(init))),
        miss(
            "overflow-counts-as-clean",
            exact(simulate_scaler(init, gi, steps, overflow_counts=True)),
        ),
        miss(
            "count-kept-after-growth",
            exact(simulate_scaler(init, gi, steps, restart_after_growth=False)),
        ),
    ]
    rng.shuffle(pool)
    fallback = [
        miss("off-by-one-exponent", exact(right * 2)),
        miss("off-by-one-exponent", exact(right / 2)),
    ]
    return Draft(prompt, Option(both(exact(right))), pool + fallback, head)


# --------------------------------------------------------------------------- clipping


def _draw_clip(rng: random.Random) -> dict[str, Any]:
    """Norms and a scale whose answer is not within float32's error of a tie at 4 digits
    (0.8 / 512 = 0.0015625: torch's 1e-6 in the clip coefficient could round either way)."""
    while True:
        g = math.exp(rng.uniform(math.log(0.05), math.log(80.0)))
        e = math.floor(math.log10(g)) - rng.choice((1, 2))
        params = {
            "grad_norm": decimal_string(max(1, round(g / 10**e)), e),
            "scale": 2 ** rng.randint(8, 16),
            "max_norm": fmt_decimal(Decimal(rng.randint(1, 50)).scaleb(-1)),
            "unscale_first": rng.random() < 0.5,
        }
        q = Decimal(params["max_norm"]) / params["scale"]  # the answer when clipped too early
        if params["unscale_first"] or not near_tie(q, 4):
            return params


def clip_build(params: dict[str, Any], rng: random.Random) -> Draft:
    g_text, scale, c_text = params["grad_norm"], int(params["scale"]), params["max_norm"]
    unscale_first = bool(params["unscale_first"])
    g, c = float(g_text), float(c_text)
    w = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([w], lr=0.0)
    scaler = torch.amp.GradScaler("cpu", init_scale=float(scale))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = (w * g).sum()  # d loss / d w = g: the true gradient norm is g
        scaler.scale(loss).backward()
        if unscale_first:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_([w], max_norm=c)
        else:
            torch.nn.utils.clip_grad_norm_([w], max_norm=c)
            scaler.unscale_(optimizer)
    assert w.grad is not None
    right = float(w.grad.norm().item())
    comment = {"en": f"# the scaler's scale is {scale}", "id": f"# skala scaler: {scale}"}
    src = {}
    for lang in ("en", "id"):
        lines = [
            f"scaler.scale(loss).backward()   {comment[lang]}",
            "scaler.unscale_(optimizer)",
            f"torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm={c_text})",
            "scaler.step(optimizer)",
        ]
        if not unscale_first:
            lines[1], lines[2] = lines[2], lines[1]
        src[lang] = "\n".join(lines)
    prompt = {
        "en": code(src["en"])
        + f"\nThe true (unscaled) gradient norm is {g_text}. What is the gradient "
        "norm when `scaler.step` applies the update? (4 significant digits)",
        "id": code(src["id"])
        + f"\nNorm gradien yang sebenarnya (tanpa skala) adalah {g_text}. Berapa "
        "norm gradien saat `scaler.step` menerapkan update? (4 angka penting)",
    }
    clipped = min(g, c)
    unscaled_twice = right / scale  # what a second division by the scale would leave
    if unscale_first:
        if g > c:
            tail_en, tail_id = (
                f"clips it to max_norm: {four(right)}.",
                f"memotongnya ke max_norm: {four(right)}.",
            )
        else:
            tail_en = f"leaves it alone, since it is below max_norm {c_text}: {four(right)}."
            tail_id = f"membiarkannya, karena di bawah max_norm {c_text}: {four(right)}."
        head = {
            "en": f"unscale_ divides the gradients by the scale {scale} first, so clip_grad_norm_ "
            f"sees the true norm {g_text} and {tail_en}",
            "id": f"unscale_ membagi gradien dengan skala {scale} lebih dulu, jadi clip_grad_norm_ "
            f"melihat norm sebenarnya, {g_text}, dan {tail_id}",
        }
        options = [miss("clip-before-unscale", four(c / scale if g * scale > c else g))]
        options.append(
            miss("clip-sets-norm", four(c)) if g < c else miss("clip-not-applied", four(g))
        )
        options.append(miss("still-scaled", four(clipped * scale)))
        options.append(miss("unscaled-twice", four(unscaled_twice)))
    else:
        head = {
            "en": f"clip_grad_norm_ runs before unscale_, so it sees the scaled norm {g_text} × "
            f"{scale} = {four(g * scale)} and clips that to {c_text}; unscale_ then divides by "
            f"{scale}: {c_text} / {scale} ≈ {four(right)}. The update is far too small; call "
            "scaler.unscale_(optimizer) before clipping.",
            "id": f"clip_grad_norm_ berjalan sebelum unscale_, jadi ia melihat norm yang di-scale, "
            f"{g_text} × {scale} = {four(g * scale)}, dan memotongnya ke {c_text}; lalu unscale_ "
            f"membaginya dengan {scale}: {c_text} / {scale} ≈ {four(right)}. Update-nya jauh terlalu "
            "kecil; panggil scaler.unscale_(optimizer) sebelum clipping.",
        }
        options = [miss("clip-sees-unscaled", four(clipped)), miss("still-scaled", four(c))]
        if g != clipped:
            options.append(miss("clip-not-applied", four(g)))
        options.append(miss("unscaled-twice", four(unscaled_twice)))
    rng.shuffle(options)
    fallback = [
        miss("off-by-one-exponent", four(right * 2)),
        miss("off-by-one-exponent", four(right / 2)),
    ]
    return Draft(prompt, Option(both(four(right))), options + fallback, head)


def four(value: float) -> str:
    """The clip question's numbers: 4 significant digits, all shown (1.000, 0.003906)."""
    return sig_fixed(value, 4)


IMPLS = {
    "gradscaler-scale": (_draw_scaler, scaler_build),
    "clip-unscale": (_draw_clip, clip_build),
}
