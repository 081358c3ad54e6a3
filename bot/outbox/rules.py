"""The outbox's rules: what can be owed to a channel, when a failed send is tried again,
and the nonce that lets Discord recognise a resend."""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum

# A claim older than this is taken to be a process that died mid-send.
LEASE = timedelta(seconds=120)
FIRST_RETRY_S = 5
MAX_RETRY_S = 600


class Owed(StrEnum):
    REACTIONS = "reactions"  # the answer reactions under a daily post
    REVEAL = "reveal"  # the reply that reveals a settled daily post
    DISCUSSION = "discussion"  # the thread opened on a revealed daily post
    LIVE_REVEAL = "live-reveal"  # the reveal of a live round's question
    LIVE_END = "live-end"  # a live round's scoreboard
    REMINDER = "reminder"  # a member's review reminder of one day, by DM


def retry_delay(attempts: int) -> timedelta:
    """5 s, 10 s, 20 s ... capped at 10 minutes."""
    return timedelta(seconds=min(MAX_RETRY_S, FIRST_RETRY_S * 2 ** max(0, attempts - 1)))


def nonce(kind: str, item_id: int) -> str:
    """Discord de-duplicates a bot's messages with the same nonce (25 characters at most)."""
    return f"qt-{kind[:3]}-{item_id}"


def question_nonce(round_id: int, number: int) -> str:
    """The nonce of a live round's question message: a resend after a crash between
    Discord's answer and our record returns the message already in the thread."""
    return f"qt-lq-{round_id}-{number}"
