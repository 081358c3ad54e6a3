"""`quiztutor memory fit|show --guild ID`: a server's memory model from the command line.

`fit` reads the server's latest reviews (at most 100,000) from DATABASE_URL, fits FSRS's
parameters to them in this process (`experiments.memory_fit`: fsrs's optimizer on torch),
stores the figures, adopts the parameters only when they beat the defaults on the latest
20 % of reviews (held out of the fit), and then replays the cards this server schedules
with its rules, so no review is lost. The bot's weekly fit runs exactly this, in a child
process. `show` prints what is memory_store. Both need the schema of this version (0008).
"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from typing import Any

from bot.common.errors import SetupError
from bot.common.times import utcnow
from bot.db.database import Database
from bot.db.tables.learning import MemoryModel
from bot.learning import memory_store, recall_store

SCHEMA = "0008"


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value else "never"


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def describe(guild_id: int, model: MemoryModel | None, retention: float) -> str:
    """What `quiztutor memory show` prints."""
    if model is None:
        return (
            f"server {guild_id}: no graded answer yet; default parameters, "
            f"target retention {retention:.2f}\n"
        )
    in_use = (
        f"its own fitted parameters, adopted {_when(model.adopted_at)}"
        if model.parameters
        else "FSRS's default parameters"
    )
    lines = [
        f"server {guild_id}: {in_use}; target retention {retention:.2f}",
        f"last fit: {_when(model.fitted_at)}: {model.decision or 'none yet'}"
        + (f" ({model.reason})" if model.reason else ""),
        f"reviews {model.reviews} from {model.members} members; "
        f"held-out reviews scored {model.held_out}",
        f"{'':10s}{'log-loss':>10s}{'RMSE(bins)':>12s}",
        f"{'defaults':10s}{_figure(model.log_loss_default):>10s}{_figure(model.rmse_default):>12s}",
        f"{'fitted':10s}{_figure(model.log_loss_fitted):>10s}{_figure(model.rmse_fitted):>12s}",
    ]
    if model.parameters:
        lines.append("parameters: " + ", ".join(f"{w:.4f}" for w in model.parameters))
    lines.append(
        f"cards replayed at the last change: {model.rescheduled}; "
        f"next weekly fit: {_when(model.next_fit_at)}"
    )
    return "\n".join(lines) + "\n"


def as_json(guild_id: int, model: MemoryModel | None, retention: float) -> str:
    data: dict[str, Any] = {"guild_id": guild_id, "retention": retention, "model": None}
    if model is not None:
        data["model"] = json.loads(model.model_dump_json())
    return json.dumps(data, indent=2) + "\n"


async def _open(url: str) -> Database:
    from bot.cli.stats import open_existing

    return await open_existing(url, needs=SCHEMA)


async def _show(url: str, guild_id: int) -> tuple[MemoryModel | None, float]:
    db = await _open(url)
    try:
        return await memory_store.model(db, guild_id), (
            await memory_store.rules_for(db, guild_id)
        ).retention
    finally:
        await db.close()


def run_show(url: str, guild_id: int, *, as_json_output: bool = False) -> str:
    model, retention = asyncio.run(_show(url, guild_id))
    return (as_json if as_json_output else describe)(guild_id, model, retention)


async def fit_guild(db: Database, guild_id: int, *, epochs: int | None = None) -> dict[str, Any]:
    """Fit, store, adopt or not, replay the cards; the fit's result (with "rescheduled")."""
    from bot.learning.memory import FIT_EVERY
    from experiments.memory_fit import DEFAULT_EPOCHS, fit_server

    now = utcnow()
    if not await memory_store.claim_fit(db, guild_id, now):
        raise SetupError(
            f"a fit of server {guild_id} is running in another process",
            "wait until it is done (at most 30 minutes), then run this again",
        )
    try:
        before = await memory_store.model(db, guild_id)
        old = before.parameters if before is not None else None
        reviews = await memory_store.reviews_for_fit(db, guild_id)
        result = await asyncio.to_thread(
            fit_server, reviews, epochs=DEFAULT_EPOCHS if epochs is None else epochs
        )
        await memory_store.save_fit(db, guild_id, result, now, now + FIT_EVERY)
    except BaseException:
        await memory_store.release_fit(db, guild_id)
        raise
    new = result["parameters"] if result["decision"] == "fitted" else None
    result["rescheduled"] = 0
    if new != old:
        # The parameters in use changed (a new fit, or back to the defaults): replay.
        result["rescheduled"] = await memory_store.reschedule(db, guild_id)
        await memory_store.set_rescheduled(db, guild_id, result["rescheduled"])
        # The class recall under the new curve, if `save_fit` had it counted anew.
        await recall_store.fold(db, guild_id, utcnow())
    return result


async def _fit(url: str, guild_id: int, epochs: int | None) -> tuple[dict[str, Any], str]:
    db = await _open(url)
    try:
        result = await fit_guild(db, guild_id, epochs=epochs)
        model = await memory_store.model(db, guild_id)
        retention = (await memory_store.rules_for(db, guild_id)).retention
        return result, describe(guild_id, model, retention)
    finally:
        await db.close()


def run_fit(url: str, guild_id: int, *, epochs: int | None = None, quiet: bool = False) -> str:
    result, text = asyncio.run(_fit(url, guild_id, epochs))
    if quiet:
        return ""
    return f"fit: {result['decision']}; cards replayed: {result['rescheduled']}\n" + text
