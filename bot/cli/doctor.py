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
            " DISCORD_TOKEN=... in .env (docs/discord-setup.md)",
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


# Runs in a child interpreter: the doctor itself never loads torch. It checks what a demo
# worker will find (experiments.gpu.probe): CUDA available, and the GPU working.
TORCH_PROBE = (
    "import json, sys; from experiments.cuda import probe; print(json.dumps(probe(sys.argv[1])))"
)
GPU_FIX = (
    "free the GPU (another job may hold it or its memory), update the NVIDIA driver, "
    "or set DEMO_DEVICE=auto (falls back to the CPU) or DEMO_DEVICE=cpu"
)


def check_torch(settings: Settings) -> Check:
    from experiments.gpu import is_cuda, stderr_reason

    try:
        done = subprocess.run(
            [sys.executable, "-c", TORCH_PROBE, settings.demo_device],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Check(
            "torch", False, "importing torch took over 2 minutes", "check the torch installation"
        )
    why = stderr_reason(done.stderr)
    if done.returncode != 0:
        return Check(
            "torch",
            False,
            "torch cannot be imported" + (f" ({why})" if why else ""),
            "pip install torch (CPU: pip install torch==2.13.0)",
        )
    info = json.loads(done.stdout.strip().splitlines()[-1])
    head = f"torch {info['version']} (import {info['import_s']} s)"
    wants_gpu = is_cuda(settings.demo_device)
    if info["reason"]:  # a GPU seen (or named) that does not work
        gpu = f"GPU {info['gpu']}" if info["gpu"] else "GPU"
        if wants_gpu:
            detail = f"{head}, {gpu} unusable: {info['reason']}; demos are refused"
            return Check("torch", False, detail, GPU_FIX)
        detail = f"{head}, {gpu} unusable: {info['reason']}; demos fall back to the CPU"
        return Check("torch", True, f"{detail} (warning)")
    if info["cuda"] and info["gpu"]:
        claims = info.get("capability") or {}
        sm = str(claims.get("compute_capability", "?")).replace(".", "")
        return Check("torch", True, f"{head}, GPU {info['gpu']} (sm_{sm}) works")
    if info["cuda"]:
        return Check("torch", True, f"{head}, CUDA available; DEMO_DEVICE=cpu: demos on the CPU")
    device = f"no GPU usable ({why})" if why else "no GPU visible"
    if wants_gpu:
        return Check(
            "torch",
            False,
            f"{head}, {device}",
            "set DEMO_DEVICE=auto or install a CUDA build of torch",
        )
    return Check("torch", True, f"{head}, {device}: demos run on the CPU")


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
        print(f"    fix: {exc.fix.splitlines()[0] if exc.fix else 'see docs/configuration.md'}")
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
