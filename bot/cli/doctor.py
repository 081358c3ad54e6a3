"""`quiztutor doctor`: checks a host's set-up and says what to fix.

Each check returns (ok, detail, fix). Torch is probed in a child process so the
check reports import time and GPU visibility the way the demo worker will see them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

from bot.common.errors import SetupError
from bot.common.private_files import env_file_check
from bot.common.settings import Settings, token_shape_problem
from bot.discord.startup import TOKEN_SHAPE_FIX


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def check_token(settings: Settings) -> Check:
    token = settings.discord_token.get_secret_value().strip() if settings.discord_token else ""
    if not token:
        return Check(
            "token",
            False,
            "DISCORD_TOKEN is not set",
            "create a bot at https://discord.com/developers/applications and put"
            " DISCORD_TOKEN=... in .env (README, First run)",
        )
    problem = token_shape_problem(token)
    if problem is not None:
        return Check("token", False, problem, TOKEN_SHAPE_FIX)
    return Check("token", True, "DISCORD_TOKEN is set (validity is checked when the bot logs in)")


def check_database(settings: Settings) -> Check:
    from bot.db.health import diagnose

    found = diagnose(settings.database_url)
    return Check("database", found.ok, found.detail, found.fix)


def check_quizzes(settings: Settings) -> Check:
    """Exactly what the bot loads (shipped + QUIZ_DIRS), each failing file named."""
    from bot.cli.boundary import empty_folders, problems_summary, quiz_sources
    from bot.quizbank.files import load_quizzes

    try:
        sources = quiz_sources(settings)
    except SetupError as exc:
        return Check("quizzes", False, exc.message, exc.fix)
    quizzes, problems = load_quizzes(sources)
    if problems:
        return Check(
            "quizzes",
            False,
            f"{problems_summary(problems)}; first: {problems[0]}",
            "run `quiztutor validate` and fix the files",
        )
    empty = ", ".join(str(p) for p in empty_folders(sources))
    return Check(
        "quizzes",
        True,
        f"{len(quizzes)} quizzes, {sum(len(q.questions) for q in quizzes)} questions"
        + (f" (warning: no quiz files in {empty})" if empty else ""),
    )


# Runs in a child interpreter: the doctor itself never loads torch.
TORCH_PROBE = "; ".join(
    [
        "import json, time",
        "t = time.perf_counter()",
        "import torch",
        "info = {'version': torch.__version__, 'import_s': round(time.perf_counter() - t, 2),"
        " 'cuda': torch.cuda.is_available()}",
        "info['gpu'] = torch.cuda.get_device_name(0) if info['cuda'] else None",
        "print(json.dumps(info))",
    ]
)


def check_torch(settings: Settings) -> Check:
    try:
        done = subprocess.run(
            [sys.executable, "-c", TORCH_PROBE],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Check(
            "torch", False, "importing torch took over 2 minutes", "check the torch installation"
        )
    if done.returncode != 0:
        return Check(
            "torch",
            False,
            "torch cannot be imported",
            "pip install torch (CPU: pip install torch==2.13.0)",
        )
    info = json.loads(done.stdout.strip().splitlines()[-1])
    device = f"GPU {info['gpu']}" if info["cuda"] else "no GPU visible: demos run on the CPU"
    if settings.demo_device == "cuda" and not info["cuda"]:
        return Check(
            "torch",
            False,
            f"torch {info['version']}, {device}",
            "set DEMO_DEVICE=auto or install a CUDA build of torch",
        )
    return Check("torch", True, f"torch {info['version']} (import {info['import_s']} s), {device}")


CHECKS: list[Callable[[Settings], Check]] = [
    check_token,
    lambda _: Check(".env", *env_file_check()),
    check_database,
    check_quizzes,
    check_torch,
]


def run_doctor() -> int:
    from bot.cli.boundary import load_settings

    try:
        settings = load_settings()
    except SetupError as exc:
        print(f"✗ settings: {exc.message}")
        print(f"    fix: {exc.fix.splitlines()[0] if exc.fix else 'see README, Configuration'}")
        print("1 check(s) need attention.")
        return 1
    failed = 0
    for check in CHECKS:
        result = check(settings)
        mark = "✓" if result.ok else "✗"
        print(f"{mark} {result.name}: {result.detail}")
        if not result.ok:
            failed += 1
            print(f"    fix: {result.fix}")
    print("All good." if not failed else f"{failed} check(s) need attention.")
    return 1 if failed else 0
