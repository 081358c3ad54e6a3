"""``quiztutor generate NAME [--seed S] [--lang id|en] [--json]`` and ``--list``.

Prints one generated question. Without ``--seed`` a random seed is drawn and printed,
so that the instance can be asked for again. ``--json`` prints exactly
``{"template", "seed", "params", "prompt", "choices", "answer", "explanation"}`` with
the texts in ``--lang``, ``choices`` in shown order and ``answer`` the right one's index.
``--list`` and argument errors never import torch.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from collections.abc import Sequence
from typing import NoReturn

from experiments.catalog import LANGS, ParamError
from experiments.generators.registry import SEED_MAX, TEMPLATES, check_seed, get_template

#: A random seed is drawn below this, so that it is short enough to type again.
RANDOM_SEED_BELOW = 10**9
LETTERS = "ABCDEF"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # two lines, not the whole usage
        self.exit(2, f"error: {message}\nfix: see `{self.prog} --help` or `{self.prog} --list`\n")


def build_parser(prog: str = "quiztutor generate") -> argparse.ArgumentParser:
    p = _Parser(
        prog=prog,
        description="Print one generated question: fresh numbers, right answer computed by torch.",
        epilog="examples:\n  quiztutor generate --list\n  quiztutor generate fp16-round --seed 7",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", nargs="?", help="template name (see --list)")
    p.add_argument(
        "--seed",
        metavar="S",
        default=None,
        help=f"instance number, 0-{SEED_MAX} (default: random, printed)",
    )
    p.add_argument(
        "--lang", choices=LANGS, default="en", help="language of the texts (default: en)"
    )
    p.add_argument("--json", action="store_true", help="print the instance as JSON")
    p.add_argument("--list", action="store_true", help="list the templates with their topics")
    return p


def _list(lang: str) -> str:
    width = max(len(n) for n in TEMPLATES)
    lines = [f"{'template':{width}s}  {'topic':22s}  title"]
    for name, info in TEMPLATES.items():
        lines.append(f"{name:{width}s}  {info.topic:22s}  {info.title(lang)}")
    return "\n".join(lines)


def _error(message: str, fix: str) -> int:
    print(f"error: {message}\nfix: {fix}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed its two lines
        return int(exc.code or 0)
    if args.list:
        print(_list(args.lang))
        return 0
    if not args.name:
        return _error(
            "a template name is required", "run `quiztutor generate --list` to see the templates"
        )
    try:
        info = get_template(args.name)
        seed = secrets.randbelow(RANDOM_SEED_BELOW) if args.seed is None else check_seed(args.seed)
    except ParamError as exc:  # before importing torch: fast, clear errors
        fix = (
            "run `quiztutor generate --list` to see the templates"
            if exc.key == "generate.unknown"
            else f"give --seed a whole number from 0 to {SEED_MAX}"
        )
        return _error(str(exc), fix)

    from experiments.generators import generate  # torch is imported only from here on

    inst = generate(info.name, seed)
    if args.json:
        print(json.dumps(inst.cli_dict(args.lang), ensure_ascii=False))
        return 0
    lang = args.lang
    print(
        f"{inst.template} — {info.title(lang)}   [topic {inst.topic}, difficulty {inst.difficulty}]"
    )
    print(f"seed {inst.seed}   params {json.dumps(inst.params, ensure_ascii=False)}")
    print()
    print(inst.prompt[lang])
    print()
    for i, text in enumerate(inst.choices[lang]):
        print(f"  {LETTERS[i]}) {text}")
    print()
    print(f"answer: {LETTERS[inst.answer]}) {inst.choices[lang][inst.answer]}")
    print(inst.explanation[lang])
    if inst.demo:
        print(f"demo: quiztutor demo {inst.demo}")
    print(f"again: quiztutor generate {inst.template} --seed {inst.seed} --lang {lang}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
