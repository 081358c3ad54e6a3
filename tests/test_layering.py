"""The layering holds: the Discord-free core imports neither discord nor torch.

Only the named Discord-facing modules of `bot/` may load discord.py; torch is imported
by the demo worker alone (experiments/, in its own process).
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import bot

DISCORD_FACING = {
    "bot.discord.client",
    "bot.discord.startup",
    "bot.discord.internals",
    "bot.cli.main",
    "bot.__main__",
}


def core_modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(bot.__path__, "bot.")]
    return sorted(n for n in names if n not in DISCORD_FACING and ".migrations" not in n)


def test_the_core_imports_neither_discord_nor_torch() -> None:
    modules = core_modules()
    assert {
        "bot.services.daily.jobs",
        "bot.services.outbox",
        "bot.services.sessions",
        "bot.core.quizbank.bank",
    } <= set(modules)
    script = f"""
import importlib, json, sys
first = {{}}
for name in {modules!r}:
    importlib.import_module(name)
    for heavy in ("discord", "torch"):
        if heavy in sys.modules and heavy not in first:
            first[heavy] = name
print(json.dumps(first))
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(out.stdout) == {}, "a core module pulls in a heavy dependency"


def test_feature_cogs_do_not_import_each_other() -> None:
    import ast
    from pathlib import Path

    cogs_dir = Path(bot.__file__).resolve().parent.parent / "cogs"
    features = {p.stem for p in cogs_dir.glob("*.py") if p.stem not in {"__init__", "common"}}
    features |= {p.name for p in cogs_dir.iterdir() if p.is_dir() and p.name not in {"ui"}}
    features.discard("__pycache__")
    for path in cogs_dir.rglob("*.py"):
        owner = path.relative_to(cogs_dir).parts[0].removesuffix(".py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("cogs."):
                target = node.module.split(".")[1]
                assert target == owner or target not in features, (str(path), node.module)
