"""Templates about where 16-bit values stop: spacing (ulp), overflow of a product, a
running sum that stalls and ``torch.sum`` of an fp16 tensor (torch).

Every right answer is read back from a torch tensor on the CPU (see :mod:`.rounding`
for the float32-first path ``torch.tensor`` takes).
"""

from __future__ import annotations

import math
import random
from decimal import Decimal
from functools import lru_cache
from typing import Any

import torch

from experiments.generators._torch import (
    FORMATS,
    Format,
    bits_of,
    bracket,
    cast,
    float32,
    step,
    value_of_bits,
)
from experiments.generators.fmt import (
    ASK,
    code,
    decimal_string,
    exact,
    fmt_decimal,
    power_of_two,
    printed,
)
from experiments.generators.instance import Draft, Option, both
from experiments.generators.misconceptions import miss
from experiments.generators.rounding import F16, OTHER, PRECISION, fresh, plain

# --------------------------------------------------------------------------- spacing


def _draw_ulp(rng: random.Random) -> dict[str, Any]:
    dtype = "float16" if rng.random() < 0.6 else "bfloat16"
    r = rng.random()
    if r < 0.2:
        k = rng.randint(-6, 14 if dtype == "float16" else 20)
        x = fmt_decimal(Decimal(2) ** k)
    elif r < 0.35 and dtype == "float16":
        x = plain(rng, -7, -5, max_value=6e-5)
    else:
        x = plain(
            rng,
            -3,
            4 if dtype == "float16" else 7,
            max_value=60000 if dtype == "float16" else math.inf,
        )
    return {"dtype": dtype, "x": x}


def _gap_above(v: float, fmt: Format) -> float:
    return step(v, fmt, 1) - v


def _float32_gap(v: float) -> float:
    t = torch.tensor([v], dtype=torch.float32).view(torch.int32)
    return float((t + 1).view(torch.float32).item()) - v


def ulp_build(params: dict[str, Any], rng: random.Random) -> Draft:
    fmt = FORMATS[params["dtype"]]
    x_text = params["x"]
    v = cast(float(x_text), fmt)
    gap = _gap_above(v, fmt)
    nxt = v + gap  # exact: both are values of the format, and so is their sum
    p, _ = PRECISION[fmt.key]
    eps = 2.0 ** (1 - p)
    label = fmt.label
    prompt = {
        "en": f"What is the smallest {label} value larger than "
        f"`torch.tensor({x_text}, dtype=torch.{fmt.key})`? (Each choice is written exactly, with "
        "as many digits as it needs.)",
        "id": f"Berapa nilai {label} terkecil yang lebih besar dari "
        f"`torch.tensor({x_text}, dtype=torch.{fmt.key})`? (Setiap pilihan ditulis persis, dengan "
        "digit sebanyak yang diperlukan.)",
    }
    stored = exact(v)
    if v < fmt.tiny:
        head = {
            "en": f"{x_text} is stored as {stored}, below {label}'s smallest normal "
            f"{exact(fmt.tiny)}: there the subnormals are evenly spaced, {power_of_two(gap)} apart, "
            "the same spacing as in the lowest normal binade.",
            "id": f"{x_text} disimpan sebagai {stored}, di bawah normal terkecil {label} "
            f"{exact(fmt.tiny)}: di sana subnormal berjarak seragam {power_of_two(gap)}, sama "
            "dengan jarak di binade normal terendah.",
        }
    else:
        e = math.floor(math.log2(v))
        head = {
            "en": f"{x_text} is stored as {stored}, in the binade [2^{e}, 2^{e + 1}). {label} "
            f"keeps {p} significant bits, so there its values are 2^{e} × 2^{1 - p} = "
            f"{power_of_two(gap)} apart: the spacing doubles with every binade.",
            "id": f"{x_text} disimpan sebagai {stored}, di binade [2^{e}, 2^{e + 1}). {label} "
            f"menyimpan {p} bit signifikan, jadi jarak antar-nilainya di sana 2^{e} × 2^{1 - p} "
            f"= {power_of_two(gap)}: jaraknya berlipat dua di setiap binade.",
        }
    head["en"] += f" The next larger value is {stored} + {exact(gap)} = {exact(nxt)}."
    head["id"] += (
        f" Nilai berikutnya yang lebih besar adalah {stored} + {exact(gap)} = {exact(nxt)}."
    )
    first: list[Option] = []
    below = v - step(v, fmt, -1)
    if below != gap:
        first.append(miss("spacing-below", exact(v + below)))
    if v < fmt.tiny:
        shrunk = 2.0 ** (math.floor(math.log2(v)) + 1 - p)
        first.append(miss("subnormal-spacing-shrinks", exact(v + shrunk)))
    pool = [
        miss("fp32-spacing", exact(v + _float32_gap(v)), fmt=label),
        miss("machine-epsilon", exact(v + eps), eps=power_of_two(eps)),
        miss("stored-exactly", fmt_decimal(Decimal(x_text) + Decimal(gap))),
        miss("wrong-spacing", exact(step(v, fmt, 2)), fmt=label),
    ]
    other = OTHER[fmt.key]
    in_other = cast(v, other)
    if other.tiny <= in_other < other.max:
        pool.append(
            miss(
                "wrong-format",
                exact(in_other + _gap_above(in_other, other)),
                fmt=label,
                other=other.label,
            )
        )
    rng.shuffle(pool)
    fallback = [miss("spacing-off-by-factor-2", exact(v + gap / 2))]
    return Draft(prompt, Option(both(exact(nxt))), first + pool + fallback, head)


