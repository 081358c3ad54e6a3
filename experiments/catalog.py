"""Torch-free description of the demos: names, localized titles, parameter bounds.

The bot process imports this module (never torch) to list demos and to validate
parameters before anything is sent to the worker process.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: Set to "1" (in the worker's environment) to register the ``_sleep``/``_crash``/``_fail``
#: diagnostic experiments used by the DemoRunner tests. Never listed to users.
DIAGNOSTICS_ENV = "QUIZTUTOR_DIAGNOSTICS"

LANGS = ("id", "en")


class ParamError(ValueError):
    """A demo name or parameter outside the catalog's bounds.

    `key` names the message the bot shows (bot.core.texts, in the member's language) and
    `params` fill it; `str()` is the same message in English for the command line.
    """

    def __init__(self, message: str, key: str, **params: Any) -> None:
        super().__init__(message)
        self.key = key
        self.params = params


class UnknownExperiment(ParamError):
    """Raised for a demo name that is not in the catalog."""

    def __init__(self, name: str, available: str) -> None:
        super().__init__(
            f"unknown demo {name!r}; available: {available}",
            "demo.unknown",
            name=name,
            available=available,
        )


@dataclass(frozen=True)
class ParamSpec:
    """One integer parameter with inclusive bounds."""

    name: str
    default: int
    min: int
    max: int
    help: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"default": self.default, "min": self.min, "max": self.max, "help": self.help}

    def validate(self, value: Any, demo: str) -> int:
        # bool is an int subclass; "True" micro-batches is never intended.
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, str) and value.strip().lstrip("-").isdigit():
                value = int(value)
            else:
                raise ParamError(
                    f"{demo}: {self.name} must be an integer, got {value!r}",
                    "demo.param_range",
                    param=self.name,
                    value=value,
                    min=self.min,
                    max=self.max,
                )
        if not self.min <= value <= self.max:
            side = "below the minimum" if value < self.min else "above the maximum"
            bound = self.min if value < self.min else self.max
            raise ParamError(
                f"{demo}: {self.name}={value} is {side} {bound} (allowed {self.min}-{self.max})",
                "demo.param_range",
                param=self.name,
                value=value,
                min=self.min,
                max=self.max,
            )
        return value


@dataclass(frozen=True)
class ExperimentInfo:
    """Catalog entry; ``module`` is imported lazily (it imports torch)."""

    name: str
    module: str
    titles: Mapping[str, str]
    summaries: Mapping[str, str]
    params: tuple[ParamSpec, ...] = ()
    hidden: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def bounds(self) -> dict[str, dict[str, Any]]:
        return {p.name: p.to_dict() for p in self.params}

    @property
    def defaults(self) -> dict[str, int]:
        return {p.name: p.default for p in self.params}

    def title(self, lang: str = "en") -> str:
        return self.titles.get(lang, self.titles["en"])

    def summary(self, lang: str = "en") -> str:
        return self.summaries.get(lang, self.summaries["en"])

    def validate(self, params: Mapping[str, Any] | None = None) -> dict[str, int]:
        """Defaults merged with ``params``; raises ValueError naming the bound."""
        params = dict(params or {})
        specs = {p.name: p for p in self.params}
        unknown = sorted(set(params) - set(specs))
        if unknown:
            allowed = ", ".join(specs) or "none"
            raise ParamError(
                f"{self.name} does not take parameter(s) {', '.join(unknown)} (allowed: {allowed})",
                "demo.param_unused",
                param=unknown[0],
                demo=self.name,
            )
        out = self.defaults
        for key, value in params.items():
            if value is None:  # CLI/bot "not given"
                continue
            out[key] = specs[key].validate(value, self.name)
        return out


def _mb(default: int) -> ParamSpec:
    return ParamSpec("micro_batches", default, 1, 16, "number of micro-batches accumulated")


def _mbs(default: int, minimum: int = 1) -> ParamSpec:
    return ParamSpec("micro_batch_size", default, minimum, 256, "samples per micro-batch")


_ENTRIES = [
    ExperimentInfo(
        "accumulation",
        "experiments.accumulation",
        {
            "en": "Gradient accumulation: right and wrong",
            "id": "Akumulasi gradien: yang benar dan yang salah",
        },
        {
            "en": "Full batch vs N accumulated micro-batches, and two classic bugs "
            "(zero_grad every micro-batch, no loss division).",
            "id": "Satu batch penuh vs N micro-batch yang diakumulasi, plus dua bug klasik "
            "(zero_grad tiap micro-batch, loss tidak dibagi N).",
        },
        (_mb(8), _mbs(4)),
    ),
    ExperimentInfo(
        "loss-scaling",
        "experiments.loss_scaling",
        {"en": "Loss scaling vs fp16 underflow", "id": "Loss scaling vs underflow fp16"},
        {
            "en": "Real gradients in fp16 with and without a GradScaler: how many underflow "
            "to zero, and why bf16 does not need scaling.",
            "id": "Gradien nyata dalam fp16 dengan dan tanpa GradScaler: berapa banyak yang "
            "underflow jadi nol, dan mengapa bf16 tidak perlu scaling.",
        },
    ),
    ExperimentInfo(
        "master-weights",
        "experiments.master_weights",
        {"en": "Why keep fp32 master weights", "id": "Mengapa perlu master weight fp32"},
        {
            "en": "Tiny repeated updates vanish in fp16/bf16 weights (below half an ulp); "
            "an fp32 master copy keeps moving.",
            "id": "Update kecil berulang hilang di bobot fp16/bf16 (di bawah setengah ulp); "
            "salinan master fp32 tetap bergerak.",
        },
    ),
    ExperimentInfo(
        "formats",
        "experiments.formats",
        {"en": "fp32 vs fp16 vs bf16", "id": "fp32 vs fp16 vs bf16"},
        {
            "en": "Bits, range and precision of the three formats, and what telling values "
            "become in each.",
            "id": "Bit, rentang, dan presisi ketiga format, serta apa jadinya nilai-nilai "
            "penting di tiap format.",
        },
    ),
    ExperimentInfo(
        "accumulation-precision",
        "experiments.accumulation_precision",
        {
            "en": "Accumulating sums in fp16 vs fp32",
            "id": "Menjumlahkan dengan akumulator fp16 vs fp32",
        },
        {
            "en": "Dot products summed in an fp16 running total drift as the length grows; "
            "an fp32 accumulator (what tensor cores use) stays accurate.",
            "id": "Dot product yang dijumlahkan dalam akumulator fp16 makin melenceng seiring "
            "panjangnya; akumulator fp32 (seperti tensor core) tetap akurat.",
        },
    ),
    ExperimentInfo(
        "batchnorm",
        "experiments.batchnorm",
        {
            "en": "BatchNorm breaks accumulation equivalence",
            "id": "BatchNorm merusak kesetaraan akumulasi",
        },
        {
            "en": "Accumulated micro-batches vs one big batch: BatchNorm's gradients and "
            "running stats differ, GroupNorm/LayerNorm match.",
            "id": "Micro-batch yang diakumulasi vs satu batch besar: gradien dan running stats "
            "BatchNorm berbeda, GroupNorm/LayerNorm sama.",
        },
        (_mb(4), _mbs(8, minimum=2)),
    ),
    ExperimentInfo(
        "autocast",
        "experiments.autocast_demo",
        {"en": "What autocast does to each op", "id": "Apa yang dilakukan autocast ke tiap op"},
        {
            "en": "Observed output dtype of common ops under torch.autocast with fp16 and bf16 "
            "on this device.",
            "id": "Dtype keluaran op umum di bawah torch.autocast dengan fp16 dan bf16, diamati "
            "langsung di perangkat ini.",
        },
    ),
    ExperimentInfo(
        "speed-memory",
        "experiments.speed_memory",
        {"en": "Speed and memory: fp32 vs 16-bit", "id": "Kecepatan dan memori: fp32 vs 16-bit"},
        {
            "en": "Tensor memory and matmul throughput measured on this device; 16-bit only "
            "wins where the hardware supports it.",
            "id": "Memori tensor dan throughput matmul diukur di perangkat ini; 16-bit hanya "
            "unggul bila perangkat keras mendukungnya.",
        },
    ),
]

_ENTRIES += [
    ExperimentInfo(
        "fp8-formats",
        "experiments.fp8_formats",
        {"en": "FP8: E4M3 vs E5M2 and scaling", "id": "FP8: E4M3 vs E5M2 dan scaling"},
        {
            "en": "Every FP8 value decoded: E4M3 tops out at 448 with no inf, E5M2 at 57344 "
            "with inf; how values round, and why a per-tensor amax scale is needed.",
            "id": "Semua nilai FP8 diuraikan: E4M3 maksimal 448 tanpa inf, E5M2 maksimal 57344 "
            "dengan inf; cara nilai dibulatkan, dan mengapa perlu skala per tensor dari amax.",
        },
    ),
    ExperimentInfo(
        "clip-unscale",
        "experiments.clip_unscale",
        {
            "en": "Gradient clipping with a GradScaler",
            "id": "Gradient clipping dengan GradScaler",
        },
        {
            "en": "clip_grad_norm_ on scaled gradients clips the wrong thing; after "
            "scaler.unscale_ it matches fp32 clipping.",
            "id": "clip_grad_norm_ pada gradien yang masih di-scale memotong hal yang salah; "
            "setelah scaler.unscale_ hasilnya sama dengan clipping fp32.",
        },
    ),
    ExperimentInfo(
        "scaler-accumulation",
        "experiments.scaler_accumulation",
        {
            "en": "GradScaler with gradient accumulation",
            "id": "GradScaler dengan akumulasi gradien",
        },
        {
            "en": "scale(loss / N).backward() per micro-batch and one step/update per window "
            "give the full batch's update; stepping every micro-batch does not.",
            "id": "scale(loss / N).backward() tiap micro-batch dan satu step/update per window "
            "memberi update yang sama dengan batch penuh; step tiap micro-batch tidak.",
        },
        (_mb(4), _mbs(8)),
    ),
    ExperimentInfo(
        "uneven-tokens",
        "experiments.uneven_tokens",
        {
            "en": "Uneven token counts: mean of means vs sum / tokens",
            "id": "Jumlah token tidak rata: rata-rata dari rata-rata vs jumlah / token",
        },
        {
            "en": "With micro-batches of different token counts, averaging per-micro-batch means "
            "is biased; summing token losses and dividing by the total matches the full batch.",
            "id": "Bila jumlah token tiap micro-batch berbeda, merata-ratakan rata-rata per "
            "micro-batch itu bias; menjumlahkan loss token lalu membagi dengan totalnya sama "
            "dengan batch penuh.",
        },
        (_mb(4), ParamSpec("micro_batch_size", 8, 1, 256, "average tokens per micro-batch")),
    ),
    ExperimentInfo(
        "adam-epsilon",
        "experiments.adam_epsilon",
        {"en": "Adam's epsilon in fp16", "id": "Epsilon Adam di fp16"},
        {
            "en": "1e-8 rounds to 0 in fp16; Adam with fp16 state divides by zero or stalls "
            "where fp32 state keeps training.",
            "id": "1e-8 dibulatkan menjadi 0 di fp16; Adam dengan state fp16 membagi dengan nol "
            "atau macet, sedangkan state fp32 tetap melatih.",
        },
    ),
]

#: User-facing demos, in display order.
CATALOG: dict[str, ExperimentInfo] = {e.name: e for e in _ENTRIES}

_DIAGNOSTICS: dict[str, ExperimentInfo] = {
    e.name: e
    for e in [
        ExperimentInfo(
            "_sleep",
            "experiments._diagnostics",
            {"en": "diagnostic: sleep"},
            {"en": "sleeps; used to test timeouts"},
            (ParamSpec("seconds", 1, 0, 3600),),
            hidden=True,
        ),
        ExperimentInfo(
            "_crash",
            "experiments._diagnostics",
            {"en": "diagnostic: crash"},
            {"en": "kills its own process; used to test crash recovery"},
            hidden=True,
        ),
        ExperimentInfo(
            "_fail",
            "experiments._diagnostics",
            {"en": "diagnostic: raise"},
            {"en": "raises an exception; used to test error reporting"},
            hidden=True,
        ),
    ]
}

#: Bounds as plain data: {demo: {param: {"default", "min", "max", "help"}}}.
PARAM_BOUNDS: dict[str, dict[str, dict[str, Any]]] = {n: e.bounds for n, e in CATALOG.items()}

#: Localized titles/summaries: {demo: {lang: text}}.
TITLES: dict[str, dict[str, str]] = {n: dict(e.titles) for n, e in CATALOG.items()}
SUMMARIES: dict[str, dict[str, str]] = {n: dict(e.summaries) for n, e in CATALOG.items()}


def widest_range(param: str) -> tuple[int, int] | None:
    """The widest (min, max) of `param` over the demos that take it; None if none does."""
    specs = [b[param] for info in CATALOG.values() if param in (b := info.bounds)]
    if not specs:
        return None
    return min(s["min"] for s in specs), max(s["max"] for s in specs)


def diagnostics_enabled() -> bool:
    return os.environ.get(DIAGNOSTICS_ENV) == "1"


def get_info(name: str) -> ExperimentInfo:
    """Catalog entry for ``name``; diagnostics only when the env var is set."""
    if name in CATALOG:
        return CATALOG[name]
    if name in _DIAGNOSTICS and diagnostics_enabled():
        return _DIAGNOSTICS[name]
    raise UnknownExperiment(name, ", ".join(CATALOG))


def validate_params(name: str, params: Mapping[str, Any] | None = None) -> dict[str, int]:
    """Full, validated parameter dict for ``name`` (defaults filled in)."""
    return get_info(name).validate(params)
