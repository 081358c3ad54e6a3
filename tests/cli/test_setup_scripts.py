"""scripts/setup.sh, which scripts/tutor and scripts/test share: the torch it installs for
the host (the CUDA build only with an NVIDIA driver; else the default index's build only if
it is a CPU one, else the CPU index with short timeouts), and a second run that installs
nothing. pip is a stand-in that records its arguments; nothing is downloaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE_PIP = """#!/bin/sh
echo "$*" >> "$(dirname "$0")/../pip.log"
case "$*" in
  *--dry-run*)
    for arg in "$@"; do [ "$prev" = --report ] && cp "$(dirname "$0")/../report.json" "$arg"; prev="$arg"; done ;;
  *download.pytorch.org*) exit "${CPU_INDEX_EXIT:-0}" ;;
esac
exit 0
"""


def setup_run(
    tmp_path: Path,
    script: str,
    *,
    driver: bool,
    installs: list[str],
    has_torch: bool = False,
    **env: str,
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True, exist_ok=True)
    pip = venv / "bin" / "pip"
    pip.write_text(FAKE_PIP)
    pip.chmod(0o755)
    (venv / "bin" / "python").symlink_to(sys.executable)
    report = {"install": [{"metadata": {"name": name}} for name in installs]}
    (venv / "report.json").write_text(json.dumps(report))
    (venv / "pip.log").write_text("")
    body = (
        f". {ROOT / 'scripts' / 'setup.sh'}\n"
        f"torch_ready() {{ return {0 if has_torch else 1}; }}\n"
        f"has_nvidia_driver() {{ return {0 if driver else 1}; }}\n"
        f"{script}\n"
    )
    result = subprocess.run(
        ["bash", "-c", body],
        env={"PATH": "/usr/bin:/bin", "QUIZTUTOR_VENV": str(venv), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return result, (venv / "pip.log").read_text().splitlines()


def test_a_host_with_an_nvidia_driver_gets_the_default_build(tmp_path: Path) -> None:
    result, calls = setup_run(tmp_path, "install_torch", driver=True, installs=[])
    assert result.returncode == 0, result.stderr
    assert calls == ["install torch==2.13.0"]


def test_a_cpu_host_whose_index_has_a_cpu_build_uses_it(tmp_path: Path) -> None:
    result, calls = setup_run(tmp_path, "install_torch", driver=False, installs=["torch", "sympy"])
    assert result.returncode == 0, result.stderr
    assert calls[-1] == "install torch==2.13.0" and "download.pytorch.org" not in " ".join(calls)


def test_a_cpu_host_never_downloads_the_cuda_build(tmp_path: Path) -> None:
    cuda = ["torch", "nvidia-cublas-cu13", "triton"]
    result, calls = setup_run(tmp_path, "install_torch", driver=False, installs=cuda)
    assert result.returncode == 0, result.stderr
    assert "--dry-run" in calls[0]
    assert calls[1:] == [
        "install --timeout 15 --retries 1 torch==2.13.0 --index-url "
        "https://download.pytorch.org/whl/cpu"
    ]


def test_an_unreachable_cpu_index_is_an_error_with_a_fix(tmp_path: Path) -> None:
    cuda = ["torch", "nvidia-cudnn-cu13"]
    result, _ = setup_run(
        tmp_path, "install_torch", driver=False, installs=cuda, CPU_INDEX_EXIT="1"
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines[-2].startswith("error: https://download.pytorch.org/whl/cpu could not be reached")
    assert lines[-1].startswith("fix: ")


@pytest.mark.parametrize("extras", ["", "dev"])
def test_quiztutor_is_installed_once_per_pyproject(tmp_path: Path, extras: str) -> None:
    script = f"install_quiztutor '{extras}'; install_quiztutor '{extras}'; install_quiztutor ''"
    result, calls = setup_run(tmp_path, script, driver=False, installs=[], has_torch=True)
    assert result.returncode == 0, result.stderr
    expected = "install --quiet -e ." + (f"[{extras}]" if extras else "")
    assert calls == [expected]  # the second run (and plain after [dev]) install nothing
