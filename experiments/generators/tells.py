"""Tells a test-wise member could exploit in generated questions, counted over many seeds
(torch-free; :mod:`.validate` runs these for ``quiztutor validate``).

A *tell* is a property of a choice that picks the right answer more often than chance:

* ``x2-pair``: the choice is one of a pair where one value is twice the other (the "off
  by one in the exponent" distractor sits next to the answer);
* ``ladder-middle``: the choice is the middle of a ×½ / ×1 / ×2 ladder of choices;
* ``equals-input``: the choice equals a number given in the question (its params).

For each property the rate of the right answer having it is compared with the rate of a
choice picked at random having it (over the same instances); the right answer may exceed
chance by at most :data:`TELL_MARGIN` (5 points). A member who bets on the property then
does no better than one who guesses.

Also here: right answers must vary (at least :data:`MIN_DISTINCT` distinct ones in the
first :data:`DISTINCT_SEEDS` seeds, or every answer of a template's declared small
answer space reached in them), and every percentage shown lies in 0-100 %.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from experiments.generators.instance import Instance

#: How many points above chance a property may pick the right answer (issue 35).
TELL_MARGIN = 0.05
#: The statistics need this many instances to tell a 5-point excess from noise.
MIN_TELL_INSTANCES = 1000
#: Right answers must vary: this many distinct in the first DISTINCT_SEEDS seeds.
MIN_DISTINCT, DISTINCT_SEEDS = 60, 100

_POWER = re.compile(r"^2\^(-?\d+)\s*[=≈]")
_MANT_POW = re.compile(r"^(-?\d+)×2\^(-?\d+)$")
_LEADING = re.compile(r"^([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)(?:\s*(?:%|[A-Za-z]+))?$")

#: A number as a reader sees it: its value and how far the true value may lie from it
#: (half a unit in the last digit shown; 0 for exact forms and whole numbers). Doubles:
#: every exact form a choice uses (a binary value, 2^k, m×2^e, a whole number below 2^53)
#: is one, and the rest carry a radius far above a double's rounding.
Shown = tuple[float, float]


@lru_cache(maxsize=4096)
def choice_value(text: str) -> Shown | None:
    """The finite number a choice shows (``2^5 = 32``, ``3×2^-7``, ``1.5 GB``, ``12.5%``,
    ``0.0625``) with its rounding radius, or None (``inf``, ``nan``, ``torch.float16``)."""
    t = " ".join(text.split())
    try:
        if m := _POWER.match(t):
            return math.ldexp(1.0, int(m.group(1))), 0.0
        if m := _MANT_POW.match(t):
            return math.ldexp(float(int(m.group(1))), int(m.group(2))), 0.0
        if m := _LEADING.match(t):
            d = Decimal(m.group(1))
            exponent = d.as_tuple().exponent
            assert isinstance(exponent, int)
            whole = re.fullmatch(r"[-+]?\d+", m.group(1)) is not None
            value = float(d)
            if not math.isfinite(value):
                return None
            return value, 0.0 if whole else float(Decimal(5).scaleb(exponent - 1))
    except (InvalidOperation, OverflowError):  # a number too large for a double
        return None
    return None


def is_double(big: Shown, small: Shown) -> bool:
    """Whether ``big`` may be exactly twice ``small`` as shown (nonzero, same sign)."""
    (b, hb), (s, hs) = big, small
    if s == 0 or b == 0 or (b > 0) != (s > 0):
        return False
    return abs(b - 2 * s) <= hb + 2 * hs


def param_values(params: Any) -> list[float]:
    """Every number in an instance's params (numbers, numeric strings, lists of them)."""
    out: list[float] = []
    if isinstance(params, bool):
        return out
    if isinstance(params, dict):
        for v in params.values():
            out += param_values(v)
    elif isinstance(params, (list, tuple)):
        for v in params:
            out += param_values(v)
    elif isinstance(params, (int, float)) and math.isfinite(params):
        out.append(float(params))
    elif isinstance(params, str):
        shown = choice_value(params)
        if shown is not None:
            out.append(shown[0])
    return out


Values = Sequence[Shown | None]


def x2_pair(values: Values, _params: list[float]) -> list[bool]:
    """Per choice: whether it is in a pair of choices where one is twice the other."""
    out = [False] * len(values)
    for i, a in enumerate(values):
        for j, b in enumerate(values):
            if i != j and a is not None and b is not None and is_double(a, b):
                out[i] = out[j] = True
    return out


