"""Per-route rate limits of the stand-in, answered as Discord answers them.

Discord limits each route per its "major parameter" (a channel, a guild, a webhook):
every response on a limited route carries `X-RateLimit-Limit`, `-Remaining`, `-Reset`,
`-Reset-After` and `-Bucket`, and a request over the limit gets 429 with a JSON body
`{"message", "retry_after", "global"}`, the same headers (`Remaining: 0`), `Retry-After`
and `X-RateLimit-Scope: user`. discord.py reads these: it waits out `Remaining: 0`
before the next request on that bucket, and sleeps `retry_after` and retries on a 429.

Opt-in per route (`FakeDiscord.limit_route`), e.g. message edits:
`fake.limit_route("PATCH", r"/channels/(?P<major>\\d+)/messages/\\d+", 5, 5.0)`.
"""

from __future__ import annotations

import collections
import hashlib
import math
import re
import time
from dataclasses import dataclass, field


@dataclass
class RouteLimit:
    """`limit` requests per `per` seconds on each major parameter of a route."""

    method: str
    pattern: re.Pattern[str]
    limit: int
    per: float
    bucket: str
    hits: dict[str, collections.deque[float]] = field(
        default_factory=lambda: collections.defaultdict(collections.deque)
    )
    refused: int = 0  # 429s answered

    def major(self, match: re.Match[str]) -> str:
        return match.groupdict().get("major") or ""


@dataclass(frozen=True)
class Verdict:
    headers: dict[str, str]
    retry_after: float | None  # None: allowed


class RouteLimits:
    def __init__(self) -> None:
        self.routes: list[RouteLimit] = []

    def add(self, method: str, path_regex: str, limit: int, per: float) -> RouteLimit:
        bucket = hashlib.sha1(f"{method} {path_regex}".encode()).hexdigest()[:16]
        route = RouteLimit(method.upper(), re.compile(f"^{path_regex}$"), limit, per, bucket)
        self.routes.append(route)
        return route

    def check(self, method: str, path: str) -> Verdict | None:
        """None: the route is not limited. Else the headers to send, and whether (how
        long) the request must wait instead."""
        for route in self.routes:
            if route.method != method:
                continue
            match = route.pattern.match(path)
            if match is None:
                continue
            return self._take(route, route.major(match))
        return None

    @staticmethod
    def _take(route: RouteLimit, major: str) -> Verdict:
        now = time.monotonic()
        window = route.hits[major]
        while window and now - window[0] >= route.per:
            window.popleft()
        if len(window) >= route.limit:
            reset_after = route.per - (now - window[0])
            route.refused += 1
            headers = _headers(route, 0, reset_after)
            headers.update(
                {
                    "Retry-After": str(max(1, math.ceil(reset_after))),
                    "X-RateLimit-Scope": "user",
                    # discord.py takes a 429 without Via for a Cloudflare ban.
                    "Via": "1.1 google",
                }
            )
            return Verdict(headers, reset_after)
        window.append(now)
        reset_after = route.per - (now - window[0])
        return Verdict(_headers(route, route.limit - len(window), reset_after), None)


def _headers(route: RouteLimit, remaining: int, reset_after: float) -> dict[str, str]:
    return {
        "X-RateLimit-Limit": str(route.limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
        "X-RateLimit-Reset-After": f"{reset_after:.3f}",
        "X-RateLimit-Bucket": route.bucket,
    }


def limited_body(retry_after: float) -> dict[str, object]:
    return {"message": "You are being rate limited.", "retry_after": retry_after, "global": False}
