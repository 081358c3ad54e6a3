"""Generated questions in tests: a quiz that names templates (parsed, or as a quiz folder
for a bot), the footer that names a shown instance, and the pool's worker side.

`Maker` stands in for the demo worker's `generate_batch`: it makes real instances with
torch in the test's process (the same `experiments.generators.generate`), counts the
round trips, and can be switched to failing like a worker that is down.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.demos.generated import InstancePool
from bot.demos.runner import DemoCrashed, DemoFailed
from bot.quizbank import Quiz, parse_quiz
from experiments.generators import Instance, TemplateInfo, generate_batch
from experiments.generators.instance import Draft, Option, both
from experiments.generators.misconceptions import miss
from testkit.standin import FakeMessage

GEN_E2E_QUIZ = """\
id: gen-e2e
title: {en: Generated, id: Buatan}
description: {en: One written question and one template, id: Satu soal tertulis dan satu templat}
questions:
  - id: ge-01
    prompt: {en: 'Written?', id: 'Tertulis?'}
    choices: {en: [a, b, c], id: [a, b, c]}
    answer: 1
    explanation: {en: Because., id: Karena.}
generated:
  - id: ge-g1
    template: fp16-round
"""


def quiz_with_templates(
    quiz_id: str = "fmt", templates: Sequence[str] = ("fp16-round", "effective-batch")
) -> Quiz:
    """Two written questions (`{quiz_id[:2]}-01`, `-02`) and one entry per template."""
    prefix = quiz_id[:2]
    lines = [
        f"id: {quiz_id}",
        f"title: {{en: {quiz_id} title, id: judul {quiz_id}}}",
        "description: {en: About it, id: Tentangnya}",
        "questions:",
    ]
    for index in (1, 2):
        lines += [
            f"  - id: {prefix}-{index:02d}",
            f"    prompt: {{en: 'Question {index}?', id: 'Pertanyaan {index}?'}}",
            "    choices: {en: [c0, c1, c2], id: [c0, c1, c2]}",
            "    answer: 1",
            f"    explanation: {{en: Because {index}., id: Karena {index}.}}",
        ]
    lines.append("generated:")
    for index, name in enumerate(templates, start=1):
        lines += [f"  - id: {prefix}-g{index}", f"    template: {name}"]
    return parse_quiz("\n".join(lines) + "\n")


def gen_e2e_dir(tmp_path: Path) -> Path:
    """A quiz folder for a bot (`quiz_dirs`) holding `gen-e2e`: the written question
    `ge-01` and the template fp16-round."""
    extra = tmp_path / "extra"
    extra.mkdir(exist_ok=True)
    (extra / "gen-e2e.yaml").write_text(GEN_E2E_QUIZ, encoding="utf-8")
    return extra


def footer(message: FakeMessage) -> str:
    """The footer of the message's first embed (a generated question names its template
    and seed there)."""
    return str((message.embeds[0].get("footer") or {}).get("text", ""))


class Maker:
    """The pool's source: `generate_batch` in this process, counted; `down` makes it fail
    as a dead worker does, `broken` as a template that raises in the worker."""

    def __init__(self) -> None:
        self.calls = 0
        self.down = False
        self.broken: set[str] = set()
        self._called = asyncio.Condition()

    async def __call__(self, name: str, seeds: Sequence[int]) -> list[Instance]:
        async with self._called:
            self.calls += 1
            self._called.notify_all()
        if self.down:
            raise DemoCrashed("demo worker died (exit code -9); restarted")
        if name in self.broken:
            raise DemoFailed(f"template {name!r} failed: boom", "RuntimeError")
        return generate_batch(name, seeds)

    async def called(self, times: int) -> None:
        """Wait until it was asked `times` times in all."""
        async with self._called:
            await self._called.wait_for(lambda: self.calls >= times)


async def feed_pool(pool: InstancePool, templates: Sequence[str], wait_s: float = 120) -> Maker:
    """A bot's instance pool made to refill from a `Maker` (real torch in this process,
    like the worker's `generate_batch`), full for `templates` on return."""
    maker = Maker()
    pool.source = maker
    pool.start()
    await asyncio.wait_for(pool.full(templates), wait_s)
    return maker


# A template with a cue `quiztutor validate` must catch: its right answer is always the
# longest choice. Registered by a test (monkeypatch) as "always-longest".
def _draw_longest(rng: random.Random) -> dict[str, Any]:
    return {"x": rng.randint(2, 9)}


def _build_longest(params: dict[str, Any], rng: random.Random) -> Draft:
    x = params["x"]
    return Draft(
        prompt=both(f"What is {x} + 0.0001?"),
        right=Option(both(f"{x}.0001")),
        wrong=[
            miss("off-by-one-exponent", str(2 * x)),
            miss("divided-twice", str(x + 10)),
            miss("scaled-by-n", str(x + 20)),
        ],
        explanation=both("Adding."),
    )


IMPLS = {"always-longest": (_draw_longest, _build_longest)}
ALWAYS_LONGEST = TemplateInfo(
    "always-longest",
    __name__,
    "number-formats",
    1,
    {"en": "Always the longest", "id": "Selalu yang terpanjang"},
    ("x",),
)
