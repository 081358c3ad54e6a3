"""Templates about batches: effective batch, accumulation loops, token losses, learning
rates, steps per epoch and the pipeline bubble (torch).

Where the answer is arithmetic, torch does it on tensors (and, for steps per epoch,
torch's own DistributedSampler and DataLoader count the micro-batches); the tests
check every instance against a plain-Python formula.
"""

from __future__ import annotations

import contextlib
import io
import math
import random
from typing import Any

import torch
from torch.utils.data import DataLoader, DistributedSampler

from experiments.generators.fmt import (
    ASK,
    code,
    decimal_string,
    one_decimal,
    printed,
    sig,
    sig_fixed,
)
from experiments.generators.instance import Draft, Option, both
from experiments.generators.misconceptions import miss

# --------------------------------------------------------------------------- effective batch

BASE_LR, BASE_BATCH = 0.1, 256  # Goyal et al. 2017: lr 0.1 for batch 256 (SGD, ResNet-50)


def _draw_effective(rng: random.Random) -> dict[str, Any]:
    return {
        "gpus": rng.choice((2, 3, 4, 4, 6, 8, 8, 12, 16, 24, 32, 48, 64, 128)),
        "micro_batch": rng.choice((1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 48, 64)),
        "accumulation_steps": rng.randint(2, 32),
    }


def effective_batch_build(params: dict[str, Any], rng: random.Random) -> Draft:
    gpus, mb, acc = (int(params[k]) for k in ("gpus", "micro_batch", "accumulation_steps"))
    right = int(torch.tensor([gpus, mb, acc], dtype=torch.int64).prod().item())
    lr = float(torch.tensor(BASE_LR, dtype=torch.float64) * right / BASE_BATCH)
    prompt = {
        "en": f"Training runs with DDP on {gpus} GPUs. Each GPU's DataLoader has batch_size={mb}, "
        f"and gradients are accumulated over {acc} micro-batches before each optimizer.step(). "
        "How many samples contribute to one optimizer step (the effective batch size)?",
        "id": f"Pelatihan berjalan dengan DDP di {gpus} GPU. DataLoader di tiap GPU memakai "
        f"batch_size={mb}, dan gradien diakumulasi selama {acc} micro-batch sebelum setiap "
        "optimizer.step(). Berapa sampel yang ikut dalam satu langkah optimizer (ukuran batch "
        "efektif)?",
    }
    head = {
        "en": f"Every GPU processes {acc} micro-batches of {mb} before the step, and DDP averages "
        f"the gradients of the {gpus} GPUs: {gpus} × {mb} × {acc} = {right}. Under the linear "
        f"scaling rule (Goyal et al. 2017) a base of lr {BASE_LR} at batch {BASE_BATCH} becomes "
        f"{BASE_LR} × {right}/{BASE_BATCH} = {sig(lr)} (with warm-up).",
        "id": f"Setiap GPU memproses {acc} micro-batch berisi {mb} sebelum step, dan DDP "
        f"merata-ratakan gradien dari semua {gpus} GPU: {gpus} × {mb} × {acc} = {right}. Dengan "
        f"aturan skala linear (Goyal dkk. 2017), lr dasar {BASE_LR} pada batch {BASE_BATCH} "
        f"menjadi {BASE_LR} × {right}/{BASE_BATCH} = {sig(lr)} (dengan warm-up).",
    }
    pool = [
        miss("forgot-world-size", str(mb * acc)),
        miss("forgot-accumulation", str(gpus * mb)),
        miss("off-by-one-accumulation", str(gpus * mb * (acc + 1))),
    ]
    rng.shuffle(pool)
    fallback = [
        miss("world-size-twice", str(gpus * gpus * mb * acc)),
        miss("micro-batch-only", str(mb)),
    ]
    return Draft(prompt, Option(both(str(right))), pool + fallback, head)


# --------------------------------------------------------------------------- accumulation loop


def _draw_accumulation(rng: random.Random) -> dict[str, Any]:
    n = rng.choice((2, 4, 4))
    while True:
        grads = [rng.choice((-1, 1)) * rng.randint(1, 24) / 8 for _ in range(n)]
        total, last = sum(grads), grads[-1]
        values = {
            total,
            total / n,
            last,
            last / n,
            total / n / n,
            total * n,
            last / n / n,
            last * n,
        }
        if total != 0 and len(values) == 8:  # every candidate answer differs from the others
            break
    return {
        "grads": grads,
        "divide": rng.random() < 0.5,
        "zero_grad_inside": rng.random() < 0.35,
    }


