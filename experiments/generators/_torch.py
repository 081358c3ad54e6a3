"""Torch helpers shared by the template families (imported only in the worker/CLI).

Every generated right answer is read back from torch: a value a dtype holds is
``torch.tensor(x, dtype=...)`` itself, and its neighbours on the dtype's grid come
from stepping the tensor's bit pattern by one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import torch

_INT_VIEW = {2: torch.int16, 1: torch.uint8}

#: The torch the answers were read from, as prompts name it ("2.13.0").
TORCH_VERSION = torch.__version__.split("+")[0]


@dataclass(frozen=True)
class Format:
    key: str  # torch attribute name: float16, bfloat16, float8_e4m3fn, float8_e5m2
    label: str  # how the text names it: fp16, bf16, E4M3, E5M2
    dtype: torch.dtype
    max: float
    tiny: float  # smallest normal
    has_inf: bool

    @property
    def smallest_subnormal(self) -> float:
        return value_of_bits(1, self)

    @property
    def overflow_midpoint(self) -> float:
        """Halfway between max and the next step the format would take (ties to even)."""
        below = value_of_bits(bits_of(self.max, self) - 1, self)
        return self.max + (self.max - below) / 2


def _fmt(key: str, label: str, has_inf: bool) -> Format:
    dtype = getattr(torch, key)
    info = torch.finfo(dtype)
    return Format(key, label, dtype, float(info.max), float(info.tiny), has_inf)


FORMATS: dict[str, Format] = {
    "float16": _fmt("float16", "fp16", True),
    "bfloat16": _fmt("bfloat16", "bf16", True),
    "float8_e4m3fn": _fmt("float8_e4m3fn", "E4M3", False),
    "float8_e5m2": _fmt("float8_e5m2", "E5M2", True),
}


def cast(x: float, fmt: Format) -> float:
    """What ``torch.tensor(x, dtype=fmt.dtype)`` holds (the float32-first path)."""
    return float(torch.tensor(x, dtype=fmt.dtype).item())


def cast_many(xs: list[float], fmt: Format) -> list[float]:
    return [float(v) for v in torch.tensor(xs, dtype=fmt.dtype).float().tolist()]


def float32(x: float) -> float:
    return float(torch.tensor(x, dtype=torch.float32).item())


def bits_of(v: float, fmt: Format) -> int:
    """Bit pattern of |v| (v must be representable)."""
    t = torch.tensor([abs(v)], dtype=fmt.dtype).view(_INT_VIEW[fmt.dtype.itemsize])
    return int(t.item())


def value_of_bits(bits: int, fmt: Format) -> float:
    view = _INT_VIEW[fmt.dtype.itemsize]
    return float(torch.tensor([bits], dtype=view).view(fmt.dtype).float().item())


def step(v: float, fmt: Format, n: int = 1) -> float:
    """The value n steps away from representable v, away from zero (n<0: toward zero).

    Past the largest finite value this is inf (or NaN for E4M3, which has no inf).
    """
    sign = -1.0 if math.copysign(1.0, v) < 0 else 1.0
    b = bits_of(v, fmt) + n
    if b < 0:
        return -sign * value_of_bits(-b, fmt)
    return sign * value_of_bits(b, fmt)


def bracket(x: float, v: float, fmt: Format) -> tuple[float, float]:
    """The two grid values around x, given v = the rounding of x (one of them)."""
    if x == v:
        return v, v
    if abs(x) > abs(v):
        return v, step(v, fmt, 1)
    return step(v, fmt, -1), v


def is_even(v: float, fmt: Format) -> bool:
    return bits_of(v, fmt) % 2 == 0


def round_directly(x: float, lo: float, hi: float, fmt: Format) -> float:
    """Round the double x straight to the nearer of lo/hi (ties to even): no float32 step."""
    if lo == hi:
        return lo
    dx, dlo, dhi = Fraction(x), Fraction(lo), Fraction(hi)
    if math.isinf(hi):  # beyond max: compare with the overflow midpoint
        return lo if abs(dx) < Fraction(fmt.overflow_midpoint) else hi
    a, b = abs(dx - dlo), abs(dhi - dx)
    if a != b:
        return lo if a < b else hi
    return lo if is_even(lo, fmt) else hi
