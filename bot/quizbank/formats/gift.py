"""Moodle's GIFT format, read as Moodle reads it (`question/format/gift/format.php`).

`// [id:q-1]` comment lines, `$CATEGORY:`, `::name::`, the text formats `[html]`,
`[moodle]`, `[plain]`, `[markdown]` on the question, each answer and each feedback (an
answer's and the general feedback's default is the question's), the escapes
`\\~ \\= \\# \\{ \\} \\: \\\\` and `\\n`, `~`/`=` answers with `#feedback`, `%50%`
weights, `####general feedback` and the missing-word form (the gap shown as `_____`).
Line breaks in a question are kept, as Moodle keeps them.

Multiple choice is what quizzes have: true/false, short answer, matching, numerical,
essay and description are listed with their line and skipped. A multiple-choice question
is imported when exactly one answer is worth 100 %: partial credit and negative marks of
the others are dropped, with a note. Each answer's feedback becomes the explanation's
line for that choice (`Draft.feedback`), the general feedback the explanation's start.

The text is cut into lines and scanned with `str.find`: no pattern over the whole upload.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.common.i18n import t
from bot.quizbank.formats.common import Draft, Parsed, split_explanation
from bot.quizbank.formats.markup import GAP, TEXT_FORMATS, TextFormat, looks_like_html, to_discord
from bot.quizbank.parse import Problem
from bot.quizbank.schema import MAX_CHOICES, MIN_CHOICES, Question, Quiz

SPECIAL = "~=#{}:"
# Moodle's answer weight, `%50%` or `%-33.33333%`, at an answer's start (anchored, bounded).
WEIGHT = re.compile(r"%-*([0-9]{1,2})\.?([0-9]*)%")
# Escapes become private-use characters while the text is cut up, as Moodle's placeholders.
_ESCAPED = {c: chr(0xE000 + i) for i, c in enumerate("~=#{}:\\%")}
_NEWLINE = chr(0xE010)
_RESTORE = str.maketrans({v: k for k, v in _ESCAPED.items()} | {_NEWLINE: "\n"})
_MARKDOWN = set("*_`~|[]#\\")


# --- reading ---------------------------------------------------------------------------


def _pre(text: str) -> str:
    """Escaped characters as placeholders (`\\\\` a backslash, `\\n` a line break)."""
    out: list[str] = []
    index = 0
    while True:
        slash = text.find("\\", index)
        if slash == -1 or slash + 1 >= len(text):
            out.append(text[index:])
            return "".join(out)
        out.append(text[index:slash])
        nxt = text[slash + 1]
        if nxt in _ESCAPED:
            out.append(_ESCAPED[nxt])
        elif nxt == "n":
            out.append(_NEWLINE)
        else:
            out.append(text[slash : slash + 2])
        index = slash + 2


def _post(text: str) -> str:
    return text.translate(_RESTORE)


@dataclass
class _Text:
    text: str
    format: TextFormat


def _with_format(text: str, default: TextFormat) -> _Text:
    """Moodle's parse_text_with_format: a leading `[format]` tag, else `default`."""
    text = text.strip()
    if text.startswith("["):
        end = text.find("]")
        name = text[1:end] if end != -1 else ""
        if name in TEXT_FORMATS:
            return _Text(_post(text[end + 1 :]).strip(), name)
    return _Text(_post(text).strip(), default)


@dataclass
class _Block:
    line: int
    lines: list[str]
    comments: list[str] = field(default_factory=list)


def _blocks(text: str) -> list[_Block]:
    """Questions are separated by blank lines (not inside an open `{ }`); whole-line `//`
    comments are set aside (they may hold Moodle's `[id:...]`)."""
    blocks: list[_Block] = []
    current: _Block | None = None
    comments: list[str] = []
    depth = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _pre(raw)
        if line.strip().startswith("//"):
            comments.append(line)
            continue
        if not line.strip() and depth == 0:
            if current is not None:
                blocks.append(current)
                current = None
            continue
        if current is None:
            current = _Block(number, [], comments)
            comments = []
        current.lines.append(line)
        depth = max(0, depth + line.count("{") - line.count("}"))
    if current is not None:
        blocks.append(current)
    return blocks