# --------------------------------------------------------------------------- fp16 multiply


def _draw_multiply(rng: random.Random) -> dict[str, Any]:
    target = math.exp(rng.uniform(math.log(1e4), math.log(1.1e5)))  # about 1 in 5 overflows
    a_digits, b_digits = rng.choice((3, 4)), rng.choice((3, 4))

    def draw_a(r: random.Random) -> str:
        a = r.uniform(10, 999)
        ea = math.floor(math.log10(a))
        return decimal_string(round(a / 10 ** (ea - a_digits + 1)), ea - a_digits + 1)

    a_text = fresh(rng, "float16", draw_a)
    b = target / float(a_text)
    eb = math.floor(math.log10(b))
    b_text = decimal_string(round(b / 10 ** (eb - b_digits + 1)), eb - b_digits + 1)
    return {"a": a_text, "b": b_text}


def multiply_build(params: dict[str, Any], rng: random.Random) -> Draft:
    a_text, b_text = params["a"], params["b"]
    ta = torch.tensor(float(a_text), dtype=torch.float16)
    tb = torch.tensor(float(b_text), dtype=torch.float16)
    right = float((ta * tb).item())
    a16, b16 = float(ta.item()), float(tb.item())
    exact32 = a16 * b16  # the product of two fp16 values is exact in fp32 (22 bits)
    decimal_product = float(Decimal(a_text) * Decimal(b_text))
    src = (
        f"a = torch.tensor({a_text}, dtype=torch.float16)\n"
        f"b = torch.tensor({b_text}, dtype=torch.float16)\n"
        "print((a * b).item())"
    )
    prompt = {lang: code(src) + "\n" + ASK[lang] for lang in ("en", "id")}
    mx = exact(F16.max)
    head = {
        "en": f"a holds {exact(a16)} and b holds {exact(b16)}. Their product, {exact(exact32)}, "
        "is computed exactly and rounded once to fp16: ",
        "id": f"a menyimpan {exact(a16)} dan b menyimpan {exact(b16)}. Hasil kalinya, "
        f"{exact(exact32)}, dihitung persis lalu dibulatkan sekali ke fp16: ",
    }
    options: list[Option] = []
    if math.isinf(right):
        head["en"] += (
            f"it is at or beyond the midpoint 65520 above fp16's largest value {mx}, so the result is inf."
        )
        head["id"] += (
            f"nilainya mencapai atau melewati titik tengah 65520 di atas nilai terbesar fp16, {mx}, jadi hasilnya inf."
        )
        options.append(miss("saturates-fp16", printed(F16.max)))
        pool = [miss("fp32-result", printed(exact32)), miss("overflow-gives-nan", "nan")]
    else:
        head["en"] += f"{printed(right)}."
        head["id"] += f"{printed(right)}."
        if exact32 > F16.max:
            head["en"] += (
                f" It lies above {mx} but below the midpoint 65520, so it rounds down instead of overflowing."
            )
            head["id"] += (
                f" Nilainya di atas {mx} tetapi di bawah titik tengah 65520, jadi dibulatkan turun, bukan overflow."
            )
            options.append(miss("overflows-early", "inf", fmt="fp16", max=mx, mid="65520"))
        lo, hi = bracket(exact32, right, F16)
        if lo != hi:
            other_side = lo if right == hi else hi
            if math.isfinite(other_side):
                options.append(
                    miss("truncates" if other_side < right else "rounds-away", printed(other_side))
                )
        pool = [miss("fp32-result", printed(exact32))]
    pool.append(miss("exact-arithmetic", printed(decimal_product), fmt="fp16"))
    rng.shuffle(pool)
    bf = FORMATS["bfloat16"].dtype
    in_bf16 = float((ta.to(bf) * tb.to(bf)).item())
    fallback = [
        miss("wrong-format", printed(in_bf16), fmt="fp16", other="bf16"),
        miss("off-by-one-exponent", printed(right * 2 if math.isfinite(right) else F16.max / 2)),
    ]
    if math.isfinite(right):
        fallback.append(miss("wrong-spacing", printed(step(right, F16, -2)), fmt="fp16"))
        if right < F16.max:
            fallback.append(miss("wrong-spacing", printed(step(right, F16, 2)), fmt="fp16"))
    return Draft(prompt, Option(both(printed(right))), options + pool + fallback, head)


