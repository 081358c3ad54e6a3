"""A clock the test moves by hand (aware UTC datetimes), passed where the code takes `clock=`."""

from __future__ import annotations

from datetime import datetime


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now
