"""One generated question and how it is assembled (torch-free).

A template builds a :class:`Draft`: the prompt, the right :class:`Option` and a list of
candidate wrong options, each named after the misconception it stands for, in order of
preference. :func:`assemble` drops candidates whose text equals the right answer or an
earlier one, keeps the first set among which no tell (:mod:`.tells`: a ×2 pair, a
×½/×1/×2 ladder, the input itself) singles out the right answer, places the choices by a
shuffle seeded from (template, seed) and writes the explanation, which names each
distractor's misconception. The result, an :class:`Instance`, holds only JSON types.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from experiments.generators.tells import fair

LANGS = ("id", "en")
N_CHOICES = 4

Text = dict[str, str]


def rng_for(template: str, seed: int, purpose: str) -> random.Random:
    """A private RNG for one use of one instance (string seeds hash with SHA-512: stable)."""
    return random.Random(f"{template}:{seed}:{purpose}")


def both(text: str) -> Text:
    """The same text in every language (numbers, code)."""
    return {lang: text for lang in LANGS}


class GeneratorBug(RuntimeError):
    """A template produced something unusable (too few distinct choices, ...)."""


@dataclass(frozen=True)
class Option:
    """A choice: its text per language; for a distractor its misconception and why."""

    text: Text
    misconception: str | None = None
    why: Text | None = None


@dataclass
class Draft:
    """What a template function returns before choices are placed."""

    prompt: Text
    right: Option
    wrong: list[Option]
    explanation: Text
    difficulty: int | None = None  # None: the registry's default
    n_choices: int | None = None  # None: the registry's default


@dataclass(frozen=True)
class Instance:
    """One generated question, in the shape of a written one plus its origin.

    ``choices[lang]`` are in shown order, ``answer`` indexes the right one, and
    ``misconceptions[i]`` names the misconception behind choice ``i`` (None for the
    right answer).
    """

    template: str
    seed: int
    params: dict[str, Any]
    prompt: Text
    choices: dict[str, list[str]]
    answer: int
    explanation: Text
    topic: str
    difficulty: int
    demo: str | None
    misconceptions: list[str | None] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kwargs)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Instance:
        return cls(**dict(data))

    def cli_dict(self, lang: str = "en") -> dict[str, Any]:
        """The ``quiztutor generate --json`` contract: exactly these seven keys."""
        return {
            "template": self.template,
            "seed": self.seed,
            "params": self.params,
            "prompt": self.prompt[lang],
            "choices": list(self.choices[lang]),
            "answer": self.answer,
            "explanation": self.explanation[lang],
        }

    def question_fields(self) -> dict[str, Any]:
        """Keyword arguments for the quiz schema's ``Question`` (all but ``id``)."""
        return {
            "prompt": dict(self.prompt),
            "choices": {k: list(v) for k, v in self.choices.items()},
            "answer": self.answer,
            "explanation": dict(self.explanation),
            "demo": self.demo,
            "topic": self.topic,
            "difficulty": self.difficulty,
        }

    @property
    def right_choice(self) -> Text:
        return {lang: texts[self.answer] for lang, texts in self.choices.items()}


_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)(?![\d.^×])\s*(.*)$", re.I)


def choice_key(text: str) -> str:
    """What two choices must not share: the text with spacing and case folded, and a
    leading number replaced by its value ("2.0 GB" and "2 GB" are the same choice)."""
    folded = " ".join(text.split()).casefold()
    match = _NUMBER.match(folded)
    if match:
        try:
            value = Decimal(match.group(1))
        except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
            return folded
        return f"{value.normalize():f}|{match.group(2)}" if value else f"0|{match.group(2)}"
    return folded


BULLET = "•"
#: Distinct candidate distractors a fair set of choices is looked for among.
MAX_CANDIDATES = 8


def _fair_pick(right: Option, candidates: list[Option], k: int, params: Any) -> list[Option]:
    """The first ``k`` candidates (in the template's order of preference) among which no
    tell singles out the right answer (:func:`.tells.fair`); if no such set exists, the
    first ``k``."""
    for combo in itertools.combinations(candidates, k):
        if fair([right.text["en"], *(o.text["en"] for o in combo)], params):
            return list(combo)
    return candidates[:k]


def assemble(
    *,
    template: str,
    seed: int,
    params: dict[str, Any],
    draft: Draft,
    topic: str,
    difficulty: int,
    demo: str | None,
    n_choices: int = N_CHOICES,
) -> Instance:
    n = draft.n_choices or n_choices
    right = draft.right
    taken = [{lang: choice_key(right.text[lang]) for lang in LANGS}]
    distinct: list[Option] = []
    for option in draft.wrong:
        if len(distinct) == MAX_CANDIDATES:
            break
        keys = {lang: choice_key(option.text[lang]) for lang in LANGS}
        if any(keys[lang] == t[lang] for t in taken for lang in LANGS):
            continue
        if option.misconception is None or option.why is None:
            raise GeneratorBug(f"{template}: a distractor without a misconception")
        taken.append(keys)
        distinct.append(option)
    if len(distinct) < n - 1:
        raise GeneratorBug(
            f"{template}: seed {seed} has {len(distinct) + 1} distinct choices, needs {n}"
        )
    picked = _fair_pick(right, distinct, n - 1, params)
    options: list[Option] = [right, *picked]
    order = list(range(n))
    rng_for(template, seed, "order").shuffle(order)
    shown = [options[i] for i in order]
    answer = order.index(0)
    explanation = {}
    for lang in LANGS:
        lines = [draft.explanation[lang].strip()]
        for option in shown:
            if option is right:
                continue
            assert option.why is not None
            lines.append(f"{BULLET} {option.text[lang]}: {option.why[lang]}")
        explanation[lang] = "\n".join(lines)
    return Instance(
        template=template,
        seed=seed,
        params=params,
        prompt={lang: draft.prompt[lang].strip() for lang in LANGS},
        choices={lang: [o.text[lang] for o in shown] for lang in LANGS},
        answer=answer,
        explanation=explanation,
        topic=topic,
        difficulty=draft.difficulty or difficulty,
        demo=demo,
        misconceptions=[o.misconception for o in shown],
    )
