"""Templates about loss scaling, clipping, master weights and Adam in fp16 (torch).

GradScaler questions run a real ``torch.amp.GradScaler('cpu')``; the rest compute
with fp16/bf16 tensors on the CPU.
"""

from __future__ import annotations

import math
import random
import warnings
from decimal import Decimal
from typing import Any

import torch

from experiments.generators._torch import FORMATS, cast, step
from experiments.generators.fmt import (
    ASK,
    code,
    decimal_string,
    exact,
    fmt_decimal,
    power_of_two,
    printed,
    sig,
)
from experiments.generators.instance import Draft, Option, both
from experiments.generators.misconceptions import miss

F16 = FORMATS["float16"]

# --------------------------------------------------------------------------- loss scale


def _draw_loss_scale(rng: random.Random) -> dict[str, Any]:
    mant = rng.randint(10, 99)
    return {"grad": decimal_string(mant, rng.randint(-13, -7))}


def loss_scale_build(params: dict[str, Any], rng: random.Random) -> Draft:
    g_text = params["grad"]
    g = torch.tensor(float(g_text), dtype=torch.float32)
    exponents = torch.arange(0, 64)
    scaled = (g * torch.pow(2.0, exponents.float())).to(torch.float16)
    tiny = torch.finfo(torch.float16).tiny
    k = int(torch.nonzero(scaled >= tiny)[0].item())
    k0 = int(torch.nonzero(scaled > 0)[0].item())
    before = float(scaled[k - 1].item())
    at = float(scaled[k].item())
    prompt = {
        "en": f"A gradient of {g_text} is multiplied by a loss scale S and cast to fp16, as in "
        "`(g * S).to(torch.float16)`. What is the smallest power of two S that makes the result "
        "a normal fp16 number (at least 2^-14 ≈ 6.1e-05), so that it keeps all 11 significant bits?",
        "id": f"Sebuah gradien bernilai {g_text} dikalikan dengan loss scale S lalu di-cast ke fp16, "
        "seperti `(g * S).to(torch.float16)`. Berapa pangkat dua S terkecil yang membuat hasilnya "
        "bilangan fp16 normal (minimal 2^-14 ≈ 6.1e-05), sehingga ke-11 bit signifikannya utuh?",
    }
    zero_en = " (0)" if before == 0 else ""
    head = {
        "en": f"fp16's smallest normal is 2^-14 ≈ 6.1e-05. With S = 2^{k - 1} the cast gives "
        f"{sig(before)}{zero_en}, still below it; with S = 2^{k} it gives {sig(at)}. The gradient "
        f"first becomes nonzero at S = 2^{k0}, but as a subnormal it keeps fewer than 11 bits. "
        "GradScaler searches for such a scale by itself: it starts at 2^16 and halves on overflow.",
        "id": f"Normal terkecil fp16 adalah 2^-14 ≈ 6.1e-05. Dengan S = 2^{k - 1} hasil cast-nya "
        f"{sig(before)}{zero_en}, masih di bawahnya; dengan S = 2^{k} hasilnya {sig(at)}. Gradien "
        f"itu mulai tidak nol pada S = 2^{k0}, tetapi sebagai subnormal bitnya kurang dari 11. "
        "GradScaler mencari skala seperti ini sendiri: mulai dari 2^16 dan dibagi dua saat overflow.",
    }
    options: list[Option] = []
    if k0 != k:
        options.append(miss("subnormals-keep-precision", power_of_two(2.0**k0)))
    pool = [
        miss("default-scale", power_of_two(2.0**16)),
        miss("off-by-one-exponent", power_of_two(2.0 ** (k + 1))),
        miss("off-by-one-exponent", power_of_two(2.0 ** (k - 1))),
    ]
    rng.shuffle(pool)
    fallback = [miss("off-by-one-exponent", power_of_two(2.0 ** (k + 2)))]
    return Draft(prompt, Option(both(power_of_two(2.0**k))), options + pool + fallback, head)


# --------------------------------------------------------------------------- GradScaler


def _draw_scaler(rng: random.Random) -> dict[str, Any]:
    n = rng.randint(8, 14)
    p_overflow = rng.uniform(0.12, 0.35)
    steps = "".join("x" if rng.random() < p_overflow else "o" for _ in range(n))
    return {
        "init_scale": 2 ** rng.randint(8, 16),
        "growth_interval": rng.randint(2, 4),
        "steps": steps,
    }


