"""Templates about a training schedule: the learning rate for a new batch size, optimizer
steps per epoch and the pipeline bubble (torch).

Where the answer is arithmetic, torch does it on tensors (and, for steps per epoch,
torch's own DistributedSampler and DataLoader count the micro-batches); the tests
check every instance against a plain-Python formula.
"""

from __future__ import annotations

import math
import random
from decimal import Decimal
from typing import Any

import torch
from torch.utils.data import DataLoader, DistributedSampler

from experiments.generators.fmt import decimal_string, near_tie, one_decimal, sig_fixed
from experiments.generators.instance import Draft, Option, both
from experiments.generators.misconceptions import miss

# --------------------------------------------------------------------------- learning rate


def _draw_lr(rng: random.Random) -> dict[str, Any]:
    """An optimizer, a base and a new batch; for SGD drawn again while the linear rule's
    exact answer sits on a tie at 3 digits (0.39 × 1/8 = 0.04875)."""
    optimizer = rng.choice(("SGD", "Adam", "AdamW"))
    while True:
        base_batch = rng.choice((64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048))
        factor = rng.choice((2, 3, 4, 5, 6, 8, 10, 12, 16, 0.5, 0.25, 0.125))
        if optimizer == "SGD":
            base_lr = decimal_string(rng.randint(1, 40), -2)  # 0.01-0.4
        else:
            base_lr = decimal_string(rng.choice((1, 2, 3, 4, 5, 6, 8)), -rng.randint(3, 5))
        new_batch = int(base_batch * factor)
        if optimizer != "SGD" or not near_tie(Decimal(base_lr) * new_batch / base_batch, 3):
            return {
                "optimizer": optimizer,
                "base_lr": base_lr,
                "base_batch": base_batch,
                "new_batch": new_batch,
            }


#: The rule each optimizer's question names (and asks to apply).
LR_RULES = {
    "SGD": {
        "en": "the linear scaling rule (Goyal et al. 2017)",
        "id": "aturan skala linear (Goyal dkk. 2017)",
    },
    "Adam": {
        "en": "the square-root scaling rule (Malladi et al. 2022)",
        "id": "aturan skala akar kuadrat (Malladi dkk. 2022)",
    },
}


def lr_build(params: dict[str, Any], rng: random.Random) -> Draft:
    opt, b0, b1 = params["optimizer"], int(params["base_batch"]), int(params["new_batch"])
    lr0 = torch.tensor(float(params["base_lr"]), dtype=torch.float64)
    ratio = torch.tensor(b1 / b0, dtype=torch.float64)
    linear = float((lr0 * ratio).item())
    sqrt = float((lr0 * ratio.sqrt()).item())
    inv_linear = float((lr0 / ratio).item())
    inv_sqrt = float((lr0 / ratio.sqrt()).item())
    is_sgd = opt == "SGD"
    right = linear if is_sgd else sqrt
    base = params["base_lr"]
    rule = LR_RULES["SGD" if is_sgd else "Adam"]
    prompt = {
        "en": f"A model trains well with {opt} at learning rate {base} and batch size {b0}. "
        f"The batch size becomes {b1}. Which learning rate does {rule['en']} give? "
        "(3 significant digits)",
        "id": f"Sebuah model terlatih baik dengan {opt} pada learning rate {base} dan ukuran batch "
        f"{b0}. Ukuran batch diubah menjadi {b1}. Learning rate berapa yang diberikan "
        f"{rule['id']}? (3 angka penting)",
    }
    three = sig_fixed(right, 3)
    if is_sgd:
        head = {
            "en": f"The linear scaling rule multiplies the learning rate by the batch ratio: "
            f"{base} × {b1}/{b0} = {three}, with a warm-up for large ratios. It is the usual "
            "heuristic for SGD.",
            "id": f"Aturan skala linear mengalikan learning rate dengan rasio batch: "
            f"{base} × {b1}/{b0} = {three}, dengan warm-up untuk rasio besar. Ini heuristik yang "
            "lazim untuk SGD.",
        }
    else:
        head = {
            "en": f"The square-root scaling rule multiplies the learning rate by the square root "
            f"of the batch ratio: {base} × √({b1}/{b0}) = {three}. It is a heuristic proposed for "
            "Adam-type optimizers (the linear rule is also used); check it on a short run.",
            "id": f"Aturan skala akar kuadrat mengalikan learning rate dengan akar rasio batch: "
            f"{base} × √({b1}/{b0}) = {three}. Ini heuristik yang diusulkan untuk optimizer "
            "keluarga Adam (aturan linear juga dipakai); periksa dengan run singkat.",
        }
    options = [
        miss("sqrt-rule-for-sgd", sig_fixed(sqrt, 3))
        if is_sgd
        else miss("linear-rule-for-adam", sig_fixed(linear, 3)),
        miss("lr-unchanged", sig_fixed(float(lr0.item()), 3)),
        miss("inverse-scaling", sig_fixed(inv_linear if is_sgd else inv_sqrt, 3)),
    ]
    rng.shuffle(options)
    fallback = [miss("inverse-scaling", sig_fixed(inv_sqrt if is_sgd else inv_linear, 3))]
    return Draft(prompt, Option(both(three)), options + fallback, head)


