"""``quiztutor validate`` for generated questions: every template on many seeds.

:func:`validate_templates` returns problems as ``"TEMPLATE: message"`` lines (empty when
all is well). Per instance: the texts fit the quiz schema's and Discord's limits, every
locale is there, no two choices are equal after formatting (the right answer least of
all), the params are the registry's, each distractor names a known misconception.
Every template shows :data:`N_CHOICES` (4) choices, and every percentage lies in 0-100 %.
Over the seeds: the right answer is not always the longest (or shortest) choice and not
always in one position, no tell picks it more often than chance (:mod:`.tells`: a ×2/÷2
pair, the middle of a ×½/×1/×2 ladder, equal to the input; over 1,000 seeds or more),
right answers vary (at least 60 distinct in the first 100 seeds, or every answer of a
declared small answer space reached), and the same seed gives the same instance.

This module imports no torch itself; generating does (in the worker or the CLI).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from experiments.catalog import CATALOG
from experiments.generators.instance import LANGS, N_CHOICES, Instance, choice_key
from experiments.generators.misconceptions import MISCONCEPTIONS
from experiments.generators.registry import TEMPLATES, TemplateInfo
from experiments.generators.tells import percent_problems, tell_problems, variety_problems

#: The quiz schema's limits (bot/quizbank/schema.py), which keep texts inside Discord's.
PROMPT_MAX = 1000
CHOICE_MAX = 200
EXPLANATION_MAX = 1000
MIN_CHOICES, MAX_CHOICES = 2, 6
TOPIC_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
DEFAULT_SEEDS = range(1000)


def instance_problems(inst: Instance, info: TemplateInfo | None = None) -> list[str]:
    """What is wrong with one instance (messages without the template's name)."""
    out: list[str] = []
    for field in ("prompt", "choices", "explanation"):
        present = set(getattr(inst, field))
        if present != set(LANGS):
            out.append(f"{field} has locales {sorted(present)}, expected {list(LANGS)}")
            return out
    counts = {lang: len(inst.choices[lang]) for lang in LANGS}
    if len(set(counts.values())) > 1:
        out.append(f"locales have different numbers of choices {counts}")
        return out
    n = counts[LANGS[0]]
    expected = info.n_choices if info else None
    if not MIN_CHOICES <= n <= MAX_CHOICES or (expected and n != expected):
        out.append(f"has {n} choices, expected {expected or f'{MIN_CHOICES}-{MAX_CHOICES}'}")
    elif info is not None and n != N_CHOICES:
        out.append(f"has {n} choices; every template shows {N_CHOICES}")
    if not 0 <= inst.answer < n:
        out.append(f"answer {inst.answer} is out of range 0-{n - 1}")
        return out
    for lang in LANGS:
        prompt, explanation = inst.prompt[lang].strip(), inst.explanation[lang].strip()
        if not prompt or len(prompt) > PROMPT_MAX:
            out.append(f"{lang} prompt has {len(prompt)} characters (1-{PROMPT_MAX} allowed)")
        if not explanation or len(explanation) > EXPLANATION_MAX:
            out.append(
                f"{lang} explanation has {len(explanation)} characters (1-{EXPLANATION_MAX} allowed)"
            )
        choices = inst.choices[lang]
        for text in choices:
            if not text.strip() or len(text.strip()) > CHOICE_MAX:
                out.append(
                    f"{lang} choice {text[:40]!r} has {len(text.strip())} characters (1-{CHOICE_MAX} allowed)"
                )
        keys = [choice_key(text) for text in choices]
        for i in range(n):
            for j in range(i + 1, n):
                if keys[i] != keys[j]:
                    continue
                if inst.answer in (i, j):
                    right, other = (i, j) if inst.answer == i else (j, i)
                    out.append(
                        f"{lang}: right answer {choices[right]!r} equals distractor "
                        f"{choices[other]!r} after formatting"
                    )
                else:
                    out.append(f"{lang}: two equal choices {choices[i]!r} and {choices[j]!r}")
    if len(inst.misconceptions) != n:
        out.append(f"{len(inst.misconceptions)} misconceptions for {n} choices")
    else:
        for i, name in enumerate(inst.misconceptions):
            if i == inst.answer and name is not None:
                out.append(f"the right answer is labelled with misconception {name!r}")
            elif i != inst.answer and name not in MISCONCEPTIONS:
                out.append(
                    f"distractor {inst.choices['en'][i]!r} names unknown misconception {name!r}"
                )
    out += percent_problems(inst)
    if info is not None:
        if sorted(inst.params) != sorted(info.params):
            out.append(
                f"params {sorted(inst.params)} differ from the registry's {sorted(info.params)}"
            )
        if inst.template != info.name:
            out.append(f"instance says template {inst.template!r}")
    if not TOPIC_PATTERN.match(inst.topic or ""):
        out.append(f"topic {inst.topic!r} is not an identifier")
    if inst.difficulty not in (1, 2, 3):
        out.append(f"difficulty {inst.difficulty!r} is not 1, 2 or 3")
    if inst.demo is not None and inst.demo not in CATALOG:
        out.append(f"unknown demo {inst.demo!r}")
    try:
        json.dumps(inst.to_dict())
    except (TypeError, ValueError) as exc:
        out.append(f"not JSON-serialisable: {exc}")
    return out


def batch_problems(
    name: str, instances: Sequence[Instance], info: TemplateInfo | None = None
) -> list[str]:
    """Per-instance problems (each kind once, with the first seed and a count) and the
    problems only many seeds show: a right answer always longest, shortest or in one slot."""
    found: dict[str, tuple[str, list[int]]] = {}
    for inst in instances:
        for message in instance_problems(inst, info):
            kind = re.sub(r"'[^']*'|\d+", "…", message)  # one line per kind of problem
            found.setdefault(kind, (message, []))[1].append(inst.seed)
    out = []
    for message, seeds in found.values():
        more = f" (and {len(seeds) - 1} more seeds)" if len(seeds) > 1 else ""
        out.append(f"{name}: seed {seeds[0]}: {message}{more}")
    usable = [i for i in instances if 0 <= i.answer < len(i.choices.get("en", []))]
    if len(usable) > 1:
        if len({i.answer for i in usable}) == 1:
            out.append(
                f"{name}: the right answer is in position {usable[0].answer} in all {len(usable)} instances"
            )
        for lang in LANGS:
            lengths = [[len(c) for c in i.choices[lang]] for i in usable]
            longest = [
                all(ln[i.answer] > x for k, x in enumerate(ln) if k != i.answer)
                for i, ln in zip(usable, lengths, strict=True)
            ]
            shortest = [
                all(ln[i.answer] < x for k, x in enumerate(ln) if k != i.answer)
                for i, ln in zip(usable, lengths, strict=True)
            ]
            if all(longest):
                out.append(
                    f"{name}: the right answer is the longest {lang} choice in all {len(usable)} instances"
                )
            if all(shortest):
                out.append(
                    f"{name}: the right answer is the shortest {lang} choice in all {len(usable)} instances"
                )
    out += tell_problems(name, usable)
    out += variety_problems(name, usable, info.answer_space if info else None)
    return out


def _generate_all(
    name: str, seeds: Iterable[int], generate: Callable[[str, int], Instance]
) -> tuple[list[Instance], list[str]]:
    instances: list[Instance] = []
    errors: dict[str, tuple[str, list[int]]] = {}
    for seed in seeds:
        try:
            instances.append(generate(name, seed))
        except Exception as exc:  # a template bug: report it, go on with the other seeds
            message = f"{type(exc).__name__}: {exc}"
            kind = re.sub(r"\d+", "…", message)
            errors.setdefault(kind, (message, []))[1].append(seed)
    problems = []
    for message, bad in errors.values():
        more = f" (and {len(bad) - 1} more seeds)" if len(bad) > 1 else ""
        problems.append(f"{name}: seed {bad[0]} raised {message}{more}")
    return instances, problems


def validate_templates(
    seeds: Iterable[int] = DEFAULT_SEEDS,
    *,
    names: Iterable[str] | None = None,
    instances: Mapping[str, Sequence[Instance]] | None = None,
) -> list[str]:
    """Problems of every template (or of ``names``) over ``seeds``; [] when all is well.

    ``instances`` may hand in instances generated already ({name: [...]}) so that a
    caller that needs them anyway (the tests) does not generate them twice.
    """
    from experiments.generators import generate  # imports torch on first use

    seeds = list(seeds)
    problems: list[str] = []
    for name in list(names) if names is not None else list(TEMPLATES):
        info = TEMPLATES.get(name)
        if info is None:
            problems.append(f"{name}: not in the registry")
            continue
        if instances is not None and name in instances:
            batch = list(instances[name])
        else:
            batch, errors = _generate_all(name, seeds, generate)
            problems += errors
        problems += batch_problems(name, batch, info)
        if batch:
            again = generate(name, batch[0].seed)
            if again != batch[0]:
                problems.append(
                    f"{name}: seed {batch[0].seed} gives a different instance the second time"
                )
    return problems