def run_scaler(init_scale: int, growth_interval: int, steps: str) -> list[float]:
    """The scale after each step of a real GradScaler on the CPU ('x' = inf gradient).

    Each step leaves a scaled gradient in ``w.grad`` (inf for an overflow) as backward of
    a scaled loss would, then runs the scaler's own ``step`` (unscale, inf check, skip)
    and ``update`` (backoff and growth).
    """
    w = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.0)
    scaler = torch.amp.GradScaler(
        "cpu", init_scale=float(init_scale), growth_interval=growth_interval
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
) -> float:
    """GradScaler's rule in plain Python, with switches for the misconceptions."""
    scale, clean = float(init), 0
    for event in steps:
        if event == "x":
            if backoff:
                scale *= 0.5
            if reset_on_overflow:
                clean = 0
        else:
            clean += 1
            if clean >= interval:
                scale *= 2.0
                clean = 0
    return scale


def scaler_build(params: dict[str, Any], rng: random.Random) -> Draft:
    init, gi, steps = int(params["init_scale"]), int(params["growth_interval"]), params["steps"]
    trace = run_scaler(init, gi, steps)
    right = trace[-1]
    marks = " ".join("✓" if e == "o" else "✗" for e in steps)
    src = f"scaler = torch.amp.GradScaler('cpu', init_scale={init}, growth_interval={gi})"
    prompt = {
        "en": code(src) + f"\nTraining then runs {len(steps)} steps, each ending in "
        "`scaler.step(optimizer)` and `scaler.update()`. The gradients were finite (✓) or "
        f"contained inf/NaN (✗) in this order:\n{marks}\n"
        "What does `scaler.get_scale()` return after the last step?",
        "id": code(src) + f"\nLalu pelatihan berjalan {len(steps)} langkah, masing-masing diakhiri "
        "`scaler.step(optimizer)` dan `scaler.update()`. Gradiennya berhingga (✓) atau mengandung "
        f"inf/NaN (✗) dengan urutan ini:\n{marks}\n"
        "Berapa nilai `scaler.get_scale()` setelah langkah terakhir?",
    }
    path = " → ".join(exact(s) for s in [float(init), *trace])
    head = {
        "en": "GradScaler halves the scale on every step whose gradients hold inf/NaN (and skips "
        f"that optimizer.step()), and doubles it after growth_interval = {gi} clean steps in a "
        f"row; either event restarts the count. The scale went: {path}.",
        "id": "GradScaler membagi dua skalanya di setiap langkah yang gradiennya mengandung inf/NaN "
        f"(dan melewati optimizer.step() langkah itu), serta menggandakannya setelah growth_interval "
        f"= {gi} langkah bersih berturut-turut; kedua kejadian itu memulai hitungan dari nol. "
        f"Skalanya berubah: {path}.",
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
    ]
    rng.shuffle(pool)
    fallback = [
        miss("off-by-one-exponent", exact(right * 2)),
        miss("off-by-one-exponent", exact(right / 2)),
    ]
    return Draft(prompt, Option(both(exact(right))), pool + fallback, head)


# --------------------------------------------------------------------------- clipping


def _draw_clip(rng: random.Random) -> dict[str, Any]:
    return {
        "grad_norm": decimal_string(rng.randint(2, 200), -1),
        "scale": 2 ** rng.randint(8, 16),
        "max_norm": rng.choice(("0.5", "1.0", "2.0", "5.0")),
        "unscale_first": rng.random() < 0.5,
    }


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
    if unscale_first:
        if g > c:
            tail_en, tail_id = (
                f"clips it to max_norm: {sig(right)}.",
                f"memotongnya ke max_norm: {sig(right)}.",
            )
        else:
            tail_en = f"leaves it alone, since it is below max_norm {c_text}: {sig(right)}."
            tail_id = f"membiarkannya, karena di bawah max_norm {c_text}: {sig(right)}."
        head = {
            "en": f"unscale_ divides the gradients by the scale {scale} first, so clip_grad_norm_ "
            f"sees the true norm {g_text} and {tail_en}",
            "id": f"unscale_ membagi gradien dengan skala {scale} lebih dulu, jadi clip_grad_norm_ "
            f"melihat norm sebenarnya, {g_text}, dan {tail_id}",
        }
        options = [miss("clip-before-unscale", sig(c / scale if g * scale > c else g))]
        options.append(
            miss("clip-sets-norm", sig(c)) if g < c else miss("clip-not-applied", sig(g))
        )
        options.append(miss("still-scaled", sig(clipped * scale)))
    else:
        head = {
            "en": f"clip_grad_norm_ runs before unscale_, so it sees the scaled norm {g_text} × "
            f"{scale} = {sig(g * scale)} and clips that to {c_text}; unscale_ then divides by "
            f"{scale}: {c_text} / {scale} ≈ {sig(right)}. The update is far too small; call "
            "scaler.unscale_(optimizer) before clipping.",
            "id": f"clip_grad_norm_ berjalan sebelum unscale_, jadi ia melihat norm yang di-scale, "
            f"{g_text} × {scale} = {sig(g * scale)}, dan memotongnya ke {c_text}; lalu unscale_ "
            f"membaginya dengan {scale}: {c_text} / {scale} ≈ {sig(right)}. Update-nya jauh terlalu "
            "kecil; panggil scaler.unscale_(optimizer) sebelum clipping.",
        }
        options = [miss("clip-sees-unscaled", sig(clipped)), miss("still-scaled", sig(c))]
        if g != clipped:
            options.append(miss("clip-not-applied", sig(g)))
    rng.shuffle(options)
    fallback = [
        miss("off-by-one-exponent", sig(right * 2)),
        miss("off-by-one-exponent", sig(right / 2)),
    ]
    return Draft(prompt, Option(both(sig(right))), options + fallback, head)


