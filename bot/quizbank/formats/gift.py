"""Moodle's GIFT format: multiple-choice questions in, any quiz out (`to_gift`).

Read: `::title:: question text { =right #feedback ~wrong #feedback ~wrong ####general }`,
whole-line `//` comments, `$CATEGORY:` lines, the `[html|moodle|plain|markdown]` format
tag, the missing-word form (`text { ... } more text`, the gap shown as `_____`), and the
escapes `\\~ \\= \\# \\{ \\} \\: \\\\` and `\\n` (a line break); `\\%` is read as `%` (the
export writes it before a choice that would otherwise read as a weight, `%50%`). Line breaks
inside a question are spaces, as in Moodle. The right answer's feedback and the general feedback become the
explanation. True/false, short answer, matching, numerical, essay, description and
weighted (`%50%`) questions are listed with their line and skipped.

`->` marks a matching question only when no answer starts with `~`, so a multiple-choice
answer may contain an arrow (Moodle itself would read such a question as matching).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.quizbank.formats.common import Draft, Parsed
from bot.quizbank.parse import Problem
from bot.quizbank.schema import Quiz

SPECIAL = "~=#{}:"
# An answer's weight, `%50%` at its start (a question with several right answers).
WEIGHT = re.compile(r"^\s*%-?[0-9]+(?:\.[0-9]+)?%")
FORMAT_TAGS = ("[html]", "[moodle]", "[plain]", "[markdown]")
GAP = "_____"


def escape(text: str) -> str:
    """Text as GIFT writes it: `\\`, `~ = # { } :` escaped with a backslash, line breaks `\\n`."""
    out = text.replace("\\", "\\\\")
    for char in SPECIAL:
        out = out.replace(char, "\\" + char)
    return out.replace("\r\n", "\n").replace("\n", "\\n")


def to_gift(quiz: Quiz, locale: str) -> str:
    """One quiz in GIFT, in one language: the question id as title, the explanation as the
    general feedback; `import_text(..., "gift")` reads it back to the same questions."""
    lines = [
        f"// {quiz.id}: {quiz.title.get(locale, next(iter(quiz.title.values())))} ({locale})",
        f"$CATEGORY: {quiz.id}",
        "",
    ]
    for question in quiz.questions:
        lines.append(f"::{question.id}::[markdown]{escape(question.text('prompt', locale))} {{")
        for index, choice in enumerate(question.choice_texts(locale)):
            mark = "=" if index == question.answer else "~"
            text = escape(choice)
            if WEIGHT.match(text):  # a choice that starts like a weight: keep it text
                text = "\\" + text
            lines.append(f"\t{mark}{text}")
        lines.append(f"\t####{escape(question.text('explanation', locale))}")
        lines.append("}")
        lines.append("")
    return "\n".join(lines)


@dataclass
class _Block:
    line: int
    text: str  # the question's lines joined with "\n" (comments removed)


_LINE_BREAK = re.compile(r"[ \t]*\r?\n[ \t]*")


def _clean(text: str) -> str:
    """The text a question means: a raw line break (with the indentation around it) is one
    space, the escapes are undone (`\\n` a line break), the ends stripped."""
    text = _LINE_BREAK.sub(" ", text)
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            nxt = text[index + 1]
            if nxt in SPECIAL or nxt in "\\%":
                out.append(nxt)
                index += 2
                continue
            if nxt == "n":
                out.append("\n")
                index += 2
                continue
        out.append(char)
        index += 1
    return "".join(out).strip()


def _find(text: str, targets: str, start: int = 0) -> int:
    """Index of the first unescaped character of `targets` from `start`, or -1."""
    index = start
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] in targets:
            return index
        index += 1
    return -1


def _blocks(text: str) -> list[_Block]:
    """Questions are separated by blank lines (not inside an open `{ }`)."""
    blocks: list[_Block] = []
    current: list[str] = []
    start = 0
    depth = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.lstrip().startswith("//"):
            continue
        if not raw.strip() and depth == 0:
            if current:
                blocks.append(_Block(start, "\n".join(current)))
                current = []
            continue
        if not current:
            start = number
        current.append(raw)
        index = _find(raw, "{}")
        while index != -1:
            depth = max(0, depth + (1 if raw[index] == "{" else -1))
            index = _find(raw, "{}", index + 1)
    if current:
        blocks.append(_Block(start, "\n".join(current)))
    return blocks


def _split_answers(body: str) -> tuple[list[tuple[str, str, str]], str, str]:
    """(answers as (mark, text, feedback), general feedback, text before the first mark)."""
    general = ""
    index = 0
    hashes = _find(body, "#")
    while hashes != -1:
        if body.startswith("####", hashes):
            general = body[hashes + 4 :]
            body = body[:hashes]
            break
        hashes = _find(body, "#", hashes + 1)
    answers: list[tuple[str, str, str]] = []
    first = _find(body, "=~")
    before = body if first == -1 else body[:first]
    index = first
    while index != -1:
        mark = body[index]
        nxt = _find(body, "=~", index + 1)
        chunk = body[index + 1 : nxt if nxt != -1 else len(body)]
        feedback_at = _find(chunk, "#")
        text, feedback = (
            (chunk, "") if feedback_at == -1 else (chunk[:feedback_at], chunk[feedback_at + 1 :])
        )
        answers.append((mark, text, feedback))
        index = nxt
    return answers, general, before


def _unsupported(body: str, answers: list[tuple[str, str, str]]) -> str | None:
    stripped = _clean(body).upper()
    if not stripped:
        return "an essay question"
    if stripped.split("#")[0].strip() in ("T", "F", "TRUE", "FALSE"):
        return "a true/false question"
    if body.lstrip().startswith("#"):
        return "a numerical question"
    if answers and all(mark == "=" for mark, _, _ in answers):
        if any("->" in text for _, text, _ in answers):
            return "a matching question"
        return "a short-answer question"
    if any(WEIGHT.match(text) for _, text, _ in answers):
        return "a question with weighted answers (%)"
    if sum(mark == "=" for mark, _, _ in answers) > 1:
        return "a question with more than one right answer"
    return None


def _question(block: _Block, file: str, parsed: Parsed) -> None:
    text = block.text
    name: str | None = None
    body_text = text.lstrip()
    if body_text.startswith("::"):
        end = body_text.find("::", 2)
        while end != -1 and body_text[end - 1] == "\\":
            end = body_text.find("::", end + 1)
        if end == -1:
            parsed.errors.append(Problem(file, block.line, "", "the title's closing :: is missing"))
            return
        name = _clean(body_text[2:end])
        body_text = body_text[end + 2 :]
    stripped = body_text.lstrip()
    for tag in FORMAT_TAGS:
        if stripped.lower().startswith(tag):
            body_text = stripped[len(tag) :]
            break
    opening = _find(body_text, "{")
    if opening == -1:
        parsed.skipped.append(
            Problem(file, block.line, "", "skipped: a description (no answers) is not a question")
        )
        return
    closing = _find(body_text, "}", opening + 1)
    if closing == -1:
        parsed.errors.append(Problem(file, block.line, "", "the answers' closing } is missing"))
        return
    body = body_text[opening + 1 : closing]
    after = _clean(body_text[closing + 1 :])
    answers, general, before = _split_answers(body)
    reason = _unsupported(body, answers)
    if reason is not None:
        parsed.skipped.append(Problem(file, block.line, "", f"skipped: {reason}"))
        return
    if _clean(before):
        parsed.errors.append(
            Problem(file, block.line, "", "text before the first answer: start each with = or ~")
        )
        return
    prompt = _clean(body_text[:opening])
    if after:
        prompt = f"{prompt} {GAP} {after}".strip()
    rights = [i for i, (mark, _, _) in enumerate(answers) if mark == "="]
    if not rights:
        parsed.errors.append(Problem(file, block.line, "", "no right answer: mark it with ="))
        return
    right = rights[0]
    feedback = [_clean(answers[right][2]), _clean(general)]
    parsed.drafts.append(
        Draft(
            line=block.line,
            prompt=prompt,
            choices=[_clean(answer) for _, answer, _ in answers],
            answer=right,
            explanation="\n\n".join(part for part in feedback if part),
            name=name,
        )
    )


def parse_gift(text: str, file: str = "<gift>") -> Parsed:
    parsed = Parsed()
    for block in _blocks(text):
        first = block.text.strip()
        if first.startswith("$CATEGORY:"):
            category_line, _, rest = first.partition("\n")
            if parsed.category is None:
                parsed.category = category_line.removeprefix("$CATEGORY:").strip()
            if not rest.strip():
                continue
            block = _Block(block.line + 1, rest)
        _question(block, file, parsed)
    return parsed
