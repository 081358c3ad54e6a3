"""Learning II helpers: a synthetic server's review log pushed through the bot's own
`record_grades` (so cards, log, daily counts and the server's model row are as the bot
makes them)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from bot.db.database import Database
from bot.learning.cards_store import record_grades
from bot.learning.memory_store import rules_on
from bot.learning.review_rules import QUIZ, Grade, Source
from experiments.memory_fit import parse_time


def grade_of(
    review: dict[str, Any], index: int, guild_id: int | None, prefix: str = "sim"
) -> Grade:
    """A simulated review as the answer that makes it: Easy is a right answer within 8 s."""
    rating = int(review["rating"])
    return Grade(
        int(review["member_id"]),
        str(review["question_id"]),
        rating > 1,
        parse_time(review["reviewed_at"]),
        Source(QUIZ, f"{prefix}{index}"),
        seconds=5.0 if rating == 4 else None,
        guild_id=guild_id,
    )


async def seed_reviews(
    db: Database,
    reviews: Sequence[dict[str, Any]],
    guild_id: int | None,
    chunk: int = 500,
    prefix: str = "sim",
) -> int:
    """Apply the reviews in time order, `chunk` per transaction; how many were applied.
    `prefix` makes the answers' sources (each review is its own quiz session)."""
    grades = [grade_of(r, i, guild_id, prefix) for i, r in enumerate(reviews)]
    grades.sort(key=lambda g: g.when)
    applied = 0
    for start in range(0, len(grades), chunk):
        async with db.session() as session:
            rules = await rules_on(await session.connection(), guild_id)
            applied += await record_grades(session, grades[start : start + chunk], rules)
            await session.commit()
    return applied


def at(text: str) -> datetime:
    return parse_time(text)
