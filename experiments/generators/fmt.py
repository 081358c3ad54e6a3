"""How generated questions write numbers (torch-free).

Decisions, the same in both languages:

* Numbers are written in code notation, the way Python and torch print them: a point
  as the decimal separator and no digit grouping (``65504``, ``0.0999755859375``,
  ``6_738_415_616`` in code). A value then reads the same in ``id`` and ``en`` and can
  be pasted into Python; the bank's written questions do the same ("1.75 GB").
* A value a binary format holds is written **exactly**: :func:`exact` prints the full
  decimal expansion of the binary number (every binary fraction has a finite one), with
  trailing zeros removed; plain notation for 1e-5 <= |v| < 1e16, otherwise ``d.ddde-08``
  like Python's repr. If that would need more than :data:`MAX_DIGITS` significant digits
  it falls back to the (equally exact) ``m×2^e`` with ``m`` odd. Both forms are canonical,
  so two different values never print the same, and ``Decimal(text) == value`` holds
  for every finite value written in decimal.
* What a snippet *prints* is written as Python prints it (:func:`printed`, ``repr``).
* Rounded quantities (GB, learning rates, percentages) say how they were rounded in
  the prompt; choices that collide after rounding are dropped when a question is
  assembled, and :mod:`experiments.generators.validate` checks that none slipped
  through.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

MAX_DIGITS = 24

#: The question of a "what does it print?" snippet.
ASK = {
    "en": "What does it print?",
    "id": "Apa yang dicetak kode ini?",
}


def code(src: str) -> str:
    return f"```python\n{src}\n```"


def fmt_decimal(d: Decimal) -> str:
    """Canonical text of a finite Decimal (no trailing zeros; sci outside 1e-5..1e16)."""
    if d.is_zero():
        return "-0" if d.is_signed() else "0"
    d = d.normalize()
    sign, digits, _ = d.as_tuple()
    adjusted = d.adjusted()
    head = "-" if sign else ""
    if -5 <= adjusted < 16:
        return head + format(abs(d), "f")
    mant = "".join(map(str, digits))
    mant = mant[0] + ("." + mant[1:] if len(mant) > 1 else "")
    return f"{head}{mant}e{adjusted:+03d}"


def exact(value: float) -> str:
    """The exact value of a binary float (fp16/bf16/fp8/fp32/fp64 values are all doubles)."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    d = Decimal(value)  # exact: the binary value's full decimal expansion
    if d.is_zero() or len(d.normalize().as_tuple().digits) <= MAX_DIGITS:
        return fmt_decimal(d)
    m, e = value.as_integer_ratio()  # value = m / e, e a power of two
    exp = -(e.bit_length() - 1)
    while m % 2 == 0:
        m //= 2
        exp += 1
    return f"{m}×2^{exp}"


def printed(value: float) -> str:
    """What ``print(value)`` shows for a Python float (``tensor.item()``)."""
    return repr(float(value))


def power_of_two(value: float) -> str:
    """A power of two as ``2^k = v`` (exact) or ``2^k ≈ v`` (3 significant digits)."""
    k = round(math.log2(value))
    if 2.0**k != value:
        raise ValueError(f"{value!r} is not a power of two")
    text = exact(value)
    if len(text) <= 13 and "×" not in text:
        return f"2^{k} = {text}"
    return f"2^{k} ≈ {value:.3g}"


def one_decimal(numerator: int, denominator: int) -> str:
    """numerator/denominator with one decimal, halves rounded up (1.25 → 1.3)."""
    q = (Decimal(numerator) / Decimal(denominator)).quantize(Decimal("0.1"), ROUND_HALF_UP)
    return format(q, "f")


def sig(value: float, digits: int = 4) -> str:
    """``value`` to ``digits`` significant digits, trailing zeros dropped (``%g`` style)."""
    if value == 0:
        return "0"
    text = f"{value:.{digits}g}"
    if "e" in text:
        mant, exp = text.split("e")
        return f"{mant}e{int(exp):+03d}"
    return text


def sig_fixed(value: float, digits: int = 3) -> str:
    """``value`` to exactly ``digits`` significant digits, trailing zeros kept, as a prompt
    that asks for "3 significant digits" shows every choice: 1.00, 0.100, 7.50e-05."""
    if value == 0:
        return "0." + "0" * (digits - 1) if digits > 1 else "0"
    text = f"{value:#.{digits}g}"
    if "e" in text:
        mant, exp = text.split("e")
        return f"{mant.rstrip('.')}e{int(exp):+03d}"
    return text.rstrip(".")


def near_tie(value: Decimal, digits: int) -> bool:
    """Whether ``value`` lies (within a thousandth of a unit) halfway between two numbers
    of ``digits`` significant digits: rounding it there is ambiguous to a reader (and to
    float arithmetic), so a question asking for those digits draws again."""
    if value == 0:
        return False
    rest = abs(value).scaleb(digits - 1 - value.adjusted()) % 1
    return abs(rest - Decimal("0.5")) <= Decimal("0.001")


def decimal_string(mantissa: int, exponent10: int) -> str:
    """The decimal ``mantissa × 10^exponent10`` written canonically (a param's text)."""
    return fmt_decimal(Decimal(mantissa).scaleb(exponent10))


def code_int(n: int) -> str:
    """An integer as a Python literal with ``_`` grouping: 6_738_415_616."""
    return f"{n:_d}"
