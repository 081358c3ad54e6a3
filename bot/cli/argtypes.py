"""Argument types of the command line: argparse calls them, and their errors become the
two-line usage error (`error:`, `fix:`)."""

from __future__ import annotations

import argparse


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def weeks(text: str) -> int:
    value = int(text)
    if not 1 <= value <= 52:
        raise argparse.ArgumentTypeError(f"must be 1 to 52, got {value}")
    return value
