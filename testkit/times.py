"""Time in tests and benchmarks: a clock moved by hand (aware UTC datetimes, passed where the
code takes `clock=`) and time zones where a daily post is due now."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def noon_zone() -> tuple[str, datetime]:
    """A fixed-offset IANA zone where the local hour is 12 now, and the local time."""
    now = datetime.now(UTC)
    for offset in range(-12, 15):
        local = now + timedelta(hours=offset)
        if local.hour == 12:
            # Etc/GMT signs are POSIX-inverted: Etc/GMT-7 is UTC+7.
            name = "Etc/GMT" if offset == 0 else f"Etc/GMT{'-' if offset > 0 else '+'}{abs(offset)}"
            return name, local
    raise AssertionError("some offset in -12..+14 has local noon")


def passed_today() -> tuple[str, str]:
    """(zone, "HH:MM") of a post time two minutes ago: today's question is due and open."""
    zone, local = noon_zone()
    return zone, (local - timedelta(minutes=2)).strftime("%H:%M")