# --------------------------------------------------------------------------- steps per epoch


class _Sized(torch.utils.data.Dataset[int]):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> int:
        return i


def _draw_epoch(rng: random.Random) -> dict[str, Any]:
    """Sizes with at least two accumulation windows per GPU (1,008 samples on 16 GPUs in
    batches of 64 make one micro-batch: every distractor would collapse onto 0, 1 or 2)."""
    while True:
        params = {
            "dataset": rng.randint(1000, 200000),
            "gpus": rng.choice((2, 4, 8, 16)),
            "micro_batch": rng.choice((4, 6, 8, 12, 16, 24, 32, 64)),
            "accumulation_steps": rng.randint(2, 16),
        }
        per_gpu = -(-params["dataset"] // params["gpus"])
        if -(-per_gpu // params["micro_batch"]) >= 2 * params["accumulation_steps"]:
            return params


def epoch_build(params: dict[str, Any], rng: random.Random) -> Draft:
    d, gpus, mb, acc = (
        int(params[k]) for k in ("dataset", "gpus", "micro_batch", "accumulation_steps")
    )
    data = _Sized(d)
    sampler: DistributedSampler[int] = DistributedSampler(
        data, num_replicas=gpus, rank=0, shuffle=False, drop_last=False
    )
    loader = DataLoader(data, batch_size=mb, sampler=sampler, drop_last=False)
    per_gpu = len(sampler)
    micro = len(loader)
    right = math.ceil(micro / acc)
    left = micro % acc
    prompt = {
        "en": f"A dataset of {d} samples is split across {gpus} GPUs by DistributedSampler "
        f"(drop_last=False, the default), and each GPU's DataLoader uses batch_size={mb} "
        f"(drop_last=False). The loop calls optimizer.step() after every {acc} micro-batches, "
        "and once more at the end of the epoch if micro-batches are left over. How many "
        "optimizer steps does one epoch take?",
        "id": f"Sebuah dataset berisi {d} sampel dibagi ke {gpus} GPU oleh DistributedSampler "
        f"(drop_last=False, bawaannya), dan DataLoader di tiap GPU memakai batch_size={mb} "
        f"(drop_last=False). Loop memanggil optimizer.step() setiap {acc} micro-batch, dan sekali "
        "lagi di akhir epoch jika masih ada micro-batch yang tersisa. Berapa langkah optimizer "
        "dalam satu epoch?",
    }
    left_en = f", plus one for the {left} left over" if left else ""
    left_id = f", ditambah satu untuk {left} sisanya" if left else ""
    head = {
        "en": f"DistributedSampler gives each GPU ceil({d}/{gpus}) = {per_gpu} samples (padding "
        f"by repeating a few), the DataLoader makes ceil({per_gpu}/{mb}) = {micro} micro-batches "
        f"of them, and stepping every {acc}{left_en} gives ceil({micro}/{acc}) = {right}.",
        "id": f"DistributedSampler memberi tiap GPU ceil({d}/{gpus}) = {per_gpu} sampel (dengan "
        f"mengulang beberapa sampel sebagai padding), DataLoader membaginya menjadi "
        f"ceil({per_gpu}/{mb}) = {micro} micro-batch, dan step setiap {acc}{left_id} memberi "
        f"ceil({micro}/{acc}) = {right}.",
    }
    options = [
        miss("drops-leftover-window", str(micro // acc)),
        miss("forgot-world-size", str(math.ceil(math.ceil(d / mb) / acc))),
        miss("step-per-micro-batch", str(micro)),
        miss("drops-last-micro-batch", str(math.ceil((per_gpu // mb) / acc))),
    ]
    rng.shuffle(options)
    fallback = [
        miss("extra-final-step" if left == 0 else "off-by-one", str(right + 1)),
        miss("off-by-one", str(right - 1)),
    ]
    return Draft(prompt, Option(both(str(right))), options + fallback, head)


# --------------------------------------------------------------------------- pipeline bubble


def _draw_pipeline(rng: random.Random) -> dict[str, Any]:
    return {"stages": rng.randint(3, 16), "micro_batches": rng.randint(2, 64)}


def _percent(numerator: int, denominator: int) -> str:
    return one_decimal(100 * numerator, denominator) + "%"


def pipeline_build(params: dict[str, Any], rng: random.Random) -> Draft:
    p, m = int(params["stages"]), int(params["micro_batches"])
    slots = torch.arange(m + p - 1)
    stage = torch.arange(p)[:, None]
    busy = (slots >= stage) & (slots < stage + m)  # GPipe: stage s runs micro-batch i at slot s + i
    idle, total = int((~busy).sum().item()), busy.numel()
    right = _percent(idle, total)
    prompt = {
        "en": f"A GPipe-style pipeline has {p} stages and splits every batch into {m} "
        "micro-batches; each stage takes the same time per micro-batch. Counting forward "
        "passes only, from the moment the first stage starts to the moment the last stage "
        "finishes, what share of the stages' total time (p stages × the batch's duration) is "
        "idle time? (percent, one decimal)",
        "id": f"Sebuah pipeline bergaya GPipe punya {p} stage dan membagi setiap batch menjadi {m} "
        "micro-batch; setiap stage butuh waktu yang sama per micro-batch. Dengan menghitung "
        "forward pass saja, sejak stage pertama mulai sampai stage terakhir selesai, berapa "
        "bagian waktu menganggur dari total waktu semua stage (p stage × durasi batch)? "
        "(persen, satu desimal)",
    }
    head = {
        "en": f"With equal stage times the schedule takes m + p − 1 = {m + p - 1} slots; each stage "
        f"works in m = {m} of them and idles in p − 1 = {p - 1}, so idle time over total time is "
        f"(p − 1)/(m + p − 1) = {p - 1}/{m + p - 1} = {right} (Huang et al., GPipe, 2019). More "
        'micro-batches shrink it. Megatron-LM\'s "bubble time fraction" (p − 1)/m divides the '
        "same idle time by the ideal (busy) time instead, so it is a different number.",
        "id": f"Dengan waktu stage yang sama, jadwalnya butuh m + p − 1 = {m + p - 1} slot; setiap "
        f"stage bekerja di m = {m} slot dan menganggur di p − 1 = {p - 1}, jadi waktu menganggur "
        f"dibagi total waktu adalah (p − 1)/(m + p − 1) = {p - 1}/{m + p - 1} = {right} (Huang "
        'dkk., GPipe, 2019). Makin banyak micro-batch, makin kecil. "Bubble time fraction" '
        "Megatron-LM, (p − 1)/m, membagi waktu menganggur yang sama dengan waktu ideal (sibuk), "
        "jadi angkanya berbeda.",
    }
    options = [
        miss("bubble-ignores-micro-batches", _percent(p - 1, p)),
        miss("bubble-off-by-one", _percent(p, m + p)),
        miss("bubble-fill-only", _percent(p - 1, 2 * (m + p - 1))),
    ]
    if p - 1 <= m:  # a share of time is at most 100 %: (p-1)/m only where it is one
        options.append(miss("bubble-over-micro-batches", _percent(p - 1, m)))
    rng.shuffle(options)
    fallback = [miss("bubble-one-slot", _percent(1, m + 1))]
    return Draft(prompt, Option(both(right)), options + fallback, head)


IMPLS = {
    "lr-scaling": (_draw_lr, lr_build),
    "steps-per-epoch": (_draw_epoch, epoch_build),
    "pipeline-bubble": (_draw_pipeline, pipeline_build),
}
