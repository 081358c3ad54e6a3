"""Checking an output file before any work (`quiztutor demo --plot`, `quiztutor schema -o`):
a bad path must cost seconds, not a computed result. Torch-free; the bot's command line
uses the same check."""

from __future__ import annotations

import os
from pathlib import Path


class OutputPathError(ValueError):
    """`path` cannot be written as a file: what is wrong (`str()`) and the thing to do."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


def check_output_path(path: str | Path, what: str = "output") -> Path:
    """`path` as a Path, or an OutputPathError when it cannot be written as a file."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise OutputPathError(
            f"{what} {target} is a folder", f"give a file name, e.g. {target / 'out.png'}"
        )
    if not parent.is_dir():
        raise OutputPathError(
            f"cannot write {what} {target}: folder {parent} does not exist",
            f"create it first: mkdir -p {parent}",
        )
    writable = os.access(target, os.W_OK) if target.exists() else os.access(parent, os.W_OK)
    if not writable:
        raise OutputPathError(
            f"cannot write {what} {target}: permission denied", "choose a path you can write to"
        )
    return target
