"""The `quiztutor` command line: one entry point for hosting, authoring and studying.

Each subcommand imports what it needs when it runs, so `quiztutor validate` or
`quiztutor play` start quickly and never load discord.py or torch.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path


def _cmd_validate(args: argparse.Namespace) -> int:
    from bot.quizbank import SHIPPED_DIR, load_quizzes
    from bot.quizbank.cues import file_cue_warnings

    paths = [Path(p) for p in args.paths] or [SHIPPED_DIR]
    missing = [p for p in paths if not p.exists()]
    for path in missing:
        print(f"{path}:1: file not found", file=sys.stderr)
    quizzes, problems = load_quizzes(p for p in paths if p.exists())
    for problem in problems:
        print(problem)
    for warning in file_cue_warnings(p for p in paths if p.exists()):  # warnings never fail
        print(warning)
    if problems or missing:
        print(f"{len(problems) + len(missing)} problem(s) found.", file=sys.stderr)
        return 1
    n_questions = sum(len(q.questions) for q in quizzes)
    print(f"OK: {len(quizzes)} quiz(zes), {n_questions} questions.")
    return 0


def _load_bank_or_report(paths: Sequence[str]):  # type: ignore[no-untyped-def]
    from bot.quizbank import SHIPPED_DIR, QuizBank, QuizFileError

    try:
        return QuizBank.load([Path(p) for p in paths] or [SHIPPED_DIR])
    except QuizFileError as exc:
        print(exc, file=sys.stderr)
        print("Fix the quiz files above (see `quiztutor validate`).", file=sys.stderr)
        return None


def _cmd_export(args: argparse.Namespace) -> int:
    from bot.quizbank.export import export_bank

    bank = _load_bank_or_report(args.paths)
    if bank is None:
        return 1
    print(json.dumps(export_bank(bank), ensure_ascii=False, indent=2))
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from bot.quizbank.export import json_schema_text

    text = json_schema_text()
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from bot.tutor import play

    bank = _load_bank_or_report([])
    if bank is None:
        return 1
    return play(bank, quiz_id=args.quiz, locale=args.lang, count=args.count, seed=args.seed)


def _cmd_demo(args: argparse.Namespace) -> int:
    from experiments.cli import main as demo_main

    return demo_main(args.demo_args)


def _cmd_run(args: argparse.Namespace) -> int:
    from bot.app import run_bot

    return run_bot()


def _cmd_sync(args: argparse.Namespace) -> int:
    from bot.app import sync_commands

    return sync_commands(guild_id=args.guild)


def _cmd_backup(args: argparse.Namespace) -> int:
    from bot.app import backup_database

    return backup_database(Path(args.file))


def _cmd_doctor(args: argparse.Namespace) -> int:
    from bot.doctor import run_doctor

    return run_doctor()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quiztutor",
        description="A Discord study bot for the numerics of neural-network training.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="run the Discord bot (needs DISCORD_TOKEN)")
    run.set_defaults(func=_cmd_run)

    sync = sub.add_parser("sync", help="register the slash commands with Discord")
    sync.add_argument("--guild", type=int, help="register in one server only (instant)")
    sync.set_defaults(func=_cmd_sync)

    validate = sub.add_parser("validate", help="check quiz files (default: the shipped ones)")
    validate.add_argument("paths", nargs="*", help="quiz files or folders")
    validate.set_defaults(func=_cmd_validate)

    export = sub.add_parser("export", help="print the quizzes in a stable JSON format")
    export.add_argument("--format", choices=["json"], default="json")
    export.add_argument("paths", nargs="*", help="quiz files or folders (default: shipped)")
    export.set_defaults(func=_cmd_export)

    schema = sub.add_parser("schema", help="print the JSON Schema of quiz files")
    schema.add_argument("--output", "-o", help="write to this file instead of stdout")
    schema.set_defaults(func=_cmd_schema)

    play = sub.add_parser("play", help="take a quiz in the terminal")
    play.add_argument("--quiz", help="quiz id (default: all quizzes)")
    play.add_argument("--lang", choices=["id", "en"], default="en")
    play.add_argument("--count", type=int, help="number of questions")
    play.add_argument("--seed", type=int, help="seed for the order of questions and choices")
    play.set_defaults(func=_cmd_play)

    demo = sub.add_parser(
        "demo",
        help="run a torch experiment (see `quiztutor demo --help`)",
        add_help=False,
    )
    demo.add_argument("demo_args", nargs=argparse.REMAINDER)
    demo.set_defaults(func=_cmd_demo)

    backup = sub.add_parser("backup", help="copy the database safely while the bot runs")
    backup.add_argument("file", help="destination file")
    backup.set_defaults(func=_cmd_backup)

    doctor = sub.add_parser("doctor", help="check token, database, quizzes, torch and GPU")
    doctor.set_defaults(func=_cmd_doctor)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["demo"]:
        # The demo command has its own parser (experiments.cli); hand it everything,
        # --help included.
        from experiments.cli import main as demo_main

        return demo_main(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
