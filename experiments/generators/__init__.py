"""Generated questions: templates whose every instance has fresh numbers and whose right
answer is computed by torch (issue 23).

Importing this package does NOT import torch: :data:`TEMPLATES` (the registry) and
:class:`Instance` are plain Python. :func:`generate` imports a template's module, and
with it torch, on first use; the bot calls it in the demo worker process
(``("generate", job_id, name, seed)``), the command line calls it directly.

A template is a pair of functions in its family module's ``IMPLS``: ``draw(rng) ->
params`` picks fresh numbers from a seeded RNG, ``build(params, rng) -> Draft``
computes the right answer and the distractors with torch. :func:`generate` joins them
and places the choices with a shuffle seeded from (template, seed): the same seed gives
the same instance, and no global RNG is touched.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

from experiments.generators.instance import Draft, Instance, assemble, rng_for
from experiments.generators.registry import (
    SEED_MAX,
    TEMPLATES,
    TITLES,
    TOPICS,
    TemplateInfo,
    UnknownTemplate,
    check_seed,
    get_template,
)

__all__ = [
    "SEED_MAX",
    "TEMPLATES",
    "TITLES",
    "TOPICS",
    "Instance",
    "TemplateInfo",
    "UnknownTemplate",
    "build_instance",
    "generate",
    "generate_batch",
    "get_template",
]


def _impl(info: TemplateInfo) -> tuple[Any, Any]:
    module = importlib.import_module(info.module)  # torch is imported here
    return module.IMPLS[info.name]


def build_instance(name: str, params: dict[str, Any], seed: int = 0) -> Instance:
    """The instance of ``name`` for given ``params`` (tests and reproductions).

    ``seed`` still places the choices and orders the misconceptions drawn from a pool.
    """
    info = get_template(name)
    _, build = _impl(info)
    draft = build(dict(params), rng_for(name, seed, "build"))
    if isinstance(draft, Instance):  # a template may assemble by itself
        return draft
    assert isinstance(draft, Draft)
    return assemble(
        template=name,
        seed=seed,
        params=dict(params),
        draft=draft,
        topic=info.topic,
        difficulty=info.difficulty,
        demo=info.demo,
        n_choices=info.n_choices,
    )


def generate(name: str, seed: Any) -> Instance:
    """Instance ``seed`` of template ``name`` (UnknownTemplate / ParamError if invalid)."""
    info = get_template(name)
    seed = check_seed(seed)
    draw, _ = _impl(info)
    params = draw(rng_for(name, seed, "params"))
    return build_instance(info.name, params, seed)


def generate_batch(name: str, seeds: Iterable[Any]) -> list[Instance]:
    """Instances for several seeds (pre-generation, validation)."""
    return [generate(name, seed) for seed in seeds]
