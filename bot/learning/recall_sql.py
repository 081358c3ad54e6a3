"""The SQL side of `bot.learning.recall_rules`: a review card's stability, its last review in
days and its terms of the class recall's sums, computed in the database (SQLite, with
its math functions, or PostgreSQL), so that a class of thousands of cards comes back as
one row per question."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Float, bindparam, cast, func, literal, select, update
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import SQLModel

from bot.db.tables.aggregates import ClassRecall
from bot.db.tables.review import ReviewCard
from bot.learning.recall_rules import EPOCH, MIN_EXPONENT, RecallSums

_CARD = SQLModel.metadata.tables[ReviewCard.__tablename__]


def greatest(dialect: str, a: Any, b: Any) -> ColumnElement[float]:
    if dialect == "postgresql":
        return func.greatest(a, b)
    return func.max(a, b)  # SQLite's max() of two arguments is the scalar one


def review_days(dialect: str) -> ColumnElement[Any]:
    """A card's last review in days since EPOCH, in SQL."""
    column = _CARD.c.last_review
    if dialect == "postgresql":  # a naive UTC timestamp's epoch is its UTC one
        since_1970 = (EPOCH - datetime(1970, 1, 1, tzinfo=EPOCH.tzinfo)).days
        return cast(func.extract("epoch", column), Float) / 86_400.0 - since_1970
    return func.julianday(column) - func.julianday(EPOCH.strftime("%Y-%m-%d %H:%M:%S"))


def card_stability() -> ColumnElement[float]:
    return _CARD.c.card["stability"].as_float()


def recall_now(dialect: str, curve: RecallSums, at: float) -> ColumnElement[float]:
    """A card's retrievability at `at` under `curve` (`RecallSums.exact`), in SQL."""
    elapsed = greatest(dialect, literal(0.0), literal(at) - review_days(dialect))
    return func.power(1.0 + literal(curve.factor) * elapsed / card_stability(), curve.decay)


@lru_cache(maxsize=64)
def terms_select(dialect: str, curve: RecallSums) -> Any:
    """SUM of each term under `curve` of the cards of the members `:users`, at the time
    `:at` (`RecallSums.terms`), per question; built once per dialect and curve.

    Each card's values are computed once, in a subquery that OFFSET 0 keeps the planner
    from merging into the sums (merged, each card's JSON is parsed twice per term: the
    fold of 8,907 members after an upgrade took 28 s on PostgreSQL and 12 s on SQLite,
    instead of 4 and 5)."""
    at = bindparam("at", type_=Float)
    stability = card_stability()
    card = (
        select(
            _CARD.c.question_id,
            (at - review_days(dialect) + stability / curve.factor).label("u"),
            func.power(literal(curve.factor) / stability, curve.decay).label("c"),
        )
        .where(_CARD.c.user_id.in_(bindparam("users", expanding=True)))
        .offset(0)
        .subquery("terms")
    )
    sums = [
        func.sum(card.c.c * func.exp(greatest(dialect, literal(MIN_EXPONENT), card.c.u * -rate)))
        for rate in curve.rates
    ]
    return select(card.c.question_id, func.count(), *sums).group_by(card.c.question_id)


_RECALL = SQLModel.metadata.tables[ClassRecall.__tablename__]

# One server's sums of one question replaced (executemany over the changed keys).
UPDATE_SUMS = (
    update(_RECALL)
    .where(
        _RECALL.c.guild_id == bindparam("k_guild"),
        _RECALL.c.question_id == bindparam("k_question"),
    )
    .values(
        cards=bindparam("cards"),
        sums=bindparam("sums", type_=_RECALL.c.sums.type),
        as_of=bindparam("as_of", type_=_RECALL.c.as_of.type),
    )
)