def _idnumber(comments: list[str]) -> str | None:
    for comment in comments:
        start = comment.find("[id:")
        end = comment.find("]", start + 4)
        if start != -1 and end != -1:
            return _post(comment[start + 4 : end]).strip()
    return None


def _kind(answers: str) -> str | None:
    """Moodle's question type of the text between the braces; None for multiple choice."""
    if not answers:
        return "an essay question"
    if answers.startswith("#"):
        return "a numerical question"
    if "~" in answers:
        return None
    if "=" in answers and "->" in answers:
        return "a matching question"
    check = answers[: answers.find("#")].strip() if answers.find("#") > 0 else answers
    if check in ("T", "TRUE", "F", "FALSE"):
        return "a true/false question"
    return "a short-answer question"


def _weight(answer: str) -> tuple[float, str]:
    if answer.startswith("="):
        return 1.0, answer[1:]
    found = WEIGHT.match(answer)
    if found is None:
        return 0.0, answer
    try:
        value = float(found[0][1:-1].lstrip("-") or 0) * (-1 if found[0][1] == "-" else 1)
    except ValueError:
        value = 0.0
    return value / 100, answer[found.end() :]


def _percent(fraction: float) -> str:
    return f"{fraction * 100:.5f}".rstrip("0").rstrip(".") + " %"


def _question(block: _Block, file: str, parsed: Parsed) -> None:
    def problem(message: str) -> None:
        parsed.errors.append(Problem(file, block.line, "", message))

    text = "\n".join(block.lines).strip()
    name: str | None = None
    if text.startswith("::"):
        text = text[2:]
        end = text.find("::")
        if end != -1:
            name = " ".join(_post(text[:end]).split())
            text = text[end + 2 :].strip()
    start, finish = text.find("{"), text.find("}")
    if start == -1 and finish == -1:
        parsed.skipped.append(
            Problem(file, block.line, "", "skipped: a description (no answers) is not a question")
        )
        return
    if start == -1 or finish < start:
        problem("a { or } is missing around the answers")
        return
    answers = text[start + 1 : finish].strip()
    if text.endswith("}"):
        question_text = text[:start] + text[finish + 1 :]
    else:
        question_text = text[:start] + GAP + text[finish + 1 :]
    general = ""
    split = answers.rfind("####")
    if split != -1:
        general, answers = answers[split + 4 :], answers[:split].strip()
    prompt = _with_format(question_text, "moodle")
    kind = _kind(answers)
    if kind is not None:
        parsed.skipped.append(Problem(file, block.line, "", f"skipped: {kind}"))
        return
    pieces = answers.replace("=", "~=").split("~")
    if not pieces[0].strip():
        pieces = pieces[1:]
    if not MIN_CHOICES <= len(pieces) <= MAX_CHOICES:
        problem(
            f"a question needs {MIN_CHOICES} to {MAX_CHOICES} answers; this one has {len(pieces)}"
        )
        return
    fractions: list[float] = []
    choices: list[_Text] = []
    feedback: list[_Text] = []
    for piece in pieces:
        fraction, rest = _weight(piece.strip())
        answer, _, said = rest.partition("#")
        fractions.append(fraction)
        choices.append(_with_format(answer, prompt.format))
        feedback.append(_with_format(said, prompt.format))
    rights = [i for i, fraction in enumerate(fractions) if abs(fraction - 1) < 1e-9]
    if len(rights) != 1:
        positive = sum(fraction > 0 for fraction in fractions)
        if not rights and not positive:
            problem("no right answer: mark it with =")
        else:
            parsed.skipped.append(
                Problem(file, block.line, "", "skipped: a question with several right answers")
            )
        return
    notes: list[str] = []
    partial = [
        f"{chr(65 + i)} {_percent(f)}" for i, f in enumerate(fractions) if f and i != rights[0]
    ]
    if partial:
        notes.append(
            "partial credit dropped (" + ", ".join(partial) + "): the 100 % answer is right,"
            " every other answer wrong"
        )
    draft = Draft.of(
        line=block.line,
        prompt=to_discord(prompt.text, prompt.format),
        choices=[to_discord(c.text, c.format) for c in choices],
        answer=rights[0],
        general=to_discord(_with_format(general, prompt.format).text, prompt.format)
        if general.strip()
        else None,
        feedback=[to_discord(f.text, f.format) for f in feedback],
        name=name,
        idnumber=_idnumber(block.comments),
        notes=notes,
    )
    parsed.drafts.append(draft)


