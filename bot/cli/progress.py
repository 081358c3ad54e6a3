"""Progress of long commands on standard error, with tqdm (a dependency of fsrs's
optimizer, named in pyproject as well): shown only when standard error is a terminal, so
pipes, logs and tests see the same output as before."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


def bar(items: Iterable[T], what: str, *, seeds: int | None = None) -> Iterable[T]:
    """`items` with a progress bar `what: 3/24 [00:02<00:20]` on a terminal."""
    from tqdm import tqdm

    label = f"{what} ({seeds} seeds each)" if seeds else what
    return tqdm(
        items,
        desc=label,
        unit="template" if what == "templates" else "",
        file=sys.stderr,
        disable=None,
        leave=False,
    )


@contextmanager
def working(what: str) -> Iterator[None]:
    """`what… 12 s` ticking on a terminal while a step of unknown length runs."""
    from tqdm import tqdm

    with tqdm(
        desc=what,
        total=None,
        bar_format="{desc}… {elapsed}",
        file=sys.stderr,
        disable=None,
        leave=False,
    ) as ticker:
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(0.5):
                ticker.refresh()

        thread = threading.Thread(target=tick, daemon=True)
        if not ticker.disable:
            thread.start()
        try:
            yield
        finally:
            stop.set()
            if thread.is_alive():
                thread.join()
