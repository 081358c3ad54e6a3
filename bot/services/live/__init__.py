"""Live rounds, Discord-free: `LiveRounds` (what members and hosts do, the batched answer
writer) and `LiveDriver` (the rounds this process drives; reveals and scoreboards
through the outbox). The live cog implements `LivePublisher` with discord.py."""

from bot.services.live.driver import LiveDriver
from bot.services.live.publisher import (
    LivePublisher,
    QuestionView,
    Reveal,
    RoundView,
    Scoreboard,
)
from bot.services.live.rounds import Answered, LiveRounds, MyResult, RoundInfo
from bot.storage.live_answers import Outcome, Recorded

__all__ = [
    "Answered",
    "LiveDriver",
    "LivePublisher",
    "LiveRounds",
    "MyResult",
    "Outcome",
    "QuestionView",
    "Recorded",
    "Reveal",
    "RoundInfo",
    "RoundView",
    "Scoreboard",
]
