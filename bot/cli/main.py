"""The `quiztutor` command line: one entry point for hosting, authoring and studying.

Each subcommand imports what it needs when it runs, so most start quickly and never load
discord.py or torch. Torch runs in this process only where the command is about it:
`quiztutor demo`, `quiztutor generate`, `quiztutor validate` (its question templates) and
`quiztutor play` (a quiz's generated questions). Every command runs
inside one error boundary (`bot.cli.boundary.guarded`): an expected failure is at most three
lines and exit status 1 (runtime) or 2 (usage or configuration), never a traceback
unless LOG_LEVEL=DEBUG.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from bot.cli import boundary, server_data
from bot.cli.argtypes import positive
from bot.cli.helptext import add_command
from bot.cli.validate import DEFAULT_TEMPLATE_SEEDS, seeds_arg
from bot.common.errors import SetupError


def _cmd_validate(args: argparse.Namespace) -> int:
    from bot.cli.validate import run_validate

    return run_validate(boundary.quiz_files(args.paths), given=bool(args.paths), seeds=args.seeds)


def _cmd_export(args: argparse.Namespace) -> int:
    from bot.cli.imports import export_text

    target = boundary.check_output_path(args.output, "export") if args.output else None
    bank = boundary.load_bank(boundary.quiz_files(args.paths))
    text = export_text(bank, args.format or "json", args.lang)
    if target is not None:
        target.write_text(text, encoding="utf-8")
        print(f"{len(bank.quizzes)} quiz(zes) written to {target}", file=sys.stderr)
    elif args.format is None and sys.stdout.isatty():
        # A bare `export` in a terminal: say what it would write, do not scroll it past.
        print(
            f"export would print {len(bank.quizzes)} quiz(zes) as {len(text.encode()) // 1024} KB"
            " of JSON here.\nWrite them to a file with `quiztutor export -o quizzes.json`,"
            " or pipe them: `quiztutor export --format json | less`."
        )
    else:
        sys.stdout.write(text)
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    from bot.cli.imports import run_import

    return run_import(
        args.file, args.format, args.output, args.lang, args.id, args.title, args.strict
    )


def _cmd_schema(args: argparse.Namespace) -> int:
    from bot.quizbank.export import json_schema_text

    target = boundary.check_output_path(args.output, "schema") if args.output else None
    text = json_schema_text()
    if target is not None:
        target.write_text(text, encoding="utf-8")
        print(f"schema written to {target}", file=sys.stderr)
    else:
        print(text, end="")
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    import importlib.util

    from bot.cli.player import play
    from experiments.generators import generate

    bank = boundary.load_bank(boundary.quiz_files([]))
    # Generated questions run torch here; without torch installed, written ones only.
    with_torch = importlib.util.find_spec("torch") is not None
    return play(
        bank,
        quiz_id=args.quiz,
        locale=args.lang,
        count=args.count,
        seed=args.seed,
        generate=generate if with_torch else None,
    )


def _cmd_demo(argv: Sequence[str]) -> int:
    from experiments.cli import main as demo_main

    return demo_main(argv)


def _cmd_generate(argv: Sequence[str]) -> int:
    from experiments.generate_cli import main as generate_main

    return generate_main(argv)


def _cmd_run(args: argparse.Namespace) -> int:
    from bot.cli.run import run_bot

    return run_bot()


def _cmd_sync(args: argparse.Namespace) -> int:
    from bot.cli.run import sync_commands

    return sync_commands(guild_id=args.guild)


def _cmd_backup(args: argparse.Namespace) -> int:
    from bot.cli.progress import working
    from bot.db.backup import backup_database

    settings = boundary.load_settings()
    with working(f"copying the database to {args.file}"):
        done = backup_database(settings.database_url, Path(args.file))
    print(done)
    return 0


def _cmd_doctor(args: argparse.Namespace) -> int:
    from bot.cli.doctor import run_doctor

    return run_doctor()


def _cmd_help(args: argparse.Namespace) -> int:
    parser = build_parser()
    if not args.topic:
        parser.print_help()
        return 0
    if args.topic == ["demo"]:
        return _cmd_demo(["--help"])
    if args.topic == ["generate"]:
        return _cmd_generate(["--help"])
    found = parser
    for depth, word in enumerate(args.topic):  # `help memory show`: one level down
        commands = _subparsers(found)
        if word not in commands:
            asked = " ".join(args.topic[: depth + 1])
            raise SetupError(
                f"no command {asked!r}",
                f"one of {', '.join(commands) or 'none'}; `quiztutor help"
                f"{' ' + ' '.join(args.topic[:depth]) if depth else ''}` describes them",
                exit_code=2,
            )
        found = commands[word]
    found.print_help()
    return 0


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("quiztutor")
    except PackageNotFoundError:  # running from a checkout (PYTHONPATH) without pip install
        import tomllib

        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        return str(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"])


class _Parser(argparse.ArgumentParser):
    """argparse with a two-line usage error (what is wrong, where the help is)."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("quiztutor").strip()
        self.exit(
            2,
            f"error: {self.prog}: {message}\n"
            f"fix: see `quiztutor help{' ' + command if command else ''}`\n",
        )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="quiztutor",
        description="A Discord study bot for the numerics of neural-network training.",
        epilog="`quiztutor help COMMAND` (or `quiztutor COMMAND --help`) explains one command,"
        " with an example.\nexamples:\n  quiztutor play --lang id\n  quiztutor doctor\n"
        "  quiztutor help run",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"quiztutor {version()}")
    # Not `required`: argparse would then report a missing COMMAND before an unknown option
    # (`quiztutor --bogus`); `main` says a COMMAND is missing when none is given.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = add_command(sub, "run")
    run.set_defaults(func=_cmd_run)

    sync = add_command(sub, "sync")
    sync.add_argument(
        "--guild",
        type=positive,
        metavar="ID",
        help="a server id (a positive integer): register there only, instantly "
        "(default: DEV_GUILD_ID, else global)",
    )
    sync.set_defaults(func=_cmd_sync)

    validate = add_command(sub, "validate")
    validate.add_argument("paths", nargs="*", metavar="PATH", help="quiz files or folders")
    validate.add_argument(
        "--seeds",
        type=seeds_arg,
        default=DEFAULT_TEMPLATE_SEEDS,
        metavar="N",
        help="instances per question template, 0 to 100000 (default: "
        f"{DEFAULT_TEMPLATE_SEEDS}; 100 for a quicker look; 0 skips the templates). "
        "Without PATH every template is run, else those the files name",
    )
    validate.set_defaults(func=_cmd_validate)

    export = add_command(sub, "export")
    export.add_argument(
        "--format",
        choices=["json", "gift"],
        default=None,
        help="json (the default) or gift (Moodle, one language: --lang)",
    )
    export.add_argument(
        "--output", "-o", metavar="FILE", help="write to FILE (default: standard output)"
    )
    export.add_argument(
        "--lang", choices=["id", "en"], default="en", help="with gift: the language (default: en)"
    )
    export.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="quiz files or folders (default: shipped + QUIZ_DIRS)",
    )
    export.set_defaults(func=_cmd_export)

    import_ = add_command(sub, "import")
    import_.add_argument("file", metavar="FILE", help="the file to import (UTF-8)")
    import_.add_argument(
        "--format",
        choices=["gift", "csv", "aiken"],
        help="default: by the extension (.gift .csv .aiken), else by the content",
    )
    import_.add_argument(
        "--output", "-o", metavar="OUT.yaml", help="write to OUT.yaml (default: stdout)"
    )
    import_.add_argument(
        "--lang",
        choices=["id", "en"],
        default="en",
        help="the file's language; the other is filled with the same text, marked untranslated",
    )
    import_.add_argument("--id", metavar="QUIZ_ID", help="the quiz id (default: from the name)")
    import_.add_argument("--title", metavar="TITLE", help="the quiz title (default: the name)")
    import_.add_argument(
        "--strict",
        action="store_true",
        help="import nothing when any question is malformed or breaks a quiz rule "
        "(default: import the good ones, list the others, exit status 3)",
    )
    import_.set_defaults(func=_cmd_import)

    schema = add_command(sub, "schema")
    schema.add_argument(
        "--output", "-o", metavar="FILE", help="write to FILE (its folder must exist)"
    )
    schema.set_defaults(func=_cmd_schema)

    play = add_command(sub, "play")
    play.add_argument("--quiz", metavar="ID", help="quiz id (default: all quizzes mixed)")
    play.add_argument("--lang", choices=["id", "en"], default="en", help="id or en (default: en)")
    play.add_argument(
        "--count",
        type=positive,
        metavar="N",
        help="number of questions, 1 to the number available (default: all)",
    )
    play.add_argument(
        "--seed", type=int, metavar="S", help="any integer: the same seed, the same order"
    )
    play.set_defaults(func=_cmd_play)

    # Parsed by experiments.cli (main() hands it everything); listed here for the help.
    add_command(sub, "demo", add_help=False)
    # Parsed by experiments.generate_cli, the same way.
    add_command(sub, "generate", add_help=False)

    backup = add_command(sub, "backup")
    backup.add_argument("file", metavar="FILE", help="destination file (not the database itself)")
    backup.set_defaults(func=_cmd_backup)

    server_data.add_commands(sub)

    doctor = add_command(sub, "doctor")
    doctor.set_defaults(func=_cmd_doctor)

    help_ = add_command(sub, "help")
    help_.add_argument(
        "topic", nargs="*", metavar="COMMAND", help="a command, and an action (`memory show`)"
    )
    help_.set_defaults(func=_cmd_help)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["demo"]:
        # The demo command has its own parser (experiments.cli); hand it everything,
        # --help included.
        return boundary.guarded(lambda: _cmd_demo(argv[1:]))
    if argv[:1] == ["generate"]:  # likewise (experiments.generate_cli)
        return boundary.guarded(lambda: _cmd_generate(argv[1:]))
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.error(f"a COMMAND is missing: one of {', '.join(_subparsers(parser))}")
    except SystemExit as exc:  # argparse printed the usage and the error (or the help)
        return int(exc.code or 0)
    return boundary.guarded(lambda: args.func(args))
