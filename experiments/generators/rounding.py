"""Templates about rounding to a number format: fp16, bf16, FP8 E4M3 and E5M2 (torch).

Every right answer is read back from a torch tensor on the CPU. ``torch.tensor(x,
dtype=...)`` rounds the Python float to float32 first and then to the 16- or 8-bit
format, both to nearest-even; the explanations teach that path where it matters. The
drawing helpers here (:func:`plain`, :func:`fresh`) serve :mod:`.spacing` too.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

from experiments.generators._torch import (
    FORMATS,
    TORCH_VERSION,
    Format,
    bracket,
    cast,
    float32,
    round_directly,
    step,
)
from experiments.generators.fmt import (
    decimal_string,
    exact,
    fmt_decimal,
    power_of_two,
)
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


# --------------------------------------------------------------------------- drawing


def plain(
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


def fresh(rng: random.Random, key: str, draw: Callable[[random.Random], str]) -> str:
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
        x = fresh(rng, "float16", lambda r: plain(r, -3, 4, neg=0.15, max_value=60000))
    elif r < 0.50:
        n = rng.randint(2049, 65503)
        x = str(n) if rng.random() < 0.7 else f"{n}.5"
    elif r < 0.65:
        x = _fp16_edge(rng)
    elif r < 0.82:
        x = _midpoint(rng, F16, -6, 14)
    else:
        x = plain(rng, -8, -5)
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
        x = fresh(rng, "bfloat16", lambda r: plain(r, -3, 6, neg=0.15))
    elif r < 0.55:
        x = fresh(rng, "bfloat16", lambda r: str(r.randint(257, 2**20)))
    elif r < 0.70:
        x = plain(rng, 5, 8, max_value=1e9)
    elif r < 0.85:
        x = _midpoint(rng, BF16, -6, 20)
    else:
        x = plain(rng, -6, -5)
    return {"x": x}


def _draw_e4m3(rng: random.Random) -> dict[str, Any]:
    r = rng.random()
    if r < 0.55:
        x = fresh(rng, "float8_e4m3fn", lambda r: plain(r, -2, 2, neg=0.15, max_value=440))
    elif r < 0.66:
        x = str(rng.randint(449, 2000)) if rng.random() < 0.7 else plain(rng, 2, 2, max_value=1000)
        if float(x) <= 448:
            x = str(rng.randint(449, 600))
    elif r < 0.80:
        x = _midpoint(rng, E4M3, -6, 8)
    else:
        x = plain(rng, -4, -2)
    return {"x": x}


def _draw_e5m2(rng: random.Random) -> dict[str, Any]:
    r = rng.random()
    if r < 0.62:
        x = fresh(rng, "float8_e5m2", lambda r: plain(r, -3, 4, neg=0.25, max_value=50000))
    elif r < 0.72:
        x = str(rng.randint(57345, 100000))
    elif r < 0.90:
        x = _midpoint(rng, E5M2, -14, 15)
    else:
        x = plain(rng, -6, -5, max_value=6e-5)
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
    version = {"en": "", "id": ""}
    if fmt in (E4M3, E5M2):  # what a cast to FP8 does past the largest value is torch's choice
        version = {
            "en": f" (On the CPU with torch {TORCH_VERSION}.)",
            "id": f" (Di CPU dengan torch {TORCH_VERSION}.)",
        }
    prompt = {
        "en": f"What value does `torch.tensor({x_text}, dtype=torch.{key})` hold?{version['en']} "
        "(Each choice is written exactly, with as many digits as it needs.)",
        "id": f"Nilai apa yang disimpan oleh `torch.tensor({x_text}, dtype=torch.{key})`?"
        f"{version['id']} (Setiap pilihan ditulis persis, dengan digit sebanyak yang diperlukan.)",
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


#: torch's cast to float8_e5m2 does not saturate (checked with torch 2.13 on the CPU, and
#: ml_dtypes agrees); saturating casts exist elsewhere (e.g. NVIDIA Transformer Engine).
_E5M2_NOTE = {
    "en": f" (torch {TORCH_VERSION}'s cast does not saturate, and ml_dtypes agrees; a "
    "saturating FP8 cast, as some libraries offer, would give 57344 instead of inf.)",
    "id": f" (Cast di torch {TORCH_VERSION} tidak menjepit, dan ml_dtypes sama; cast FP8 yang "
    "menjepit, seperti yang ditawarkan beberapa pustaka, akan memberi 57344, bukan inf.)",
}


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
        + (f"below {mid}: {exact(right)}." if math.isfinite(right) else f"not below {mid}: inf.")
        + _E5M2_NOTE["en"] * (fmt is E5M2),
        "id": f"Nilai berhingga terbesar {label} adalah {mx}; nilai grid berikutnya (seandainya "
        f"ada) adalah {nxt}, jadi sebuah nilai dibulatkan turun ke {mx} hanya jika di bawah titik tengah {mid}, dan "
        f"mulai dari situ menjadi inf. torch membulatkan {x_text} ke float32 dulu, {f32_text}, "
        + (
            f"yang di bawah {mid}: {exact(right)}."
            if math.isfinite(right)
            else f"yang tidak di bawah {mid}: inf."
        )
        + _E5M2_NOTE["id"] * (fmt is E5M2),
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


IMPLS = {
    "fp16-round": (_draw_fp16, fp16_round_build),
    "bf16-round": (_draw_bf16, bf16_round_build),
    "fp8-e4m3-round": (_draw_e4m3, e4m3_round_build),
    "fp8-e5m2-round": (_draw_e5m2, e5m2_round_build),
}
