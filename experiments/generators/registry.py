"""Torch-free list of the question templates: names, topics, titles, params, modules.

The bot imports this (never torch) to list templates, to check a quiz file's template
references and to validate a name and seed before asking the worker for an instance.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from experiments.catalog import CATALOG, ParamError
from experiments.generators.fmt import exact, power_of_two, printed

#: Seeds are non-negative and fit in a signed 64-bit integer (SQLite, JSON).
SEED_MAX = 2**63 - 1


class UnknownTemplate(ParamError):
    """A template name that is not in the registry."""

    def __init__(self, name: str, available: str) -> None:
        super().__init__(
            f"unknown template {name!r}; available: {available}",
            "generate.unknown",
            name=name,
            available=available,
        )


@dataclass(frozen=True)
class TemplateInfo:
    """Registry entry; ``module`` (which imports torch) is imported only to generate."""

    name: str
    module: str
    topic: str
    difficulty: int
    titles: Mapping[str, str]
    params: tuple[str, ...]
    demo: str | None = None
    n_choices: int = 4
    #: Every right answer the template can give, when there are few (fewer than the 60
    #: distinct answers in 100 seeds asked of the others): `quiztutor validate` then
    #: checks that 100 seeds reach each of them and nothing else.
    answer_space: frozenset[str] | None = None

    def title(self, lang: str = "en") -> str:
        return self.titles.get(lang, self.titles["en"])


def _t(
    name: str,
    family: str,
    topic: str,
    difficulty: int,
    en: str,
    id_: str,
    params: tuple[str, ...],
    demo: str | None,
    answer_space: frozenset[str] | None = None,
) -> TemplateInfo:
    return TemplateInfo(
        name,
        f"experiments.generators.{family}",
        topic,
        difficulty,
        {"en": en, "id": id_},
        params,
        demo,
        answer_space=answer_space,
    )


_ENTRIES = [
    # ---- number formats
    _t(
        "fp16-round",
        "rounding",
        "number-formats",
        2,
        "What a float16 tensor holds",
        "Nilai yang disimpan tensor float16",
        ("x",),
        "formats",
    ),
    _t(
        "bf16-round",
        "rounding",
        "bf16",
        2,
        "What a bfloat16 tensor holds",
        "Nilai yang disimpan tensor bfloat16",
        ("x",),
        "formats",
    ),
    _t(
        "fp8-e4m3-round",
        "rounding",
        "fp8",
        2,
        "Rounding to FP8 E4M3",
        "Pembulatan ke FP8 E4M3",
        ("x",),
        "fp8-formats",
    ),
    _t(
        "fp8-e5m2-round",
        "rounding",
        "fp8",
        2,
        "Rounding to FP8 E5M2",
        "Pembulatan ke FP8 E5M2",
        ("x",),
        "fp8-formats",
    ),
    _t(
        "ulp-spacing",
        "spacing",
        "number-formats",
        2,
        "Spacing of 16-bit values",
        "Jarak antar-nilai 16-bit",
        ("dtype", "x"),
        "formats",
    ),
    _t(
        "fp16-multiply",
        "spacing",
        "overflow",
        2,
        "Overflow of an fp16 product",
        "Overflow pada perkalian fp16",
        ("a", "b"),
        "formats",
    ),
    _t(
        "running-sum-stall",
        "spacing",
        "summation-order",
        3,
        "Where a running 16-bit sum stops",
        "Di mana jumlah berjalan 16-bit berhenti",
        ("dtype", "step"),
        "accumulation-precision",
        answer_space=frozenset(printed(2.0**k) for k in range(4, 15)),
    ),
    _t(
        "fp16-sum",
        "spacing",
        "accumulation-precision",
        2,
        "torch.sum of an fp16 tensor",
        "torch.sum pada tensor fp16",
        ("n", "v"),
        "accumulation-precision",
    ),
    # ---- loss scaling, master weights, optimizer precision
    _t(
        "loss-scale-needed",
        "scaling",
        "loss-scaling",
        2,
        "The loss scale a gradient needs",
        "Loss scale yang dibutuhkan gradien",
        ("grad",),
        "loss-scaling",
        answer_space=frozenset(power_of_two(2.0**k) for k in range(10, 22)),
    ),
    _t(
        "gradscaler-scale",
        "gradscaler",
        "loss-scaling",
        2,
        "GradScaler's scale after a run of steps",
        "Skala GradScaler setelah serangkaian langkah",
        ("init_scale", "growth_interval", "steps"),
        "loss-scaling",
        answer_space=frozenset(exact(2.0**k) for k in range(8, 19)),
    ),
    _t(
        "clip-unscale",
        "gradscaler",
        "grad-clipping",
        3,
        "Clipping with a GradScaler",
        "Clipping dengan GradScaler",
        ("grad_norm", "scale", "max_norm", "unscale_first"),
        "clip-unscale",
    ),
    _t(
        "low-precision-update",
        "scaling",
        "master-weights",
        2,
        "Small updates to 16-bit weights",
        "Update kecil pada bobot 16-bit",
        ("dtype", "w", "update", "steps"),
        "master-weights",
    ),
    _t(
        "adam-eps-fp16",
        "scaling",
        "optimizer-precision",
        3,
        "Adam's denominator in fp16",
        "Penyebut Adam di fp16",
        ("m", "v", "eps"),
        "adam-epsilon",
    ),
    # ---- accumulation and batches
    _t(
        "effective-batch",
        "batching",
        "effective-batch",
        1,
        "Effective batch size",
        "Ukuran batch efektif",
        ("gpus", "micro_batch", "accumulation_steps"),
        "accumulation",
    ),
    _t(
        "accumulation-grad",
        "batching",
        "accumulation-loop",
        2,
        "The gradient after an accumulation loop",
        "Gradien setelah loop akumulasi",
        ("grads", "divide", "zero_grad_inside"),
        "accumulation",
    ),
    _t(
        "uneven-tokens",
        "batching",
        "token-loss",
        2,
        "Mean token loss over uneven micro-batches",
        "Rata-rata loss token pada micro-batch tak rata",
        ("tokens", "mean_losses"),
        "uneven-tokens",
    ),
    _t(
        "lr-scaling",
        "schedule",
        "lr-scaling",
        2,
        "Learning rate for a new batch size",
        "Learning rate untuk ukuran batch baru",
        ("optimizer", "base_lr", "base_batch", "new_batch"),
        None,
    ),
    _t(
        "steps-per-epoch",
        "schedule",
        "epoch-end",
        2,
        "Optimizer steps per epoch",
        "Langkah optimizer per epoch",
        ("dataset", "gpus", "micro_batch", "accumulation_steps"),
        None,
    ),
    _t(
        "pipeline-bubble",
        "schedule",
        "pipeline",
        2,
        "The pipeline bubble",
        "Bubble pada pipeline",
        ("stages", "micro_batches"),
        None,
    ),
    # ---- memory
    _t(
        "adam-mixed-memory",
        "memory",
        "optimizer-memory",
        1,
        "Memory of mixed-precision Adam",
        "Memori Adam mixed precision",
        ("n_params",),
        "speed-memory",
    ),
    _t(
        "zero-memory",
        "memory",
        "zero",
        2,
        "Model states per GPU under ZeRO",
        "Model state per GPU dengan ZeRO",
        ("n_params", "gpus", "stage"),
        None,
    ),
    _t(
        "activation-memory",
        "memory",
        "memory",
        2,
        "Peak memory with accumulation",
        "Memori puncak dengan akumulasi",
        ("n_params", "act_mb_per_sample", "batch", "accumulation_steps"),
        "accumulation",
    ),
    _t(
        "tensor-bytes",
        "memory",
        "memory",
        1,
        "Bytes of a tensor",
        "Ukuran tensor dalam byte",
        ("shape", "dtype"),
        "speed-memory",
    ),
    # ---- autocast
    _t(
        "autocast-dtype",
        "autocast",
        "autocast",
        2,
        "The dtypes ops return under autocast",
        "Dtype keluaran op di bawah autocast",
        ("dtype", "ops"),
        "autocast",
        answer_space=frozenset(
            f"{x} {y}"
            for low in ("torch.bfloat16", "torch.float16")
            for x in (low, "torch.float32")
            for y in (low, "torch.float32")
        ),
    ),
]

#: Every template, in display order.
TEMPLATES: dict[str, TemplateInfo] = {e.name: e for e in _ENTRIES}

#: {template: {lang: title}} and {template: topic} as plain data for the bot.
TITLES: dict[str, dict[str, str]] = {n: dict(e.titles) for n, e in TEMPLATES.items()}
TOPICS: dict[str, str] = {n: e.topic for n, e in TEMPLATES.items()}

assert all(e.demo is None or e.demo in CATALOG for e in _ENTRIES)


def get_template(name: str) -> TemplateInfo:
    if name in TEMPLATES:
        return TEMPLATES[name]
    raise UnknownTemplate(name, ", ".join(TEMPLATES))


def check_seed(seed: Any) -> int:
    """``seed`` as an int in 0..2^63-1, or ParamError (key ``generate.seed_range``)."""
    if isinstance(seed, str) and seed.strip().isdigit():
        seed = int(seed.strip())
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise ParamError(
            f"seed must be an integer from 0 to {SEED_MAX}, got {seed!r}",
            "generate.seed_range",
            value=seed,
            min=0,
            max=SEED_MAX,
        )
    return seed
