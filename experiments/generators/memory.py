"""Templates about memory: mixed-precision Adam, ZeRO, activations, tensor sizes (torch).

Bytes per element come from torch's dtypes (``element_size``); sizes are counted in
torch int64 arithmetic; GB means 10^9 bytes, written with one decimal (halves up).
"""

from __future__ import annotations

import math
import random
from typing import Any

import torch

from experiments.generators.fmt import code_int, one_decimal
from experiments.generators.instance import Draft, Option, both
from experiments.generators.misconceptions import miss

GB = 10**9
GIB = 2**30


def _size(dtype: torch.dtype) -> int:
    return torch.empty((), dtype=dtype, device="meta").element_size()


def adam_bytes_per_param() -> dict[str, int]:
    """Classic mixed precision with Adam, per parameter, from torch's element sizes."""
    h, f = _size(torch.float16), _size(torch.float32)
    return {"weights": h, "grads": h, "master": f, "exp_avg": f, "exp_avg_sq": f}


def _gb(nbytes: int, denominator: int = 1) -> str:
    return one_decimal(nbytes, denominator * GB) + " GB"


def _draw_n(rng: random.Random, lo: float, hi: float) -> int:
    n = math.exp(rng.uniform(math.log(lo), math.log(hi)))
    return int(round(n, -5)) + rng.randint(0, 99_999)


def _draw_adam(rng: random.Random) -> dict[str, Any]:
    return {"n_params": _draw_n(rng, 1e8, 2e11)}


def adam_memory_build(params: dict[str, Any], rng: random.Random) -> Draft:
    n = int(params["n_params"])
    per = adam_bytes_per_param()
    k = sum(per.values())
    total = int((torch.tensor(n, dtype=torch.int64) * k).item())
    prompt = {
        "en": f"A model with `n_params = {code_int(n)}` trains in classic mixed precision with "
        "Adam: fp16 weights and gradients, fp32 master weights and two fp32 Adam moments. How "
        "much memory do these take, activations not counted? (GB = 10^9 bytes, one decimal)",
        "id": f"Sebuah model dengan `n_params = {code_int(n)}` dilatih dengan mixed precision "
        "klasik dan Adam: bobot dan gradien fp16, master weight fp32, serta dua momen Adam fp32. "
        "Berapa memori yang dipakai semua itu, tanpa menghitung aktivasi? (GB = 10^9 byte, satu "
        "desimal)",
    }
    sizes = " + ".join(str(v) for v in per.values())
    head = {
        "en": f"Per parameter: fp16 weights and gradients ({per['weights']} + {per['grads']} bytes), "
        f"fp32 master weights ({per['master']}), and Adam's two fp32 moments ({per['exp_avg']} + "
        f"{per['exp_avg_sq']}): {sizes} = {k} bytes. {n} × {k} = {total} bytes ≈ {_gb(total)} "
        "(Rajbhandari et al., ZeRO, 2019). Plain fp32 Adam also needs 16 bytes: mixed precision "
        "saves activation memory and time, not optimizer state.",
        "id": f"Per parameter: bobot dan gradien fp16 ({per['weights']} + {per['grads']} byte), "
        f"master weight fp32 ({per['master']}), dan dua momen Adam fp32 ({per['exp_avg']} + "
        f"{per['exp_avg_sq']}): {sizes} = {k} byte. {n} × {k} = {total} byte ≈ {_gb(total)} "
        "(Rajbhandari dkk., ZeRO, 2019). Adam fp32 biasa juga butuh 16 byte: mixed precision "
        "menghemat memori aktivasi dan waktu, bukan state optimizer.",
    }
    pool = [
        miss("forgot-master-weights", _gb(n * (k - per["master"]))),
        miss("states-in-fp16", _gb(n * 8)),
        miss("weights-and-grads-only", _gb(n * (per["weights"] + per["grads"]))),
        miss("fp32-grads-too", _gb(n * (k + 4))),
        miss("gib-not-gb", one_decimal(total, GIB) + " GB"),
    ]
    rng.shuffle(pool)
    return Draft(prompt, Option(both(_gb(total))), pool, head)


# --------------------------------------------------------------------------- ZeRO


def _draw_zero(rng: random.Random) -> dict[str, Any]:
    return {
        "n_params": _draw_n(rng, 1e9, 2e11),
        "gpus": rng.choice((4, 8, 16, 32, 64, 128)),
        "stage": rng.randint(1, 3),
    }


