"""What `quiztutor help COMMAND` says: a one-line summary, the details, and an example for
every command and subcommand, kept in one place so the list (`quiztutor help`) and each
command's own help say the same."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Help:
    summary: str  # one line, in the list of commands and at the top of the command's help
    examples: tuple[str, ...]  # command lines a newcomer can paste
    details: str = ""


HELP: dict[str, Help] = {
    "run": Help(
        "run the Discord bot until Ctrl-C (needs DISCORD_TOKEN)",
        ("quiztutor run", "DATABASE_URL=sqlite+aiosqlite:////srv/quiztutor/q.db quiztutor run"),
        "Settings come from the environment, else from the file .env in the directory you\n"
        "start it in: DISCORD_TOKEN (the bot's token: Discord Developer Portal, your\n"
        "application, Bot, Reset Token), DATABASE_URL and the rest (docs/configuration.md).\n"
        "Data goes to DATABASE_URL, by default sqlite+aiosqlite:///data/quiztutor.db: the\n"
        "file data/quiztutor.db under that same directory, created on the first run.\n"
        "Give an absolute path (four slashes) to start it from anywhere, or a\n"
        "postgresql+asyncpg:// URL. Without a token it says how to get one; meanwhile\n"
        "`quiztutor play` needs none. `quiztutor doctor` checks all of this first.",
    ),
    "sync": Help(
        "register the slash commands with Discord (once, and after an upgrade)",
        ("quiztutor sync --guild 123456789012345678", "quiztutor sync"),
        "With --guild they appear in that server at once; without, in every server, which\n"
        "Discord may take up to an hour to show. Needs DISCORD_TOKEN, as `run` does.",
    ),
    "validate": Help(
        "check quiz files and question templates, with FILE:LINE for each problem",
        ("quiztutor validate", "quiztutor validate my-quiz.yaml --seeds 100"),
        "Without PATH it checks what the bot loads (the shipped quizzes and QUIZ_DIRS) and\n"
        "runs every question template on 1,000 seeds (about 20 s; progress on stderr).\n"
        "Exit status 1 on any problem.",
    ),
    "export": Help(
        "write the quizzes as JSON (a stable format) or as Moodle GIFT",
        (
            "quiztutor export -o quizzes.json",
            "quiztutor export --format gift --lang id -o kuis.gift",
            "quiztutor export --format json | jq '.quizzes[].id'",
        ),
        "To a terminal it needs --format or -o: the JSON of the shipped quizzes alone is\n"
        "over 200 KB.",
    ),
    "import": Help(
        "turn a Moodle GIFT, Aiken or CSV file into a quiz file (YAML)",
        ("quiztutor import bank.gift -o my-quiz.yaml", "quiztutor import questions.csv --lang id"),
        "Question types a quiz cannot hold are listed with their line and skipped; a\n"
        "malformed question writes nothing (exit 1). See docs/quiz-files.md.",
    ),
    "schema": Help(
        "print the JSON Schema of quiz files (for editors)",
        ("quiztutor schema -o quiz.schema.json",),
    ),
    "play": Help(
        "take a quiz in the terminal: no Discord, no token",
        ("quiztutor play --lang id", "quiztutor play --quiz mixed-precision --count 5"),
        "Questions come from the quizzes the bot loads; answer with a letter and Enter.\n"
        "Generated questions run torch in this process. Ctrl-C stops with the score so far.",
    ),
    "demo": Help(
        "run a torch experiment and print its numbers (`quiztutor demo --list`)",
        ("quiztutor demo --list", "quiztutor demo accumulation --micro-batches 4"),
    ),
    "generate": Help(
        "print a generated question (`quiztutor generate --list`)",
        ("quiztutor generate --list", "quiztutor generate fp16-round --seed 7"),
    ),
    "backup": Help(
        "copy the database safely while the bot runs",
        ('quiztutor backup "backups/quiztutor-$(date +%F).db"',),
        "SQLite: an online copy. PostgreSQL: prints the pg_dump command to run.",
    ),
    "stats": Help(
        "a server's daily-question analytics, for instructors (reads DATABASE_URL)",
        ("quiztutor stats --guild 123456789012345678", "quiztutor stats --guild 1234 --csv"),
        "Per question the answers and the most chosen wrong answer; per week the members.\n"
        "Reads the bot's database (DATABASE_URL), which the bot creates on its first run.",
    ),
    "reports": Help(
        "the questions members reported as wrong, newest first (reads DATABASE_URL)",
        ("quiztutor reports", "quiztutor reports --guild 123456789012345678 --csv"),
    ),
    "memory": Help(
        "a server's memory model (spaced review): `fit` it now or `show` it",
        ("quiztutor memory show --guild 123456789012345678",),
        "Reads and writes the bot's database (DATABASE_URL). ACTION is one of those below.",
    ),
    "memory fit": Help(
        "fit FSRS to the server's reviews now; adopt it only if it predicts better",
        ("quiztutor memory fit --guild 123456789012345678",),
        "Needs 1,000 reviews from 30 members; runs torch in this process (up to a minute\n"
        "or two). The bot does this once a week by itself.",
    ),
    "memory show": Help(
        "what is stored: the parameters in use and the last fit",
        ("quiztutor memory show --guild 123456789012345678 --json",),
    ),
    "doctor": Help(
        "check the token, the database, the quiz files and torch; say what to fix",
        ("quiztutor doctor",),
        "One line per check; exit status 1 if one needs attention.",
    ),
    "help": Help(
        "show the help of quiztutor or of one command",
        ("quiztutor help run", "quiztutor help memory show"),
    ),
}


def epilog(name: str) -> str:
    lines = ["example:" if len(HELP[name].examples) == 1 else "examples:"]
    lines += [f"  {example}" for example in HELP[name].examples]
    return "\n".join(lines)


def description(name: str) -> str:
    entry = HELP[name]
    summary = entry.summary[0].upper() + entry.summary[1:] + "."
    return f"{summary}\n\n{entry.details}" if entry.details else summary


def add_command(sub: Any, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    """A subcommand (`name` as in HELP, e.g. "memory fit") with its summary and example."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name.split()[-1],
        help=HELP[name].summary,
        description=description(name),
        epilog=epilog(name),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        **kwargs,
    )
    return parser