def _accumulation_source(grads: list[float], divide: bool, inside: bool, lang: str = "en") -> str:
    listed = ", ".join(repr(float(g)) for g in grads)
    comment = {"en": "# d(loss)/dw of each micro-batch", "id": "# d(loss)/dw tiap micro-batch"}
    lines = [
        "w = torch.zeros(1, requires_grad=True)",
        f"grads = [{listed}]   {comment[lang]}",
    ]
    if divide:  # N only where the loop uses it
        lines.append("N = len(grads)")
    lines.append("for g in grads:")
    if inside:
        lines.append("    w.grad = None")
    lines.append("    loss = g * w.sum()")
    lines.append("    (loss / N).backward()" if divide else "    loss.backward()")
    lines.append("print(w.grad.item())")
    return "\n".join(lines)


def run_snippet(src: str) -> str:
    """Run one of our own generated snippets (never user input) and return what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(src, "<template>", "exec"), {"torch": torch, "__builtins__": __builtins__})
    return out.getvalue().strip()


# The second slip of a distractor that is wrong twice (divide: whether the loop divides).
_DIVISION_WRONG = {
    True: {"en": "forgets that each loss was divided by N", "id": "lupa bahwa tiap loss dibagi N"},
    False: {
        "en": "assumes the loss was divided by N (this loop does not divide)",
        "id": "mengira loss sudah dibagi N (loop ini tidak membaginya)",
    },
}


def accumulation_build(params: dict[str, Any], rng: random.Random) -> Draft:
    grads = [float(g) for g in params["grads"]]
    divide, inside = bool(params["divide"]), bool(params["zero_grad_inside"])
    n = len(grads)
    src = _accumulation_source(grads, divide, inside)
    right = run_snippet(src)
    prompt = {
        lang: code(_accumulation_source(grads, divide, inside, lang)) + "\n" + ASK[lang]
        for lang in ("en", "id")
    }
    total, last = sum(grads), grads[-1]
    if inside:
        what_en = "`w.grad = None` at the top of the loop throws away every micro-batch's gradient but the last"
        what_id = (
            "`w.grad = None` di awal loop membuang gradien setiap micro-batch kecuali yang terakhir"
        )
        expr = f"{last}" + (f" / {n}" if divide else "")
    else:
        what_en = "backward() adds into w.grad, so the micro-batches accumulate"
        what_id = "backward() menambahkan ke w.grad, jadi gradien micro-batch terakumulasi"
        terms = str(grads[0]) + "".join(f" − {-g}" if g < 0 else f" + {g}" for g in grads[1:])
        expr = f"({terms})" + (f" / {n}" if divide else "")
    head = {
        "en": f"{what_en}, and "
        + ("each loss is divided by N" if divide else "no loss is divided by N")
        + f": w.grad = {expr} = {right}.",
        "id": f"{what_id}, dan "
        + ("tiap loss dibagi N" if divide else "tidak ada loss yang dibagi N")
        + f": w.grad = {expr} = {right}.",
    }
    options: list[Option] = []
    if inside:
        options.append(miss("grads-accumulate-anyway", printed(total / n if divide else total)))
        options.append(
            miss(
                "accumulate-anyway-division-wrong",
                printed(total if divide else total / n),
                division=_DIVISION_WRONG[divide],
            )
        )
        options.append(
            miss("forgot-divide-by-n", printed(last))
            if divide
            else miss("assumed-divide-by-n", printed(last / n))
        )
    else:
        options.append(miss("last-micro-batch-only", printed(last / n if divide else last)))
        options.append(
            miss("forgot-divide-by-n", printed(total))
            if divide
            else miss("assumed-divide-by-n", printed(total / n))
        )
        options.append(
            miss(
                "last-only-division-wrong",
                printed(last if divide else last / n),
                division=_DIVISION_WRONG[divide],
            )
        )
    rng.shuffle(options)
    fallback = [
        miss("divided-twice", printed(float(right) / n)),
        miss("scaled-by-n", printed(float(right) * n)),
    ]
    return Draft(prompt, Option(both(right)), options + fallback, head)


# --------------------------------------------------------------------------- uneven tokens


def _draw_tokens(rng: random.Random) -> dict[str, Any]:
    n = rng.randint(2, 4)
    while True:
        tokens = [rng.randint(20, 600) for _ in range(n)]
        means = [rng.randint(150, 420) / 100 for _ in range(n)]
        weighted = sum(m * t for m, t in zip(means, tokens, strict=True)) / sum(tokens)
        average = f"{sum(means) / n:.4f}"
        if (
            max(tokens) >= 2 * min(tokens)
            and abs(weighted - sum(means) / n) >= 0.002
            and len(set(means)) == n  # every micro-batch's loss is a different choice
            and all(average != f"{m:.4f}" for m in means)
        ):
            return {"tokens": tokens, "mean_losses": means}


def tokens_build(params: dict[str, Any], rng: random.Random) -> Draft:
    tokens = [int(t) for t in params["tokens"]]
    means = [float(m) for m in params["mean_losses"]]
    n = len(tokens)
    t = torch.tensor(tokens, dtype=torch.float64)
    m = torch.tensor(means, dtype=torch.float64)
    summed = float((m * t).sum().item())
    right = float((m * t).sum().item() / t.sum().item())
    pairs = list(enumerate(zip(tokens, means, strict=True), start=1))
    rows = "\n".join(f"• {i}: {tok} tokens, mean loss {mean:.2f}" for i, (tok, mean) in pairs)
    rows_id = "\n".join(
        f"• {i}: {tok} token, rata-rata loss {mean:.2f}" for i, (tok, mean) in pairs
    )
    prompt = {
        "en": f"A batch is split into {n} micro-batches with different numbers of (non-padding) "
        f"tokens; each reports its mean token loss:\n{rows}\nWhat is the mean token loss of the "
        "whole batch, the number one big batch would report? (4 decimals)",
        "id": f"Sebuah batch dibagi menjadi {n} micro-batch dengan jumlah token (bukan padding) "
        f"yang berbeda; masing-masing melaporkan rata-rata loss per token:\n{rows_id}\nBerapa "
        "rata-rata loss per token untuk seluruh batch, angka yang akan dilaporkan satu batch besar? "
        "(4 desimal)",
    }
    four = "{:.4f}".format
    head = {
        "en": f"The batch's mean is the total token loss over the total number of tokens: "
        f"Σ mean × tokens / Σ tokens = {summed:.2f} / {sum(tokens)} = {four(right)}. The average "
        f"of the {n} means counts a {min(tokens)}-token micro-batch as much as a "
        f"{max(tokens)}-token one; sum the token losses and divide by the total instead.",
        "id": f"Rata-rata batch adalah total loss token dibagi total jumlah token: "
        f"Σ rata-rata × token / Σ token = {summed:.2f} / {sum(tokens)} = {four(right)}. Rata-rata "
        f"dari {n} rata-rata itu menghitung micro-batch {min(tokens)} token sama beratnya dengan "
        f"yang {max(tokens)} token; jumlahkan loss token lalu bagi dengan totalnya.",
    }
    # Every choice is a mean the batch could have (between the smallest and largest
    # micro-batch mean): no sum of means, no total over a count of micro-batches.
    largest = max(range(n), key=lambda i: tokens[i])
    options = [
        miss("per-micro-batch-means", four(sum(means) / n)),
        miss("last-logged-loss", four(means[-1])),
        miss("first-logged-loss", four(means[0])),
    ]
    rng.shuffle(options)
    fallback = [miss("largest-micro-batch-loss", four(means[largest]))]
    return Draft(prompt, Option(both(four(right))), options + fallback, head)


# --------------------------------------------------------------------------- learning rate


def _draw_lr(rng: random.Random) -> dict[str, Any]:
    optimizer = rng.choice(("SGD", "Adam", "AdamW"))
    base_batch = rng.choice((64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048))
    factor = rng.choice((2, 3, 4, 5, 6, 8, 10, 12, 16, 0.5, 0.25, 0.125))
    if optimizer == "SGD":
        base_lr = decimal_string(rng.randint(1, 40), -2)  # 0.01-0.4
    else:
        base_lr = decimal_string(rng.choice((1, 2, 3, 4, 5, 6, 8)), -rng.randint(3, 5))
    return {
        "optimizer": optimizer,
        "base_lr": base_lr,
        "base_batch": base_batch,
        "new_batch": int(base_batch * factor),
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
    return {
        "dataset": rng.randint(1000, 200000),
        "gpus": rng.choice((2, 4, 8, 16)),
        "micro_batch": rng.choice((4, 6, 8, 12, 16, 24, 32, 64)),
        "accumulation_steps": rng.randint(2, 16),
    }


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
        "micro-batches shrink it. Megatron-LM's \"bubble time fraction\" (p − 1)/m divides the "
        "same idle time by the ideal (busy) time instead, so it is a different number.",
        "id": f"Dengan waktu stage yang sama, jadwalnya butuh m + p − 1 = {m + p - 1} slot; setiap "
        f"stage bekerja di m = {m} slot dan menganggur di p − 1 = {p - 1}, jadi waktu menganggur "
        f"dibagi total waktu adalah (p − 1)/(m + p − 1) = {p - 1}/{m + p - 1} = {right} (Huang "
        "dkk., GPipe, 2019). Makin banyak micro-batch, makin kecil. \"Bubble time fraction\" "
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
    "effective-batch": (_draw_effective, effective_batch_build),
    "accumulation-grad": (_draw_accumulation, accumulation_build),
    "uneven-tokens": (_draw_tokens, tokens_build),
    "lr-scaling": (_draw_lr, lr_build),
    "steps-per-epoch": (_draw_epoch, epoch_build),
    "pipeline-bubble": (_draw_pipeline, pipeline_build),
}