# --------------------------------------------------------------------------- 16-bit weights


def _draw_update(rng: random.Random) -> dict[str, Any]:
    dtype = "float16" if rng.random() < 0.55 else "bfloat16"
    bits = 11 if dtype == "float16" else 8
    w = _two_digits(rng, 0.5, 8.0)
    e = math.floor(math.log2(float(w)))
    gap = 2.0 ** (e - bits + 1)
    u = gap * rng.uniform(0.15, 1.6)
    ue = math.floor(math.log10(u))
    update = decimal_string(max(10, round(u / 10 ** (ue - 1))), ue - 1)
    return {"dtype": dtype, "w": w, "update": update, "steps": rng.choice((10, 50, 100))}


def _two_digits(rng: random.Random, lo: float, hi: float) -> str:
    v = rng.uniform(lo, hi)
    e = math.floor(math.log10(v))
    digits = rng.choice((2, 3))
    return decimal_string(round(v / 10 ** (e - digits + 1)), e - digits + 1)


def update_build(params: dict[str, Any], rng: random.Random) -> Draft:
    fmt = FORMATS[params["dtype"]]
    w_text, u_text, n = params["w"], params["update"], int(params["steps"])
    w = torch.tensor(float(w_text), dtype=fmt.dtype)
    u = torch.tensor(float(u_text), dtype=fmt.dtype)
    w0, u16 = float(w.item()), float(u.item())
    moved = 0
    for _ in range(n):
        before = float(w.item())
        w -= u
        if float(w.item()) == before:
            break  # stalled: every later step rounds back to the same value
        moved += 1
    right = float(w.item())
    master32 = torch.tensor(w0, dtype=torch.float32)
    u32 = torch.tensor(u16, dtype=torch.float32)
    for _ in range(n):
        master32 -= u32
    master = float(master32.item())
    label = fmt.label
    src = (
        f"w = torch.tensor({w_text}, dtype=torch.{fmt.key})\n"
        f"u = torch.tensor({u_text}, dtype=torch.{fmt.key})\n"
        f"for _ in range({n}):\n"
        "    w -= u\n"
        "print(w.item())"
    )
    prompt = {lang: code(src) + "\n" + ASK[lang] for lang in ("en", "id")}
    gap_below = right - step(right, fmt, -1)
    head = {
        "en": f"w holds {exact(w0)} and u holds {exact(u16)}. Every `w -= u` rounds to the nearest "
        f"{label} value, so w moved on {moved} of the {n} steps and ends at {printed(right)}.",
        "id": f"w menyimpan {exact(w0)} dan u menyimpan {exact(u16)}. Setiap `w -= u` dibulatkan ke "
        f"nilai {label} terdekat, jadi w bergeser pada {moved} dari {n} langkah dan berakhir di "
        f"{printed(right)}.",
    }
    if moved < n:
        head["en"] += (
            f" There the next value down is {exact(gap_below)} away, and u is no more than half of "
            "that, so the subtraction rounds back to w."
        )
        head["id"] += (
            f" Di sana nilai berikutnya ke bawah berjarak {exact(gap_below)}, dan u tidak lebih dari "
            "separuhnya, jadi pengurangannya dibulatkan kembali ke w."
        )
    head["en"] += (
        f" An fp32 master copy would reach {sig(master, 6)}, which is {printed(cast(master, fmt))} "
        f"in {label}."
    )
    head["id"] += (
        f" Salinan master fp32 akan mencapai {sig(master, 6)}, yaitu {printed(cast(master, fmt))} "
        f"dalam {label}."
    )
    pool = [
        miss("fp32-master", printed(cast(master, fmt)), fmt=label),
        miss("exact-arithmetic", printed(float(Decimal(w_text) - n * Decimal(u_text))), fmt=label),
    ]
    if right != w0:
        pool.append(miss("updates-always-vanish", printed(w0), fmt=label))
    rng.shuffle(pool)
    fallback = [
        miss("wrong-spacing", printed(step(right, fmt, -1)), fmt=label),
        miss("wrong-spacing", printed(step(right, fmt, 1)), fmt=label),
    ]
    return Draft(prompt, Option(both(printed(right))), pool + fallback, head)


