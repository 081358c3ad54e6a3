"""`quiztutor validate`: quiz files (schema, ids, answer cues, copied texts) and the
question templates (experiments.generators.validate, which imports torch: only when
templates are run).

Templates run on seeds 0..N-1 (`--seeds N`, default 1,000): every template when no PATH
is given, else those the files name. 1,000 seeds take about 16 s of CPU (the tell and
variety checks need them); `--seeds 100` suits an author's edit loop, `--seeds 0` checks
the files alone.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

#: Seeds per template `quiztutor validate` runs by default (see above).
DEFAULT_TEMPLATE_SEEDS = 1000
MAX_TEMPLATE_SEEDS = 100_000


def seeds_arg(text: str) -> int:
    """`--seeds N` as argparse reads it: 0 (no templates) to MAX_TEMPLATE_SEEDS."""
    value = int(text)
    if not 0 <= value <= MAX_TEMPLATE_SEEDS:
        raise argparse.ArgumentTypeError(f"must be 0 to {MAX_TEMPLATE_SEEDS}, got {value}")
    return value


def run_validate(paths: Sequence[Path], *, given: bool, seeds: int) -> int:
    """Check the quiz files under `paths` (`given`: named on the command line, else what
    the bot loads) and the question templates; 0 when all is well, else 1."""
    from bot.quizbank.files import file_cues, file_translations, load_quizzes

    missing = [p for p in paths if not p.exists()]
    for path in missing:
        print(f"{path}:1: file not found", file=sys.stderr)
    quizzes, problems = load_quizzes(p for p in paths if p.exists())
    for problem in problems:
        print(problem)
    # Answer cues: errors in shipped quizzes (and the bank rule over them), else warnings.
    cue_errors, cue_warnings = file_cues(p for p in paths if p.exists())
    # Texts copied from another language by an import: errors in shipped quizzes.
    copy_errors, copy_warnings = file_translations(p for p in paths if p.exists())
    cue_errors += copy_errors
    for line in cue_errors + cue_warnings + copy_warnings:
        print(line)
    # Question templates: every one (no paths given), else those the files name.
    names = sorted({e.template for q in quizzes for e in q.generated}) if given else None
    template_errors = template_problems(names, seeds)
    for line in template_errors:
        print(line)
    if problems or missing or cue_errors or template_errors:
        n_found = len(problems) + len(missing) + len(cue_errors) + len(template_errors)
        print(f"{n_found} problem(s) found.", file=sys.stderr)
        return 1
    n_questions = sum(len(q.questions) for q in quizzes)
    n_generated = sum(len(q.generated) for q in quizzes)
    where = "" if given else f" (what the bot loads: {', '.join(str(p) for p in paths)})"
    generated = f", {n_generated} generated" if n_generated else ""
    print(f"OK: {len(quizzes)} quiz(zes), {n_questions} questions{generated}{where}.")
    if seeds and names != []:
        from experiments.generators.registry import TEMPLATES

        print(f"OK: {len(TEMPLATES if names is None else names)} template(s), {seeds} seeds each.")
    return 0


def template_problems(names: Sequence[str] | None, seeds: int) -> list[str]:
    """`template NAME: message` lines of the templates (all when `names` is None), each
    run on seeds 0..seeds-1 (experiments.generators.validate; imports torch)."""
    if seeds == 0 or names == []:
        return []
    from bot.cli.progress import bar
    from experiments.generators.registry import TEMPLATES
    from experiments.generators.validate import validate_templates

    problems: list[str] = []
    # One template at a time, so a terminal sees how far it got (about 20 s in all).
    for name in bar(list(TEMPLATES) if names is None else names, "templates", seeds=seeds):
        problems += validate_templates(range(seeds), names=[name])
    return [f"template {line}" for line in problems]
