"""Templates about number formats: rounding, spacing, overflow and sums (torch).

Every right answer is read back from a torch tensor on the CPU. ``torch.tensor(x,
dtype=...)`` rounds the Python float to float32 first and then to the 16- or 8-bit
format, both to nearest-even; the explanations teach that path where it matters.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
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
    round_directly,
    step,
    value_of_bits,
)
from experiments.generators.fmt import decimal_string, exact, fmt_decimal, power_of_two, printed
from experiments.generators.instance import Draft, Option, Text, both
from experiments.generators.misconceptions import miss

F16, BF16 = FORMATS["float16"], FORMATS["bfloat16"]
E4M3, E5M2 = FORMATS["float8_e4m3fn"], FORMATS["float8_e5m2"]
#: Significand bits (with the implicit one) and the smallest normal exponent.
PRECISION = {
    "float16": (11, -14),
    "bfloat16": (8, -126),
    "float8_e4m3fn": (4, -6),
    "float8_e5m2": (3, -14),
}
OTHER = {"float16": BF16, "bfloat16": F16, "float8_e4m3fn": E5M2, "float8_e5m2": E4M3}

ASK = {
    "en": "What does it print?",
    "id": "Apa yang dicetak kode ini?",
}


def code(src: str) -> str:
    return f"```python\n{src}\n```"


# --------------------------------------------------------------------------- drawing


def _plain(
    rng: random.Random, lo: int, hi: int, *, neg: float = 0.0, max_value: float = math.inf
) -> str:
    """A decimal with 1-5 significant digits whose leading digit is at 10^lo..10^hi."""
    while True:
        digits = rng.choice((1, 2, 2, 3, 3, 4, 5))
        adjusted = rng.randint(lo, hi)
        mant = rng.randrange(10 ** (digits - 1), 10**digits)
        text = decimal_string(mant, adjusted - digits + 1)
        if float(text) < max_value:
            break
    return "-" + text if rng.random() < neg else text


def representable(x_text: str, key: str) -> bool:
    """Whether the decimal is exactly a value of the format (pure Python, for drawing)."""
    p, emin = PRECISION[key]
    v = abs(Fraction(Decimal(x_text)))
    if v == 0:
        return True
    e = max(v.numerator.bit_length() - v.denominator.bit_length(), emin)
    if Fraction(2) ** e > v:
        e = max(e - 1, emin)
    spacing = Fraction(2) ** (e - p + 1)
    return (v / spacing).denominator == 1 and v <= Fraction(FORMATS[key].max)


def _fresh(rng: random.Random, key: str, draw: Callable[[random.Random], str]) -> str:
    """``draw()``, drawn again (mostly) while it gives a value the format holds exactly."""
    x = draw(rng)
    while representable(x, key) and rng.random() < 0.85:
        x = draw(rng)
    return x


def _midpoint(rng: random.Random, fmt: Format, e_lo: int, e_hi: int) -> str:
    """A decimal within a float32 step of the midpoint between two neighbours of ``fmt``.

    The double differs from the midpoint, float32 rounds it onto the midpoint: the tie
    then goes to the even neighbour, which can differ from rounding the double directly.
    """
    p, _ = PRECISION[fmt.key]
    while True:
        e = rng.randint(e_lo, e_hi)
        k = rng.randrange(2 ** (p - 1))
        lo = Decimal(2 ** (p - 1) + k) * Decimal(2) ** (e - p + 1)
        mid = lo + Decimal(2) ** (e - p)
        if mid < Decimal(fmt.max):
            break
    delta = Decimal(1).scaleb(mid.adjusted() - rng.randint(9, 12))
    return fmt_decimal(mid + delta if rng.random() < 0.5 else mid - delta)


def _draw_fp16(rng: random.Random) -> dict[str, Any]:
    r = rng.random()
    if r < 0.35:
        x = _fresh(rng, "float16", lambda r: _plain(r, -3, 4, neg=0.15, max_value=60000))
    elif r < 0.50:
        n = rng.randint(2049, 65503)
        x = str(n) if rng.random() < 0.7 else f"{n}.5"
    elif r < 0.65:
        x = _fp16_edge(rng)
    elif r < 0.82:
        x = _midpoint(rng, F16, -6, 14)
    else:
        x = _plain(rng, -8, -5)
    return {"x": x}


def _fp16_edge(rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return "65519." + "9" * rng.randint(1, 7)
    if kind == 1:
        return str(rng.randint(65505, 65560))
    if kind == 2:
        return decimal_string(rng.randint(655041, 655199), -1)
    return str(rng.choice((65520, 65535, 65536, 65537, 65600, 66000, 70000)))


def _draw_bf16(rng: random.Random) -> dict[str, Any]:
    r = rng.random()
    if r < 0.35:
        x = _fresh(rng, "bfloat16", lambda r: _plain(r, -3, 6, neg=0.15))
    elif r < 0.55:
        x = _fresh(rng, "bfloat16", lambda r: str(r.randint(257, 2**20)))
    elif r < 0.70:
        x = _plain(rng, 5, 8, max_value=1e9)
    elif r < 0.85:
        x = _midpoint(rng, BF16, -6, 20)
    else:
        x = _plain(rng, -6, -5)
    return {"x": x}


def _draw_e4m3(rng: random.Random) -> dict[str, Any]:
    r = rng.random()
    if r < 0.45:
        x = _fresh(rng, "float8_e4m3fn", lambda r: _plain(r, -2, 2, neg=0.15, max_value=440))
    elif r < 0.63:
        x = str(rng.randint(449, 2000)) if rng.random() < 0.7 else _plain(rng, 2, 2, max_value=1000)
        if float(x) <= 448:
            x = str(rng.randint(449, 600))
    elif r < 0.80:
        x = _midpoint(rng, E4M3, -6, 8)
    else:
        x = _plain(rng, -4, -2)
    return {"x": x}


def _draw_e5m2(rng: random.Random) -> dict[str, Any]:
    r = rng.random()
    if r < 0.45:
        x = _fresh(rng, "float8_e5m2", lambda r: _plain(r, -3, 4, neg=0.15, max_value=50000))
    elif r < 0.63:
        x = str(rng.randint(57345, 100000))
    elif r < 0.80:
        x = _midpoint(rng, E5M2, -14, 15)
    else:
        x = _plain(rng, -7, -5)
    return {"x": x}


# --------------------------------------------------------------------------- rounding


def _spacing(lo: float, hi: float) -> str:
    return power_of_two(abs(hi - lo))


def _round_build(fmt: Format, params: dict[str, Any], rng: random.Random) -> Draft:
    x_text = params["x"]
    x = float(x_text)
    right = cast(x, fmt)
    label, key = fmt.label, fmt.key
    other = OTHER[key]
    f32 = float32(x)
    prompt = {
        "en": f"What value does `torch.tensor({x_text}, dtype=torch.{key})` hold? "
        "(Each choice is written exactly, with as many digits as it needs.)",
        "id": f"Nilai apa yang disimpan oleh `torch.tensor({x_text}, dtype=torch.{key})`? "
        "(Setiap pilihan ditulis persis, dengan digit sebanyak yang diperlukan.)",
    }
    first: list[Option] = []
    pool: list[Option] = []
    fallback: list[Option] = []
    difficulty = 2
    beyond = abs(x) > fmt.max

    if beyond:
        head, first = _overflow(fmt, x_text, x, f32, right)
        difficulty = 2
    else:
        lo, hi = bracket(x, right, fmt)
        direct = round_directly(x, lo, hi, fmt)
        if lo == hi:
            head = {
                "en": f"{x_text} is exactly representable in {label}, so the tensor holds it unchanged.",
                "id": f"{x_text} dapat direpresentasikan persis di {label}, jadi tensor menyimpannya tanpa perubahan.",
            }
            difficulty = 1
        else:
            gap = _spacing(lo, hi)
            head = {
                "en": f"Near {x_text}, {label} values are {gap} apart, so {x_text} lies between "
                f"{exact(lo)} and {exact(hi)}. torch rounds the Python float to float32 first and "
                f"then to the nearer of the two (a tie goes to the one whose last bit is even): "
                f"{exact(right)}.",
                "id": f"Di sekitar {x_text}, jarak antar-nilai {label} adalah {gap}, jadi {x_text} "
                f"berada di antara {exact(lo)} dan {exact(hi)}. torch membulatkan float Python ke "
                f"float32 dulu, lalu ke yang lebih dekat dari keduanya (jika seri, dipilih yang bit "
                f"terakhirnya genap): {exact(right)}.",
            }
            mid = (Decimal(lo) + Decimal(hi)) / 2
            if Decimal(f32) == mid:
                difficulty = 3
                if direct != right:
                    head["en"] += (
                        f" Here float32 lands exactly on the midpoint {fmt_decimal(mid)}, so the "
                        f"tie decides; rounding the double directly would give {exact(direct)}."
                    )
                    head["id"] += (
                        f" Di sini float32 jatuh tepat di titik tengah {fmt_decimal(mid)}, jadi "
                        f"aturan seri yang menentukan; membulatkan double langsung akan memberi "
                        f"{exact(direct)}."
                    )
                else:
                    head["en"] += (
                        f" Here float32 lands exactly on the midpoint {fmt_decimal(mid)}, and the "
                        "tie goes to the even neighbour."
                    )
                    head["id"] += (
                        f" Di sini float32 jatuh tepat di titik tengah {fmt_decimal(mid)}, dan "
                        "seri dimenangkan tetangga yang genap."
                    )
            if abs(right) < fmt.tiny:
                sub = power_of_two(fmt.smallest_subnormal)
                head["en"] += (
                    f" Below the smallest normal, {exact(fmt.tiny)}, {label} has subnormals, "
                    f"evenly spaced {sub} apart."
                )
                head["id"] += (
                    f" Di bawah normal terkecil, {exact(fmt.tiny)}, {label} punya subnormal "
                    f"dengan jarak seragam {sub}."
                )
            if direct != right:
                first.append(miss("rounded-directly", exact(direct), fmt=label))
            other_side = lo if right == hi else hi
            if abs(other_side) < abs(right):
                first.append(miss("truncates", exact(other_side)))
            else:
                first.append(miss("rounds-away", exact(other_side)))
            if right != 0 and abs(right) < fmt.tiny:
                first.append(miss("no-subnormals", "0", tiny=exact(fmt.tiny)))
        if right != 0:
            pool.append(
                miss("off-by-one-exponent", exact(right * 2 if rng.random() < 0.5 else right / 2))
            )
            fallback.append(miss("wrong-spacing", exact(step(right, fmt, 2)), fmt=label))
            fallback.append(miss("wrong-spacing", exact(step(right, fmt, -2)), fmt=label))
        else:
            fallback.append(miss("wrong-spacing", exact(step(right, fmt, 2)), fmt=label))

    # Misconceptions every regime can draw from, in a seeded order.
    in_other = cast(x, other)
    if "×" in exact(in_other):  # too many digits to read as a choice (a tiny bf16 value)
        pass
    elif key == "bfloat16" and (math.isinf(in_other) or abs(in_other) < F16.tiny):
        pool.append(miss("bf16-has-fp16-range", exact(in_other), other=other.label))
    else:
        pool.append(miss("wrong-format", exact(in_other), fmt=label, other=other.label))
    pool.append(miss("stored-exactly", x_text))
    rng.shuffle(pool)
    explanation = head
    return Draft(
        prompt, Option(both(exact(right))), first + pool + fallback, explanation, difficulty
    )


def _overflow(
    fmt: Format, x_text: str, x: float, f32: float, right: float
) -> tuple[Text, list[Option]]:
    label = fmt.label
    mx, mid = exact(fmt.max), exact(fmt.overflow_midpoint)
    nxt = exact(2 * fmt.overflow_midpoint - fmt.max)
    f32_text = exact(f32)
    fields = {"fmt": label, "max": mx, "mid": mid, "next": nxt}
    options: list[Option] = []
    if fmt is E4M3:
        if right == fmt.max or right == -fmt.max:
            head = {
                "en": f"float8_e4m3fn has no inf: its largest value is {mx}. torch's cast "
                f"saturates, so anything beyond {mx} (after the float32 step) becomes ±{mx}: "
                f"{x_text} gives {exact(right)}. Converters that do not saturate, such as "
                "ml_dtypes, give NaN here.",
                "id": f"float8_e4m3fn tidak punya inf: nilai terbesarnya {mx}. Cast di torch "
                f"menjepit (saturate), jadi semua nilai di atas {mx} (setelah langkah float32) "
                f"menjadi ±{mx}: {x_text} menghasilkan {exact(right)}. Konverter yang tidak "
                "menjepit, seperti ml_dtypes, memberi NaN di sini.",
            }
            options.append(miss("e4m3-has-inf", "inf" if x > 0 else "-inf"))
            options.append(miss("e4m3-overflow-nan", "nan"))
        else:  # a torch whose cast does not saturate: teach what it did
            head = {
                "en": f"float8_e4m3fn has no inf: its largest value is {mx}, and this torch's "
                f"cast turns {x_text}, beyond it, into {exact(right)}.",
                "id": f"float8_e4m3fn tidak punya inf: nilai terbesarnya {mx}, dan cast di torch "
                f"ini mengubah {x_text}, yang melebihinya, menjadi {exact(right)}.",
            }
            options.append(miss("e4m3-has-inf", "inf" if x > 0 else "-inf"))
        options.append(miss("ieee-style-max", "240" if x > 0 else "-240"))
        options.append(miss("beyond-max", nxt, **fields))
        return head, options
    head = {
        "en": f"{label}'s largest finite value is {mx}; the next step of its grid would be {nxt}, "
        f"so a value rounds down to {mx} only below the midpoint {mid}, and from there on it "
        f"overflows to inf. torch first rounds {x_text} to float32, {f32_text}, which is "
        + (f"below {mid}: {exact(right)}." if math.isfinite(right) else f"not below {mid}: inf."),
        "id": f"Nilai berhingga terbesar {label} adalah {mx}; nilai grid berikutnya (seandainya "
        f"ada) adalah {nxt}, jadi sebuah nilai dibulatkan turun ke {mx} hanya jika di bawah titik tengah {mid}, dan "
        f"mulai dari situ menjadi inf. torch membulatkan {x_text} ke float32 dulu, {f32_text}, "
        + (
            f"yang di bawah {mid}: {exact(right)}."
            if math.isfinite(right)
            else f"yang tidak di bawah {mid}: inf."
        ),
    }
    if math.isinf(right):
        direct = fmt.max if abs(x) < fmt.overflow_midpoint else right
        if direct != right:
            options.append(miss("rounded-directly", exact(direct), fmt=label))
        options.append(miss("saturates", mx, **fields))
        options.append(miss("overflow-gives-nan", "nan"))
    else:
        options.append(miss("overflows-early", "inf", **fields))
        options.append(miss("beyond-max", nxt, **fields))
    return head, options


def fp16_round_build(params: dict[str, Any], rng: random.Random) -> Draft:
    return _round_build(F16, params, rng)


def bf16_round_build(params: dict[str, Any], rng: random.Random) -> Draft:
    return _round_build(BF16, params, rng)


def e4m3_round_build(params: dict[str, Any], rng: random.Random) -> Draft:
    return _round_build(E4M3, params, rng)


def e5m2_round_build(params: dict[str, Any], rng: random.Random) -> Draft:
    return _round_build(E5M2, params, rng)


# --------------------------------------------------------------------------- spacing


def _draw_ulp(rng: random.Random) -> dict[str, Any]:
    dtype = "float16" if rng.random() < 0.6 else "bfloat16"
    r = rng.random()
    if r < 0.2:
        k = rng.randint(-6, 14 if dtype == "float16" else 20)
        x = fmt_decimal(Decimal(2) ** k)
    elif r < 0.35 and dtype == "float16":
        x = _plain(rng, -7, -5, max_value=6e-5)
    else:
        x = _plain(
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
    p, _ = PRECISION[fmt.key]
    eps = 2.0 ** (1 - p)
    label = fmt.label
    prompt = {
        "en": f"How far apart are `torch.tensor({x_text}, dtype=torch.{fmt.key})` and the next "
        f"larger {label} value?",
        "id": f"Berapa jarak antara `torch.tensor({x_text}, dtype=torch.{fmt.key})` dan nilai "
        f"{label} berikutnya yang lebih besar?",
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
    first: list[Option] = []
    below = v - step(v, fmt, -1)
    if below != gap:
        first.append(miss("spacing-below", power_of_two(below)))
    if v < fmt.tiny:
        shrunk = 2.0 ** (math.floor(math.log2(v)) + 1 - p)
        first.append(miss("subnormal-spacing-shrinks", power_of_two(shrunk)))
    pool = [
        miss("fp32-spacing", power_of_two(_float32_gap(v)), fmt=label),
        miss("machine-epsilon", power_of_two(eps), eps=power_of_two(eps)),
    ]
    other = OTHER[fmt.key]
    in_other = cast(v, other)
    if other.tiny <= in_other < other.max:
        pool.append(
            miss(
                "wrong-format",
                power_of_two(_gap_above(in_other, other)),
                fmt=label,
                other=other.label,
            )
        )
    rng.shuffle(pool)
    fallback = [
        miss("off-by-one-exponent", power_of_two(gap * 2)),
        miss("off-by-one-exponent", power_of_two(gap / 2)),
    ]
    return Draft(prompt, Option(both(power_of_two(gap))), first + pool + fallback, head)


# --------------------------------------------------------------------------- fp16 multiply


def _draw_multiply(rng: random.Random) -> dict[str, Any]:
    target = math.exp(rng.uniform(math.log(2e4), math.log(2e5)))
    a_digits, b_digits = rng.choice((3, 4)), rng.choice((3, 4))

    def draw_a(r: random.Random) -> str:
        a = r.uniform(10, 999)
        ea = math.floor(math.log10(a))
        return decimal_string(round(a / 10 ** (ea - a_digits + 1)), ea - a_digits + 1)

    a_text = _fresh(rng, "float16", draw_a)
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


def _draw_stall(rng: random.Random) -> dict[str, Any]:
    dtype = "float16" if rng.random() < 0.65 else "bfloat16"
    if rng.random() < 0.2:
        s = fmt_decimal(Decimal(2) ** rng.randint(-3, 1))
    else:
        digits = rng.choice((1, 2))
        s = decimal_string(
            rng.randrange(10 ** (digits - 1), 10**digits),
            rng.randint(-3 if dtype == "float16" else -2, 0) - digits + 1,
        )
    return {"dtype": dtype, "step": s}


STALL_LOOPS = 100_000


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
    target = math.exp(rng.uniform(math.log(1e4), math.log(2.5e5)))
    v = target / n
    e = math.floor(math.log10(v))

    def draw_v(r: random.Random) -> str:
        digits = r.choice((1, 2, 2, 3))
        return decimal_string(max(1, round(v / 10 ** (e - digits + 1))), e - digits + 1)

    return {"n": n, "v": _fresh(rng, "float16", draw_v)}


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
    "fp16-round": (_draw_fp16, fp16_round_build),
    "bf16-round": (_draw_bf16, bf16_round_build),
    "fp8-e4m3-round": (_draw_e4m3, e4m3_round_build),
    "fp8-e5m2-round": (_draw_e5m2, e5m2_round_build),
    "ulp-spacing": (_draw_ulp, ulp_build),
    "fp16-multiply": (_draw_multiply, multiply_build),
    "running-sum-stall": (_draw_stall, stall_build),
    "fp16-sum": (_draw_sum, sum_build),
}