def ladder_middle(values: Values, _params: list[float]) -> list[bool]:
    """Per choice: whether both its half and its double are among the other choices."""
    out = []
    for i, a in enumerate(values):
        others = [b for j, b in enumerate(values) if j != i and b is not None]
        out.append(
            a is not None
            and any(is_double(a, b) for b in others)
            and any(is_double(b, a) for b in others)
        )
    return out


def equals_input(values: Values, params: list[float]) -> list[bool]:
    """Per choice: whether it shows a number given in the question's params."""
    return [v is not None and any(abs(v[0] - p) <= v[1] for p in params) for v in values]


TELLS: dict[str, Callable[[Values, list[float]], list[bool]]] = {
    "x2-pair": x2_pair,
    "ladder-middle": ladder_middle,
    "equals-input": equals_input,
}


def fair(texts: Sequence[str], params: Any) -> bool:
    """Whether no tell singles out ``texts[0]`` (the right answer) among the choices: for
    each tell, the right answer lacks it or every choice has it. Choices assembled so are
    never right more often with a tell than without (see :func:`tell_rates`)."""
    values = [choice_value(t) for t in texts]
    numbers = param_values(params)
    for has in TELLS.values():
        marks = has(values, numbers)
        if marks[0] and not all(marks):
            return False
    return True


def tell_rates(instances: Iterable[Instance]) -> dict[str, tuple[float, float]]:
    """{tell: (rate the right answer has it, rate a random choice has it)}."""
    right = dict.fromkeys(TELLS, 0.0)
    chance = dict.fromkeys(TELLS, 0.0)
    count = 0
    for inst in instances:
        texts = inst.choices["en"]
        if not texts or not 0 <= inst.answer < len(texts):
            continue
        count += 1
        values = [choice_value(t) for t in texts]
        params = param_values(inst.params)
        for name, has in TELLS.items():
            marks = has(values, params)
            right[name] += marks[inst.answer]
            chance[name] += sum(marks) / len(marks)
    if not count:
        return {}
    return {name: (right[name] / count, chance[name] / count) for name in TELLS}


def tell_problems(name: str, instances: Sequence[Instance]) -> list[str]:
    """A line per tell that picks the right answer more than TELL_MARGIN above chance
    (only over MIN_TELL_INSTANCES instances or more: fewer are too noisy)."""
    if len(instances) < MIN_TELL_INSTANCES:
        return []
    out = []
    for tell, (right, chance) in tell_rates(instances).items():
        if right - chance > TELL_MARGIN:
            out.append(
                f"{name}: tell {tell!r}: the right answer has it in {100 * right:.1f}% of "
                f"{len(instances)} instances, a random choice in {100 * chance:.1f}% "
                f"(at most {100 * TELL_MARGIN:.0f} points more allowed)"
            )
    return out


def variety_problems(
    name: str, instances: Sequence[Instance], answer_space: frozenset[str] | None
) -> list[str]:
    """Right answers of the first DISTINCT_SEEDS instances: at least MIN_DISTINCT
    distinct, or every answer of the declared ``answer_space`` (and nothing outside it)."""
    first = [i for i in instances if 0 <= i.answer < len(i.choices["en"])][:DISTINCT_SEEDS]
    if len(first) < DISTINCT_SEEDS:
        return []
    answers = {i.choices["en"][i.answer] for i in first}
    if answer_space is not None:
        out = []
        outside = sorted(answers - answer_space)
        missing = sorted(answer_space - answers)
        if outside:
            out.append(f"{name}: right answers outside its declared answer space: {outside[:5]}")
        if missing:
            out.append(
                f"{name}: {len(missing)} answer(s) of its declared space never right in "
                f"{DISTINCT_SEEDS} seeds: {missing[:5]}"
            )
        return out
    if len(answers) < MIN_DISTINCT:
        return [
            f"{name}: only {len(answers)} distinct right answers in {DISTINCT_SEEDS} seeds "
            f"(at least {MIN_DISTINCT}, or declare a small answer space)"
        ]
    return []


_PERCENT = re.compile(r"([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*%")


def percent_problems(inst: Instance) -> list[str]:
    """Choices that show a percentage outside 0-100 %."""
    out = []
    for text in inst.choices["en"]:
        for m in _PERCENT.finditer(text):
            if not 0 <= Decimal(m.group(1)) <= 100:
                out.append(f"choice {text!r} is a fraction outside 0-100 %")
    return out