def zero_bytes(n: int, gpus: int, stage: int, per: dict[str, int]) -> tuple[int, int]:
    """Model-state bytes per GPU as (numerator, denominator): ZeRO stage 0-3."""
    psi = torch.tensor(n, dtype=torch.int64)
    weights, grads = psi * per["weights"], psi * per["grads"]
    states = psi * (per["master"] + per["exp_avg"] + per["exp_avg_sq"])
    sharded = {0: psi * 0, 1: states, 2: states + grads, 3: states + grads + weights}[stage]
    whole = weights + grads + states - sharded
    return int((whole * gpus + sharded).item()), gpus


def zero_build(params: dict[str, Any], rng: random.Random) -> Draft:
    n, gpus, stage = int(params["n_params"]), int(params["gpus"]), int(params["stage"])
    per = adam_bytes_per_param()
    num, den = zero_bytes(n, gpus, stage, per)
    right = _gb(num, den)
    prompt = {
        "en": "Mixed-precision Adam keeps 16 bytes of model states per parameter: fp16 weights (2) "
        "and gradients (2), fp32 master weights and two moments (12). With ZeRO stage "
        f"{stage} on {gpus} GPUs and `n_params = {code_int(n)}`, how much model-state memory does "
        "each GPU hold? (GB = 10^9 bytes, one decimal)",
        "id": "Adam mixed precision menyimpan 16 byte model state per parameter: bobot fp16 (2) dan "
        "gradien fp16 (2), master weight fp32 dan dua momen (12). Dengan ZeRO tahap "
        f"{stage} di {gpus} GPU dan `n_params = {code_int(n)}`, berapa memori model state yang "
        "disimpan setiap GPU? (GB = 10^9 byte, satu desimal)",
    }
    formula = {1: "2Ψ + 2Ψ + 12Ψ/N", 2: "2Ψ + (2Ψ + 12Ψ)/N", 3: "(2Ψ + 2Ψ + 12Ψ)/N"}[stage]
    head = {
        "en": "ZeRO-1 shards the 12 bytes of optimizer states across the GPUs, ZeRO-2 the gradients "
        f"too, ZeRO-3 the weights as well. Stage {stage}: {formula} with Ψ = {n} and N = {gpus} "
        f"gives {right} per GPU (Rajbhandari et al., ZeRO, 2019).",
        "id": "ZeRO-1 membagi 12 byte state optimizer ke seluruh GPU, ZeRO-2 juga gradiennya, ZeRO-3 "
        f"juga bobotnya. Tahap {stage}: {formula} dengan Ψ = {n} dan N = {gpus} memberi {right} per "
        "GPU (Rajbhandari dkk., ZeRO, 2019).",
    }
    names = {0: "no-sharding", 1: "zero-1-sharding", 2: "zero-2-sharding", 3: "zero-3-sharding"}
    options = [miss(names[s], _gb(*zero_bytes(n, gpus, s, per))) for s in range(4) if s != stage]
    rng.shuffle(options)
    fallback = [miss("gib-not-gb", one_decimal(num, den * GIB) + " GB")]
    return Draft(prompt, Option(both(right)), options + fallback, head)


# --------------------------------------------------------------------------- activations


def _draw_activation(rng: random.Random) -> dict[str, Any]:
    k = rng.choice((2, 4, 8, 16))
    return {
        "n_params": _draw_n(rng, 1e8, 1e10),
        "act_mb_per_sample": rng.choice((50, 120, 200, 350, 500, 800, 1200, 2000)),
        "batch": k * rng.choice((2, 4, 8, 16)),
        "accumulation_steps": k,
    }


