"""Discord's IDENTIFY limit: each bucket (`shard_id % max_concurrency`) may start one
session per 5 seconds; a second IDENTIFY in the window is refused (invalid session)."""

from __future__ import annotations

# Discord's window; the bot spaces turns by IDENTIFY_SPACING_S (6 s by default): the
# window plus the time from a turn to the IDENTIFY frame reaching Discord (the hook runs
# right before it is sent; a busy event loop on either side delays it by more than the
# network does).
IDENTIFY_WINDOW_S = 5.0


def identify_bucket(shard_id: int, max_concurrency: int) -> int:
    return shard_id % max(1, max_concurrency)
