"""The SQL side of `bot.learning.recall_rules`: a review card's stability, its last review in
days and its terms of the class recall's sums, computed in the database (SQLite, with
its math functions, or PostgreSQL), so that a class of thousands of cards comes back as
one row per question."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, bindparam, cast, func, literal, select, update
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import SQLModel

from bot.db.tables.aggregates import ClassRecall
from bot.db.tables.review import ReviewCard
from bot.learning.recall_rules import EPOCH, MIN_EXPONENT, SUMS

_CARD = SQLModel.metadata.tables[ReviewCard.__tablename__]


def greatest(conn: AsyncConnection, a: Any, b: Any) -> ColumnElement[float]:
    if conn.dialect.name == "postgresql":
        return func.greatest(a, b)
    return func.max(a, b)  # SQLite's max() of two arguments is the scalar one


def review_days(conn: AsyncConnection) -> ColumnElement[Any]:
    """A card's last review in days since EPOCH, in SQL."""
    column = _CARD.c.last_review
    if conn.dialect.name == "postgresql":  # a naive UTC timestamp's epoch is its UTC one
        since_1970 = (EPOCH - datetime(1970, 1, 1, tzinfo=EPOCH.tzinfo)).days
        return cast(func.extract("epoch", column), Float) / 86_400.0 - since_1970
    return func.julianday(column) - func.julianday(EPOCH.strftime("%Y-%m-%d %H:%M:%S"))


def card_stability() -> ColumnElement[float]:
    return _CARD.c.card["stability"].as_float()


_TERMS: dict[str, Any] = {}


def terms_select(conn: AsyncConnection) -> Any:
    """SUM of each term of the cards of the members `:users`, at the time `:at`
    (`bot.learning.recall_rules.terms`), per question; built once per dialect.

    Each card's values are computed once, in a subquery that OFFSET 0 keeps the planner
    from merging into the sums (merged, each card's JSON is parsed twice per term: the
    fold of 8,907 members after an upgrade took 28 s on PostgreSQL and 12 s on SQLite,
    instead of 4 and 5)."""
    name = conn.dialect.name
    if name not in _TERMS:
        at = bindparam("at", type_=Float)
        stability = card_stability()
        card = (
            select(
                _CARD.c.question_id,
                (at - review_days(conn) + stability / SUMS.factor).label("u"),
                func.power(literal(SUMS.factor) / stability, SUMS.decay).label("c"),
            )
            .where(_CARD.c.user_id.in_(bindparam("users", expanding=True)))
            .offset(0)
            .subquery("terms")
        )
        sums = [
            func.sum(card.c.c * func.exp(greatest(conn, literal(MIN_EXPONENT), card.c.u * -rate)))
            for rate in SUMS.rates
        ]
        _TERMS[name] = select(card.c.question_id, func.count(), *sums).group_by(card.c.question_id)
    return _TERMS[name]


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