def activation_build(params: dict[str, Any], rng: random.Random) -> Draft:
    n, a_mb = int(params["n_params"]), int(params["act_mb_per_sample"])
    batch, k = int(params["batch"]), int(params["accumulation_steps"])
    per = sum(adam_bytes_per_param().values())
    states = int((torch.tensor(n, dtype=torch.int64) * per).item())
    act_per_micro = int((torch.tensor(a_mb * 10**6, dtype=torch.int64) * (batch // k)).item())
    right = _gb(states + act_per_micro)
    prompt = {
        "en": f"A model with `n_params = {code_int(n)}` trains with mixed-precision Adam (16 bytes "
        f"of model states per parameter). Its activations take {a_mb} MB (10^6 bytes) per sample. A batch of "
        f"{batch} samples is processed as {k} accumulated micro-batches of {batch // k}. What is "
        "the peak memory of model states plus activations? (GB = 10^9 bytes, one decimal)",
        "id": f"Sebuah model dengan `n_params = {code_int(n)}` dilatih dengan Adam mixed precision "
        f"(16 byte model state per parameter). Aktivasinya memakan {a_mb} MB (10^6 byte) per sampel. Batch "
        f"berisi {batch} sampel diproses sebagai {k} micro-batch berisi {batch // k} yang "
        "diakumulasi. Berapa memori puncak model state ditambah aktivasi? (GB = 10^9 byte, satu "
        "desimal)",
    }
    head = {
        "en": f"Model states do not depend on the batch: {n} × 16 bytes = {_gb(states)}. Only one "
        f"micro-batch's activations are alive at a time: {batch // k} × {a_mb} MB = "
        f"{_gb(act_per_micro)}. Together {right}; accumulation shrank only the activations, "
        f"by {k}×.",
        "id": f"Model state tidak bergantung pada batch: {n} × 16 byte = {_gb(states)}. Hanya "
        f"aktivasi satu micro-batch yang hidup pada satu waktu: {batch // k} × {a_mb} MB = "
        f"{_gb(act_per_micro)}. Totalnya {right}; akumulasi hanya mengecilkan aktivasi, sebesar "
        f"{k}×.",
    }
    full_act = act_per_micro * k
    options = [
        miss("accumulation-saves-nothing", _gb(states + full_act)),
        miss("accumulation-shrinks-states", _gb(states + act_per_micro * k, k)),
        miss("forgot-model-states", _gb(act_per_micro)),
    ]
    rng.shuffle(options)
    fallback = [miss("gib-not-gb", one_decimal(states + act_per_micro, GIB) + " GB")]
    return Draft(prompt, Option(both(right)), options + fallback, head)


# --------------------------------------------------------------------------- tensor bytes

#: Sizes of real layers: hidden sizes, sequence lengths, vocabularies (GPT-2, Llama).
_SIZES = (
    64, 77, 96, 128, 197, 256, 384, 512, 577, 768, 1000, 1024, 1536, 2048, 3072, 4096, 5120,
    8192, 11008, 14336, 32000, 50257, 128256,
)  # fmt: skip
_DTYPES = ("float32", "float16", "bfloat16", "float8_e4m3fn", "float64", "int8")


def _draw_tensor(rng: random.Random) -> dict[str, Any]:
    dims = rng.choice((2, 2, 3))
    shape = [rng.choice(_SIZES) for _ in range(dims)]
    if dims == 3:
        shape[0] = rng.choice((1, 2, 3, 4, 6, 8, 12, 16, 24, 32))
    return {"shape": shape, "dtype": rng.choice(_DTYPES)}


def tensor_build(params: dict[str, Any], rng: random.Random) -> Draft:
    shape, key = [int(s) for s in params["shape"]], params["dtype"]
    x = torch.empty(shape, dtype=getattr(torch, key), device="meta")  # no memory allocated
    size = x.element_size()
    right = size * x.nelement()
    numel = x.nelement()
    shape_text = ", ".join(str(s) for s in shape)
    prompt = {
        "en": f"How many bytes of data does `x = torch.empty({shape_text}, dtype=torch.{key})` "
        "hold, that is `x.element_size() * x.nelement()`?",
        "id": f"Berapa byte data yang disimpan `x = torch.empty({shape_text}, dtype=torch.{key})`, "
        "yaitu `x.element_size() * x.nelement()`?",
    }
    head = {
        "en": f"torch.{key} takes {size} byte{'s' if size > 1 else ''} per element and the shape "
        f"holds {' × '.join(map(str, shape))} = {numel} elements: {numel} × {size} = {right} bytes.",
        "id": f"torch.{key} memakai {size} byte per elemen dan bentuk itu berisi "
        f"{' × '.join(map(str, shape))} = {numel} elemen: {numel} × {size} = {right} byte.",
    }
    options: list[Option] = [miss("bits-not-bytes", str(right * 8))]
    pool = []
    if size != 4:
        options.append(miss("assumed-fp32", str(numel * 4)))
    for wrong in (1, 2, 4, 8):
        if wrong not in (size, 4):
            pool.append(
                miss(
                    "wrong-element-size",
                    str(numel * wrong),
                    size=_bytes(wrong),
                    dtype=f"torch.{key}",
                    actual=_bytes(size),
                )
            )
    rng.shuffle(pool)
    return Draft(prompt, Option(both(str(right))), options + pool, head)


def _bytes(n: int) -> dict[str, str]:
    """`1 byte`, `2 bytes` (Indonesian has no plural: `2 byte`)."""
    return {"en": f"{n} byte{'s' if n != 1 else ''}", "id": f"{n} byte"}


IMPLS = {
    "adam-mixed-memory": (_draw_adam, adam_memory_build),
    "zero-memory": (_draw_zero, zero_build),
    "activation-memory": (_draw_activation, activation_build),
    "tensor-bytes": (_draw_tensor, tensor_build),
}