# --------------------------------------------------------------------------- Adam's eps


def _draw_adam(rng: random.Random) -> dict[str, Any]:
    eps = rng.choice(("1e-08", "1e-08", "1e-08", "1e-07", "1e-06", "1e-05", "0.0001"))
    m = decimal_string(rng.randint(1, 99), rng.randint(-7, -3))
    r = rng.random()
    if r < 0.45:
        v = "0"
    elif r < 0.6:
        v = decimal_string(rng.randint(1, 9), rng.randint(-12, -9))  # underflows to 0 in fp16
    else:
        v = decimal_string(rng.randint(1, 99), rng.randint(-8, -3))
    return {"m": fmt_decimal(Decimal(m)), "v": v, "eps": eps}


def adam_build(params: dict[str, Any], rng: random.Random) -> Draft:
    m_text, v_text, eps_text = params["m"], params["v"], params["eps"]
    h = torch.float16
    m, v, eps = (torch.tensor(float(t), dtype=h) for t in (m_text, v_text, eps_text))
    den = v.sqrt() + eps
    right = float((m / den).item())
    m16, v16, eps16, den16 = (float(t.item()) for t in (m, v, eps, den))
    first = {"en": "# Adam's first moment", "id": "# momen pertama Adam"}
    second = {"en": "# second moment", "id": "# momen kedua"}
    prompt = {
        lang: code(
            f"m = torch.tensor({m_text}, dtype=torch.float16)   {first[lang]}\n"
            f"v = torch.tensor({v_text}, dtype=torch.float16)   {second[lang]}\n"
            f"eps = torch.tensor({eps_text}, dtype=torch.float16)\n"
            "print((m / (v.sqrt() + eps)).item())"
        )
        + "\n"
        + ASK[lang]
        for lang in ("en", "id")
    }
    head = {
        "en": f"In fp16, m is stored as {sig(m16)}, v as {sig(v16)} and eps as {sig(eps16)}"
        + (" (below half of fp16's smallest subnormal, 2^-24 ≈ 5.96e-08)" if eps16 == 0 else "")
        + f", so the denominator is {sig(den16)} and the result {printed(right)}. Keep Adam's "
        "moments and this division in fp32"
        + (f", where {eps_text} survives." if eps16 == 0 else "."),
        "id": f"Di fp16, m disimpan sebagai {sig(m16)}, v sebagai {sig(v16)}, dan eps sebagai "
        f"{sig(eps16)}"
        + (" (di bawah separuh subnormal terkecil fp16, 2^-24 ≈ 5.96e-08)" if eps16 == 0 else "")
        + f", jadi penyebutnya {sig(den16)} dan hasilnya {printed(right)}. Simpan momen Adam dan "
        "lakukan pembagian ini dalam fp32"
        + (f", tempat {eps_text} tetap bertahan." if eps16 == 0 else "."),
    }
    as32 = float(m16 / (math.sqrt(v16) + float(eps_text)))
    options: list[Option] = []
    pool: list[Option] = []
    if math.isinf(right):
        options.append(miss("division-by-zero-nan", "nan"))
        pool.append(miss("saturates-fp16", printed(F16.max)))
    if eps16 != float(eps_text):
        pool.append(miss("eps-survives", printed(cast(as32, F16)), eps16=sig(eps16)))
    if v16 != 0:
        forgot_sqrt = float((m / (v + eps)).item())
        pool.append(miss("forgot-sqrt", printed(forgot_sqrt)))
    if eps16 != 0 and v16 == 0:
        pool.append(miss("eps-vanishes", "inf", eps=eps_text, eps16=sig(eps16)))
    rng.shuffle(pool)
    fallback = []
    if math.isfinite(right):
        fallback += [
            miss("off-by-one-exponent", printed(right * 2)),
            miss("off-by-one-exponent", printed(right / 2)),
        ]
    fallback.append(miss("update-is-zero", "0.0"))
    return Draft(prompt, Option(both(printed(right))), options + pool + fallback, head)


IMPLS = {
    "loss-scale-needed": (_draw_loss_scale, loss_scale_build),
    "gradscaler-scale": (_draw_scaler, scaler_build),
    "clip-unscale": (_draw_clip, clip_build),
    "low-precision-update": (_draw_update, update_build),
    "adam-eps-fp16": (_draw_adam, adam_build),
}
