"""Parsing a quiz file's text, with problems reported as `FILE:LINE: field.path: message`.

YAML is read with PyYAML's SafeLoader only (no tags that build Python objects),
composed first so every value keeps the line it came from; pydantic then
validates the plain data and each error's location is mapped back to a line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import yaml
from pydantic import ValidationError

from bot.quizbank.schema import Path as FieldPath
from bot.quizbank.schema import Quiz, cross_field_problems

MAX_FILE_BYTES = 256 * 1024
# libyaml's parser when PyYAML was built with it (several times faster); same safe constructor.
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True, order=True)
class Problem:
    file: str
    line: int
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return f"{self.file}:{self.line}: {where}{self.message}"


class QuizFileError(ValueError):
    """A quiz file (or set of files) that does not validate; `problems` says why."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def format_path(path: FieldPath) -> str:
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


class _LineIndex:
    """Maps a field path to the line (1-based) where YAML wrote it."""

    def __init__(self, root: yaml.Node | None):
        self._lines: dict[FieldPath, int] = {}
        if root is not None:
            self._walk(root, ())

    def _walk(self, node: yaml.Node, path: FieldPath) -> None:
        self._lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                key = key_node.value
                self._walk(value_node, (*path, key))
                # The key's own line is where a reader looks for the field.
                self._lines[(*path, key)] = key_node.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._walk(item, (*path, index))

    def line(self, path: FieldPath) -> int:
        # A missing field is reported at its nearest existing parent.
        while path and path not in self._lines:
            path = path[:-1]
        return self._lines.get(path, 1)


def _pydantic_problems(error: ValidationError) -> list[tuple[FieldPath, str]]:
    problems: list[tuple[FieldPath, str]] = []
    for item in error.errors(include_url=False):
        loc = tuple(item["loc"])
        kind = item["type"]
        if kind == "missing":
            message = "required field is missing"
        elif kind == "extra_forbidden":
            message = f"unknown key '{loc[-1]}'"
        else:
            message = item["msg"][:1].lower() + item["msg"][1:]
        problems.append((loc, message))
    return problems


def _refuse_aliases(text: str) -> None:
    """Aliases let a few hundred bytes expand into millions of nodes (a "billion laughs"
    file): quiz files never need them, so an uploaded file with one is refused."""
    if "*" not in text:  # every alias is written with a '*': skip the scan
        return
    for event in yaml.parse(text, Loader=SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            raise yaml.MarkedYAMLError(
                problem="YAML aliases (*name) are not allowed in quiz files",
                problem_mark=event.start_mark,  # type: ignore[arg-type]
            )


def _compose_and_construct(text: str) -> tuple[yaml.Node | None, object]:
    """Parse once: the node tree (for line numbers) and the plain data built from it."""
    _refuse_aliases(text)
    loader = SafeLoader(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    finally:
        loader.dispose()
    return root, data


def parse_quiz(text: str, file: str = "<quiz>") -> Quiz:
    """Validate one quiz file's text; raises QuizFileError listing every problem."""
    if len(text.encode()) > MAX_FILE_BYTES:
        raise QuizFileError(
            [Problem(file, 1, "", f"file is larger than {MAX_FILE_BYTES // 1024} KiB")]
        )
    try:
        root, data = _compose_and_construct(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        raise QuizFileError(
            [Problem(file, line, "", f"not valid YAML: {exc.problem or exc}")]
        ) from None
    except yaml.YAMLError as exc:
        raise QuizFileError([Problem(file, 1, "", f"not valid YAML: {exc}")]) from None
    return validate_data(data, file, _LineIndex(root).line)


def validate_data(
    data: object, file: str = "<quiz>", line: Callable[[FieldPath], int] = lambda path: 1
) -> Quiz:
    """The one validation of quiz data (a YAML file's, an import's, a suggestion's): the
    schema, then the rules between fields; every problem with its `line(path)`."""
    if not isinstance(data, dict):
        raise QuizFileError(
            [
                Problem(
                    file,
                    1,
                    "",
                    "a quiz file must be a mapping with id, title, description and questions",
                )
            ]
        )
    try:
        quiz = Quiz.model_validate(data)
    except ValidationError as exc:
        found = _pydantic_problems(exc)
    else:
        found = cross_field_problems(quiz)
    if found:
        problems = sorted(
            Problem(file, line(path), format_path(path), message) for path, message in found
        )
        raise QuizFileError(problems)
    return quiz


def line_of(text: str, path: FieldPath) -> int:
    """The line of `path` (e.g. ("questions", 3, "id")) in a quiz file's text."""
    return _LineIndex(_compose_and_construct(text)[0]).line(path)
