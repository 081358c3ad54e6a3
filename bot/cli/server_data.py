"""The commands that read a server's data from DATABASE_URL: `quiztutor stats` (a
server's daily-question analytics), `quiztutor reports` (the questions members reported)
and `quiztutor memory` (a server's memory model: fit it now, or show it)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bot.cli import boundary
from bot.cli.argtypes import positive, weeks
from bot.cli.helptext import add_command
from bot.common.errors import SetupError


def _cmd_reports(args: argparse.Namespace) -> int:
    from bot.cli.reports import run_reports

    settings = boundary.load_settings()
    bank = boundary.load_bank(boundary.quiz_files([]))
    sys.stdout.write(run_reports(settings.database_url, bank, args.guild, as_csv=args.csv))
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    from bot.cli.stats import run_stats

    settings = boundary.load_settings()
    bank = boundary.load_bank(boundary.quiz_files([]))
    text = run_stats(
        settings.database_url,
        bank,
        args.guild,
        as_csv=args.csv,
        table=args.table,
        weeks=args.weeks,
        lang=args.lang,
    )
    sys.stdout.write(text)
    return 0


def _cmd_memory(args: argparse.Namespace) -> int:
    from bot.cli.memory import run_fit, run_show

    if args.action is None:
        raise SetupError(
            "quiztutor memory: an ACTION is missing: `fit` (fit the model now) or `show`"
            " (what is stored)",
            "see `quiztutor help memory`",
            exit_code=2,
        )
    settings = boundary.load_settings()
    if args.action == "fit":
        from bot.cli.progress import working

        with working(f"fitting the memory model of server {args.guild}"):
            text = run_fit(settings.database_url, args.guild, epochs=args.epochs, quiet=args.quiet)
    else:
        text = run_show(settings.database_url, args.guild, as_json_output=args.json)
    sys.stdout.write(text)
    return 0


def add_commands(sub: Any) -> None:
    """`stats`, `reports` and `memory` on the command line's subparsers."""
    stats = add_command(sub, "stats")
    stats.add_argument(
        "--guild", type=positive, required=True, metavar="ID", help="the server id (required)"
    )
    stats.add_argument("--csv", action="store_true", help="CSV on stdout (default: a plain table)")
    stats.add_argument(
        "--table",
        choices=["questions", "weeks"],
        default=None,
        help="per question or per week (default: both as text; with --csv, per question)",
    )
    stats.add_argument(
        "--weeks",
        type=weeks,
        default=8,
        metavar="N",
        help="weeks of participation, 1 to 52 (default: 8)",
    )
    stats.add_argument(
        "--lang", choices=["id", "en"], default="en", help="language of choice texts (default: en)"
    )
    stats.set_defaults(func=_cmd_stats)

    reports = add_command(sub, "reports")
    reports.add_argument(
        "--guild", type=positive, metavar="ID", help="one server (default: every server)"
    )
    reports.add_argument("--csv", action="store_true", help="CSV on stdout (default: a table)")
    reports.set_defaults(func=_cmd_reports)

    memory = add_command(sub, "memory")
    # Not `required`: `quiztutor memory` alone names the actions (`_cmd_memory`).
    actions = memory.add_subparsers(dest="action", metavar="ACTION")
    fit = add_command(actions, "memory fit")
    show = add_command(actions, "memory show")
    for action in (fit, show):
        action.add_argument(
            "--guild", type=positive, required=True, metavar="ID", help="the server id (required)"
        )
    fit.add_argument(
        "--epochs", type=positive, default=None, metavar="N", help="optimizer epochs (default: 5)"
    )
    fit.add_argument("--quiet", action="store_true", help="print nothing (the bot's weekly fit)")
    show.add_argument("--json", action="store_true", help="the stored row as JSON")
    memory.set_defaults(func=_cmd_memory)
