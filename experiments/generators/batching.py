"""Templates about batches: effective batch, accumulation loops and token losses (torch).

Where the answer is arithmetic, torch does it on tensors; the tests check every instance
against a plain-Python formula. Learning rates, steps per epoch and the pipeline bubble
are in :mod:`.schedule`.
"""

from __future__ import annotations

import contextlib
import io
import random
from typing import Any

import torch

from experiments.generators.fmt import (
    ASK,
    code,
    printed,
    sig,
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


IMPLS = {
    "effective-batch": (_draw_effective, effective_batch_build),
    "accumulation-grad": (_draw_accumulation, accumulation_build),
    "uneven-tokens": (_draw_tokens, tokens_build),
}
