"""The dtypes two ops return under ``torch.autocast`` on the CPU, observed live (torch).

Which ops autocast lowers differs between devices and torch versions, so the right
answer is whatever this torch reports on the CPU, and the prompt and explanation name
the version. Each question runs two ops, so that its four choices are the four ways the
two results can come out (the lower dtype or float32 each), all of them plausible.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import Any

import torch
import torch.nn.functional as F

from experiments.generators.fmt import code
from experiments.generators.instance import Draft, Option, Text, both
from experiments.generators.misconceptions import miss

Fn = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]

#: op key -> (expression as shown, the inputs it uses, function of (a, b, c))
OPS: dict[str, tuple[str, str, Fn]] = {
    "matmul": ("a @ b", "ab", lambda a, b, c: a @ b),
    "mm": ("torch.mm(a, b)", "ab", lambda a, b, c: torch.mm(a, b)),
    "linear": ("F.linear(a, b)", "ab", lambda a, b, c: F.linear(a, b)),
    "bmm": ("torch.bmm(a[None], b[None])", "ab", lambda a, b, c: torch.bmm(a[None], b[None])),
    "add": ("a + b", "ab", lambda a, b, c: a + b),
    "mul": ("a * b", "ab", lambda a, b, c: a * b),
    "softmax": ("torch.softmax(a, dim=-1)", "a", lambda a, b, c: torch.softmax(a, dim=-1)),
    "log_softmax": (
        "torch.log_softmax(a, dim=-1)",
        "a",
        lambda a, b, c: torch.log_softmax(a, dim=-1),
    ),
    "sum": ("a.sum()", "a", lambda a, b, c: a.sum()),
    "exp": ("torch.exp(a)", "a", lambda a, b, c: torch.exp(a)),
    "layer_norm": ("F.layer_norm(a, (8,))", "a", lambda a, b, c: F.layer_norm(a, (8,))),
    "mse_loss": ("F.mse_loss(a, b)", "ab", lambda a, b, c: F.mse_loss(a, b)),
    "relu_matmul": ("torch.relu(a @ b)", "ab", lambda a, b, c: torch.relu(a @ b)),
    "matmul_add": ("a @ b + c", "abc", lambda a, b, c: a @ b + c),
    "matmul_cat": ("torch.cat([a @ b, c])", "abc", lambda a, b, c: torch.cat([a @ b, c])),
}
#: Ops whose float32 result comes from type promotion of a lowered matmul with float32 c.
PROMOTED = ("matmul_add", "matmul_cat")

LOW = {"bfloat16": torch.bfloat16, "float16": torch.float16}
F32 = "torch.float32"
VERSION = torch.__version__.split("+")[0]


@cache
def observe(key: str, op: str) -> str:
    """The dtype ``op`` returns for fp32 inputs inside autocast('cpu', dtype=key)."""
    fn = OPS[op][2]
    g = torch.Generator().manual_seed(0)
    a, b, c = (torch.randn(8, 8, generator=g) for _ in range(3))
    with torch.autocast("cpu", dtype=LOW[key]):
        out = fn(a, b, c)
    return str(out.dtype)


def _draw(rng: random.Random) -> dict[str, Any]:
    """A dtype and two different ops, whose results (lowered or float32 each) are drawn
    first, so that each of the four combinations is right equally often."""
    key = rng.choice(tuple(LOW))
    ops: list[str] = []
    for _ in range(2):
        want = rng.choice((f"torch.{key}", F32))
        fitting = [op for op in OPS if observe(key, op) == want and op not in ops]
        ops.append(rng.choice(fitting or [op for op in OPS if op not in ops]))
    return {"dtype": key, "ops": ops}


def _source(key: str, ops: list[str]) -> str:
    used = sorted(set("".join(OPS[op][1] for op in ops)))
    inputs = ", ".join(used) + " = " + ", ".join("torch.randn(8, 8)" for _ in used)
    return (
        f"{inputs}   # float32\n"
        f"with torch.autocast('cpu', dtype=torch.{key}):\n"
        f"    x = {OPS[ops[0]][0]}\n"
        f"    y = {OPS[ops[1]][0]}\n"
        "print(x.dtype, y.dtype)"
    )


def _why(key: str, op: str, got: str) -> Text:
    expr, low = OPS[op][0], f"torch.{key}"
    if op in PROMOTED and got == F32:
        return {
            "en": f"`{expr}`: a @ b runs in {key}, but combining it with the float32 c promotes "
            "the result to float32.",
            "id": f"`{expr}`: a @ b berjalan dalam {key}, tetapi menggabungkannya dengan c yang "
            "float32 menaikkan hasilnya ke float32.",
        }
    if got == low:
        return {
            "en": f"`{expr}` is on CPU autocast's lower-precision list, so its float32 inputs are "
            f"cast to {key} first: {low}.",
            "id": f"`{expr}` ada di daftar presisi rendah autocast CPU, jadi masukan float32-nya "
            f"di-cast ke {key} dulu: {low}.",
        }
    return {
        "en": f"`{expr}` is not on CPU autocast's lower-precision list, so with float32 inputs it "
        f"runs in, and returns, {got}.",
        "id": f"`{expr}` tidak ada di daftar presisi rendah autocast CPU, jadi dengan masukan "
        f"float32 ia berjalan dalam, dan menghasilkan, {got}.",
    }


def _wrong(key: str, ops: list[str], right: list[str], wrong: list[str]) -> Option:
    """The misconception behind predicting ``wrong`` where torch gives ``right``."""
    low = f"torch.{key}"
    text = " ".join(wrong)
    slips = [(op, w) for op, r, w in zip(ops, right, wrong, strict=True) if r != w]
    kinds = {("low" if w == low else "f32") for _, w in slips}
    if len(kinds) == 2:  # one op lowered that is not, and the other way round
        lowered = next(op for op, w in slips if w == F32)
        kept = next(op for op, w in slips if w == low)
        return miss(
            "autocast-lists-swapped", text, lowered=OPS[lowered][0], kept=OPS[kept][0], low=low
        )
    if kinds == {"f32"}:
        return miss("autocast-only-storage", text, low=low)
    promoted = [op for op, _ in slips if op in PROMOTED]
    if promoted:
        return miss("autocast-no-promotion", text, expr=OPS[promoted[0]][0], low=key)
    return miss("autocast-casts-everything", text, low=low)


def autocast_build(params: dict[str, Any], rng: random.Random) -> Draft:
    key, ops = params["dtype"], list(params["ops"])
    right = [observe(key, op) for op in ops]
    low = f"torch.{key}"
    ask = {
        "en": f"What does it print on the CPU with torch {VERSION}?",
        "id": f"Apa yang dicetak di CPU dengan torch {VERSION}?",
    }
    src = _source(key, ops)
    prompt = {lang: code(src) + "\n" + ask[lang] for lang in ("en", "id")}
    whys = [_why(key, op, got) for op, got in zip(ops, right, strict=True)]
    head = {
        "en": f"Observed on the CPU with torch {VERSION}: {' '.join(right)}. "
        + " ".join(w["en"] for w in whys)
        + " The lists differ between CPU and CUDA and between torch versions.",
        "id": f"Diamati di CPU dengan torch {VERSION}: {' '.join(right)}. "
        + " ".join(w["id"] for w in whys)
        + " Daftar ini berbeda antara CPU dan CUDA serta antar-versi torch.",
    }
    wrong = [
        _wrong(key, ops, right, [x, y]) for x in (low, F32) for y in (low, F32) if [x, y] != right
    ]
    rng.shuffle(wrong)
    return Draft(prompt, Option(both(" ".join(right))), wrong, head)


IMPLS = {"autocast-dtype": (_draw, autocast_build)}