# --------------------------------------------------------------------------- running sums


@lru_cache(maxsize=64)
def _successors(key: str, step_value: float) -> tuple[int, ...]:
    """For every finite non-negative value of the format (by bit pattern), the bit
    pattern of ``value + step`` computed by torch in that format."""
    fmt = FORMATS[key]
    last = bits_of(fmt.max, fmt)
    view = torch.int16
    values = torch.arange(0, last + 1, dtype=view).view(fmt.dtype)
    sums = values + torch.tensor(step_value, dtype=fmt.dtype)
    return tuple(sums.view(view).tolist())


@lru_cache(maxsize=4096)  # steps repeat across seeds; the walk takes thousands of steps
def running_sum(key: str, step_value: float, n: int) -> tuple[float, int]:
    """(value, additions made before it stopped changing) of n steps of ``s = s + step``."""
    table = _successors(key, step_value)
    i, count = 0, 0
    while count < n:
        j = table[i] if 0 <= i < len(table) else i
        if j == i or j < 0 or j >= len(table):  # stalled, or reached inf
            if j != i:
                return math.inf, count + 1
            break
        i, count = j, count + 1
    return value_of_bits(i, FORMATS[key]), count


#: Where a running sum stops is a power of two (the first binade whose half-spacing
#: exceeds the step): 2^4..2^14, each drawn equally often (the registry's answer space).
STALL_EXPONENTS = range(4, 15)
STALL_LOOPS = 100_000


def _draw_stall(rng: random.Random) -> dict[str, Any]:
    """A dtype and a step of one or two digits whose running sum stops at 2^k, k drawn
    uniformly from STALL_EXPONENTS: the sum stops at the first binade [2^k, 2^(k+1)) whose
    half-spacing 2^(k - bits) is no smaller than the step, so steps are drawn between
    2^(k - bits - 1) and 2^(k - bits) (again until torch agrees, for the digits' rounding)."""
    dtype = "float16" if rng.random() < 0.6 else "bfloat16"
    fmt = FORMATS[dtype]
    bits, _ = PRECISION[dtype]
    k = rng.choice(STALL_EXPONENTS)
    while True:
        s = 2.0 ** (k - bits - 1) * rng.uniform(1.02, 1.98)
        digits = rng.choice((1, 2, 2))
        e = math.floor(math.log10(s)) - digits + 1
        text = decimal_string(max(1, round(s / 10**e)), e)
        if running_sum(dtype, cast(float(text), fmt), STALL_LOOPS)[0] == 2.0**k:
            return {"dtype": dtype, "step": text}


def stall_build(params: dict[str, Any], rng: random.Random) -> Draft:
    fmt = FORMATS[params["dtype"]]
    step_text = params["step"]
    step16 = cast(float(step_text), fmt)
    right, count = running_sum(fmt.key, step16, STALL_LOOPS)
    if count >= STALL_LOOPS or math.isinf(right):
        raise ValueError(f"running sum of {step_text} does not stall within {STALL_LOOPS} steps")
    gap = _gap_above(right, fmt)
    label = fmt.label
    src = (
        f"s = torch.tensor(0.0, dtype=torch.{fmt.key})\n"
        f"step = torch.tensor({step_text}, dtype=torch.{fmt.key})\n"
        f"for _ in range({STALL_LOOPS:_d}):\n"
        "    s = s + step\n"
        "print(s.item())"
    )
    prompt = {lang: code(src) + "\n" + ASK[lang] for lang in ("en", "id")}
    head = {
        "en": f"step holds {exact(step16)}. Every `s + step` is rounded to {label}, and the spacing "
        f"between {label} values grows with s: after {count} additions s = {exact(right)}, where "
        f"the spacing is {power_of_two(gap)}, so {exact(right)} + {exact(step16)} rounds back to "
        f"{exact(right)} and the sum stops growing. torch.sum would accumulate in fp32 instead.",
        "id": f"step menyimpan {exact(step16)}. Setiap `s + step` dibulatkan ke {label}, dan jarak "
        f"antar-nilai {label} membesar seiring s: setelah {count} penjumlahan s = {exact(right)}, "
        f"dengan jarak antar-nilai {power_of_two(gap)}, sehingga {exact(right)} + {exact(step16)} "
        f"dibulatkan kembali ke {exact(right)} dan jumlahnya berhenti bertambah. torch.sum akan "
        "menjumlahkan dalam fp32.",
    }
    total = Decimal(step_text) * STALL_LOOPS
    pool = [
        miss("fp32-accumulator", printed(cast(float32(STALL_LOOPS * step16), fmt)), fmt=label),
        miss("exact-arithmetic", printed(float(total)), fmt=label),
    ]
    other = OTHER[fmt.key]
    other_stall, _ = running_sum(other.key, cast(float(step_text), other), STALL_LOOPS)
    pool.append(miss("wrong-format", printed(other_stall), fmt=label, other=other.label))
    if fmt is F16:
        pool.append(miss("grows-until-overflow", "inf"))
    rng.shuffle(pool)
    fallback = [
        miss("off-by-one-exponent", printed(right * 2)),
        miss("off-by-one-exponent", printed(right / 2)),
    ]
    return Draft(prompt, Option(both(printed(right))), pool + fallback, head)


