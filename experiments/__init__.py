"""quiztutor experiments: small, deterministic torch demos of training numerics.

Importing this package does NOT import torch: the registry points at modules that are
imported only when a demo runs, so the bot process can read names/bounds cheaply.
"""

from __future__ import annotations

import importlib
from typing import Any

from experiments.catalog import (
    CATALOG,
    PARAM_BOUNDS,
    SUMMARIES,
    TITLES,
    ExperimentInfo,
    ParamSpec,
    UnknownExperiment,
    get_info,
    validate_params,
)
from experiments.result import DemoResult

__all__ = [
    "CATALOG",
    "PARAM_BOUNDS",
    "SUMMARIES",
    "TITLES",
    "DemoResult",
    "ExperimentInfo",
    "ParamSpec",
    "UnknownExperiment",
    "get_info",
    "run_experiment",
    "validate_params",
]


def run_experiment(name: str, *, device: str = "auto", **params: Any) -> DemoResult:
    """Validate ``params`` and run demo ``name`` (imports torch on first use)."""
    info = get_info(name)
    clean = info.validate(params)
    module = importlib.import_module(info.module)
    from experiments._common import resolve_device, warm_up  # torch import happens here

    dev = resolve_device(device)
    warm_up(dev)  # one-time start-up costs (a GPU's first use too) stay out of elapsed_s
    if info.hidden:
        return module.run(dev, name=name, **clean)
    result: DemoResult = module.run(dev, **clean)
    return result
