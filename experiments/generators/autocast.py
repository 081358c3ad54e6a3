"""The dtype an op returns under ``torch.autocast`` on the CPU, observed live (torch).

Which ops autocast lowers differs between devices and torch versions, so the right
answer is whatever this torch reports on the CPU, and the explanation says so.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import Any

import torch
import torch.nn.functional as F

from experiments.generators.fmt import code
from experiments.generators.instance import Draft, Option, both
from experiments.generators.misconceptions import miss

#: op key -> (expression as shown, function of (a, b, c))
OPS: dict[str, tuple[str, Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]]] = {
    "matmul": ("a @ b", lambda a, b, c: a @ b),
    "mm": ("torch.mm(a, b)", lambda a, b, c: torch.mm(a, b)),
    "linear": ("F.linear(a, b)", lambda a, b, c: F.linear(a, b)),
    "bmm": ("torch.bmm(a[None], b[None])", lambda a, b, c: torch.bmm(a[None], b[None])),
    "add": ("a + b", lambda a, b, c: a + b),
    "mul": ("a * b", lambda a, b, c: a * b),
    "softmax": ("torch.softmax(a, dim=-1)", lambda a, b, c: torch.softmax(a, dim=-1)),
    "log_softmax": ("torch.log_softmax(a, dim=-1)", lambda a, b, c: torch.log_softmax(a, dim=-1)),
    "sum": ("a.sum()", lambda a, b, c: a.sum()),
    "exp": ("torch.exp(a)", lambda a, b, c: torch.exp(a)),
    "layer_norm": ("F.layer_norm(a, (8,))", lambda a, b, c: F.layer_norm(a, (8,))),
    "mse_loss": ("F.mse_loss(a, b)", lambda a, b, c: F.mse_loss(a, b)),
    "relu_matmul": ("torch.relu(a @ b)", lambda a, b, c: torch.relu(a @ b)),
    "matmul_add": ("a @ b + c", lambda a, b, c: a @ b + c),
    "matmul_cat": ("torch.cat([a @ b, c])", lambda a, b, c: torch.cat([a @ b, c])),
}

LOW = {"bfloat16": torch.bfloat16, "float16": torch.float16}


def _draw(rng: random.Random) -> dict[str, Any]:
    return {"dtype": rng.choice(tuple(LOW)), "op": rng.choice(tuple(OPS))}


@cache
def observe(key: str, op: str) -> str:
    """The dtype ``op`` returns for fp32 inputs inside autocast('cpu', dtype=key)."""
    _, fn = OPS[op]
    g = torch.Generator().manual_seed(0)
    a, b, c = (torch.randn(8, 8, generator=g) for _ in range(3))
    with torch.autocast("cpu", dtype=LOW[key]):
        out = fn(a, b, c)
    return str(out.dtype)


def autocast_build(params: dict[str, Any], rng: random.Random) -> Draft:
    key, op = params["dtype"], params["op"]
    expr, _ = OPS[op]
    right = observe(key, op)
    low = f"torch.{key}"
    other = "torch.float16" if key == "bfloat16" else "torch.bfloat16"
    src = (
        "a, b, c = (torch.randn(8, 8) for _ in range(3))   # float32\n"
        f"with torch.autocast('cpu', dtype={low}):\n"
        f"    out = {expr}\n"
        "print(out.dtype)"
    )
    ask = {
        "en": f"What does it print on the CPU? (Observed with torch {torch.__version__}.)",
        "id": f"Apa yang dicetak di CPU? (Diamati dengan torch {torch.__version__}.)",
    }
    prompt = {lang: code(src) + "\n" + ask[lang] for lang in ("en", "id")}
    seen_en = f"Observed on the CPU with torch {torch.__version__}: `{expr}` returned {right}. "
    seen_id = f"Diamati di CPU dengan torch {torch.__version__}: `{expr}` menghasilkan {right}. "
    if op in ("matmul_add", "matmul_cat") and right == "torch.float32":
        why_en = (
            f"a @ b runs in {key} under autocast, but combining it with the float32 c promotes the "
            "result to float32."
        )
        why_id = (
            f"a @ b berjalan dalam {key} di bawah autocast, tetapi menggabungkannya dengan c yang "
            "float32 menaikkan hasilnya ke float32."
        )
    elif right == low:
        why_en = f"The op is on CPU autocast's lower-precision list, so its float32 inputs are cast to {key} first."
        why_id = f"Op ini ada di daftar presisi rendah autocast CPU, jadi masukan float32-nya di-cast ke {key} dulu."
    elif right == "torch.float32":
        why_en = (
            "The op is not on CPU autocast's lower-precision list, so with float32 inputs it runs "
            "in, and returns, float32."
        )
        why_id = (
            "Op ini tidak ada di daftar presisi rendah autocast CPU, jadi dengan masukan float32 ia "
            "berjalan dalam float32 dan menghasilkan float32."
        )
    else:
        why_en = why_id = ""
    tail_en = " The lists differ between CPU and CUDA and between torch versions."
    tail_id = " Daftar ini berbeda antara CPU dan CUDA serta antar-versi torch."
    head = {"en": seen_en + why_en + tail_en, "id": seen_id + why_id + tail_id}
    default = {"en": "torch.bfloat16 on the CPU" if key == "float16" else "torch.float16 on CUDA"}
    default["id"] = default["en"].replace("on the CPU", "di CPU").replace("on CUDA", "di CUDA")
    options: list[Option] = []
    if right == "torch.float32":
        options.append(miss("autocast-casts-everything", low, low=low))
    else:
        options.append(miss("autocast-only-storage", "torch.float32", low=low))
    if right != other:
        options.append(miss("autocast-default-dtype", other, default=default, low=low))
    if right not in (low, "torch.float32", other):
        options.append(miss("autocast-only-storage", "torch.float32", low=low))
    return Draft(prompt, Option(both(right)), options, head)


IMPLS = {"autocast-dtype": (_draw, autocast_build)}