def _draw_sum(rng: random.Random) -> dict[str, Any]:
    n = rng.randint(1000, 8192)
    target = math.exp(rng.uniform(math.log(1e4), math.log(1.2e5)))  # about 1 in 4 overflows
    v = target / n
    e = math.floor(math.log10(v))

    def draw_v(r: random.Random) -> str:
        digits = r.choice((1, 2, 2, 3))
        return decimal_string(max(1, round(v / 10 ** (e - digits + 1))), e - digits + 1)

    return {"n": n, "v": fresh(rng, "float16", draw_v)}


def sum_build(params: dict[str, Any], rng: random.Random) -> Draft:
    n, v_text = int(params["n"]), params["v"]
    x = torch.full((n,), float(v_text), dtype=torch.float16)
    right = float(x.sum().item())
    v16 = float(x[0].item())
    total = n * v16  # exact: n <= 8192 and v16 has 11 significant bits
    sequential, _ = running_sum("float16", v16, n)
    src = f"x = torch.full(({n},), {v_text}, dtype=torch.float16)\nprint(x.sum().item())"
    prompt = {lang: code(src) + "\n" + ASK[lang] for lang in ("en", "id")}
    head = {
        "en": f"Each element holds {exact(v16)}. torch.sum accumulates an fp16 tensor in fp32 and "
        f"rounds the total, {n} × {exact(v16)} = {exact(total)}, to fp16 once at the end: "
        + (
            "that is at or beyond 65520, so the result overflows to inf."
            if math.isinf(right)
            else f"{printed(right)}."
        )
        + f" Adding the elements one by one in fp16 would end at {printed(sequential)}.",
        "id": f"Setiap elemen menyimpan {exact(v16)}. torch.sum menjumlahkan tensor fp16 dengan "
        f"akumulator fp32 dan membulatkan totalnya, {n} × {exact(v16)} = {exact(total)}, ke fp16 "
        "sekali di akhir: "
        + (
            "nilainya mencapai atau melewati 65520, jadi hasilnya overflow menjadi inf."
            if math.isinf(right)
            else f"{printed(right)}."
        )
        + f" Menjumlahkan elemen satu per satu dalam fp16 akan berakhir di {printed(sequential)}.",
    }
    options: list[Option] = []
    if sequential != right:
        options.append(miss("sequential-fp16-sum", printed(sequential)))
    pool = [miss("exact-arithmetic", printed(float(Decimal(v_text) * n)), fmt="fp16")]
    if math.isinf(right):
        pool += [miss("sum-returns-fp32", printed(total)), miss("saturates-fp16", printed(F16.max))]
    else:
        pool.append(miss("sum-returns-fp32", printed(total)))
        if total > F16.max:
            pool.append(miss("overflows-early", "inf", fmt="fp16", max=exact(F16.max), mid="65520"))
    rng.shuffle(pool)
    if math.isfinite(right):
        fallback = [
            miss("off-by-one-exponent", printed(right * 2)),
            miss("wrong-spacing", printed(step(right, F16, -2)), fmt="fp16"),
            miss("wrong-spacing", printed(step(right, F16, 2)), fmt="fp16"),
        ]
    else:
        fallback = [miss("overflow-gives-nan", "nan")]
    return Draft(prompt, Option(both(printed(right))), options + pool + fallback, head)


IMPLS = {
    "ulp-spacing": (_draw_ulp, ulp_build),
    "fp16-multiply": (_draw_multiply, multiply_build),
    "running-sum-stall": (_draw_stall, stall_build),
    "fp16-sum": (_draw_sum, sum_build),
}