def parse_gift(text: str, file: str = "<gift>") -> Parsed:
    parsed = Parsed()
    for block in _blocks(text.removeprefix("\ufeff")):
        first = block.lines[0].strip()
        if first.startswith("$CATEGORY:"):
            if parsed.category is None:
                parsed.category = _post(first.removeprefix("$CATEGORY:")).strip()
            if len(block.lines) == 1 or not "".join(block.lines[1:]).strip():
                continue
            block = _Block(block.line + 1, block.lines[1:], block.comments)
        _question(block, file, parsed)
    return parsed


# --- writing ---------------------------------------------------------------------------


def escape(text: str) -> str:
    """Text as GIFT writes it: `\\`, `~ = # { } :` escaped with a backslash, line breaks `\\n`."""
    out = text.replace("\\", "\\\\")
    for char in SPECIAL:
        out = out.replace(char, "\\" + char)
    return out.replace("\r\n", "\n").replace("\n", "\\n")


def _needs(text: str) -> TextFormat:
    """The format a quiz text is written in for Moodle: markdown where it uses markdown,
    plain where Moodle would read it as HTML, else Moodle's own (no tag)."""
    if _MARKDOWN.intersection(text) or text.lstrip().startswith(">"):
        return "markdown"
    if looks_like_html(text):
        return "plain"
    return "moodle"


def _write(text: str, default: TextFormat) -> str:
    needed = _needs(text)
    tag = (needed != default and needed != "moodle") or text.startswith("[")
    return (f"[{needed}]" if tag else "") + escape(text)


def _answer(mark: str, text: str, default: TextFormat) -> str:
    written = _write(text, default)
    if mark == "~" and WEIGHT.match(written):
        return "~%0%" + written  # a wrong answer that starts like a weight: weight it 0
    return mark + written


def _question_gift(question: Question, locale: str) -> list[str]:
    prompt = question.text("prompt", locale)
    choices = question.choice_texts(locale)
    general, feedback = split_explanation(question.text("explanation", locale), choices)
    if general == t("import.default_explanation", locale, choice=choices[question.answer]):
        general = ""  # the explanation an import gave a question without feedback
    fmt = _needs(prompt)
    name = question.title or question.id
    lines = [f"// [id:{question.id}]", f"::{escape(name)}::{_write(prompt, 'moodle')}{{"]
    for index, choice in enumerate(choices):
        answer = _answer("=" if index == question.answer else "~", choice, fmt)
        said = feedback[index]
        lines.append("\t" + answer + (f"#{_write(said, fmt)}" if said else ""))
    if general:
        lines.append(f"\t####{_write(general, fmt)}")
    return [*lines, "}", ""]


def to_gift(quiz: Quiz, locale: str) -> str:
    """One quiz in GIFT, in one language: the question's name (else its id) as `::name::`
    and its id as Moodle's `[id:...]`, each choice's line of the explanation as that
    answer's feedback, the rest as the general feedback; `[markdown]` only on markdown.
    `import_text(..., "gift")` reads it back to the same questions."""
    lines = [
        f"// {quiz.id}: {quiz.title.get(locale, next(iter(quiz.title.values())))} ({locale})",
        f"$CATEGORY: {quiz.id}",
        "",
    ]
    for question in quiz.questions:
        lines += _question_gift(question, locale)
    return "\n".join(lines)
