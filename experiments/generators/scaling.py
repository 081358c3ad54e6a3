"""Templates about the loss scale a gradient needs, master weights and Adam in fp16
(torch): they compute with fp16/bf16 tensors on the CPU. GradScaler's own questions are in
:mod:`.gradscaler`.
"""

from __future__ import annotations

import math
import random
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


#: The answers: S = 2^k for k here, each drawn equally often (the registry's answer space).
LOSS_SCALE_EXPONENTS = range(10, 22)


def _draw_loss_scale(rng: random.Random) -> dict[str, Any]:
    """A two-digit gradient that needs S = 2^k, k drawn uniformly: g in (2^(-14-k),
    2^(-13-k)), away from both ends (where fp16's rounding could move the answer)."""
    k = rng.choice(LOSS_SCALE_EXPONENTS)
    g = 2.0 ** (-14 - k) * rng.uniform(1.08, 1.92)
    e = math.floor(math.log10(g)) - 1
    return {"grad": decimal_string(round(g / 10**e), e)}


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
    to_one = int(torch.ceil(-torch.log2(g)).item())  # the first S with g·S >= 1
    to_eps = int(torch.ceil(-10 - torch.log2(g)).item())  # ... with g·S >= 2^-10
    pool = [
        miss("default-scale", power_of_two(2.0**16)),
        miss("off-by-one-exponent", power_of_two(2.0 ** (k + 1))),
        miss("off-by-one-exponent", power_of_two(2.0 ** (k - 1))),
        miss("scale-to-one", power_of_two(2.0**to_one)),
        miss("epsilon-as-threshold", power_of_two(2.0**to_eps)),
    ]
    rng.shuffle(pool)
    fallback = [miss("off-by-one-exponent", power_of_two(2.0 ** (k + 2)))]
    return Draft(prompt, Option(both(power_of_two(2.0**k))), options + pool + fallback, head)


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
    # eps under the square root, as some RMSprop-style code has it
    inside = float((m / (v + eps).sqrt()).item())
    if eps16 != 0 or v16 != 0:
        pool.append(miss("eps-inside-sqrt", printed(inside)))
    m32, v32, eps32 = (t.float() for t in (m, v, eps))
    in_fp32 = float((m32 / (v32.sqrt() + eps32)).item())  # the same fp16 inputs, no fp16 result
    if math.isfinite(in_fp32):
        pool.append(miss("fp32-result", printed(in_fp32)))
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
    "low-precision-update": (_draw_update, update_build),
    "adam-eps-fp16": (_draw_adam, adam_build),
}
