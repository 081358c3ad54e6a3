"""Each kind of GPU failure named and handled outside the worker: the demos do not call a
GPU failure "unsupported" nor switch methods over it, the command line prints error:/fix:
for it, the doctor says why CUDA is unusable, and DEMO_DEVICE names a GPU by number.

The failures are the exceptions torch raises (`experiments.cuda.inject`); a demo's own
step is made to raise them where a GPU would, without a GPU.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from pydantic import ValidationError

from bot.cli.doctor import check_torch
from bot.common.settings import Settings
from experiments import autocast_demo, loss_scaling, speed_memory
from experiments._common import FIGURE_LOG
from experiments.cli import main as cli_main
from experiments.gpu import DEVICE_PATTERN, FAULT_ENV, FAULT_MESSAGES, stderr_reason
from tests.support.cli import cli

OOM = torch.cuda.OutOfMemoryError(FAULT_MESSAGES["oom"])
CPU = torch.device("cpu")


def raise_oom(*args: Any, **kwargs: Any) -> Any:
    raise OOM


# ------------------------------------------------------------------ the demos
def test_speed_memory_reports_out_of_memory_not_unsupported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(speed_memory, "matmul_samples", raise_oom)
    with pytest.raises(torch.cuda.OutOfMemoryError):
        speed_memory.compute(CPU)


def test_speed_memory_plots_when_every_dtype_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    def unsupported(*args: Any) -> Any:
        raise RuntimeError('"addmm_impl_cpu_" not implemented for this dtype')

    monkeypatch.setattr(speed_memory, "matmul_samples", unsupported)
    numbers = speed_memory.compute(CPU)
    assert all(str(v).startswith("unsupported") for v in numbers["matmul_gflops"].values())
    FIGURE_LOG.clear()
    assert speed_memory.plot(numbers).startswith(b"\x89PNG")
    assert "16-bit matmul unsupported" in FIGURE_LOG[-1]["lesson"]


def test_autocast_demo_reports_out_of_memory_not_unsupported_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = autocast_demo.make_ops

    def ops(dev: torch.device, low: torch.dtype) -> dict[str, Any]:
        return real(dev, low) | {"softmax": raise_oom}

    monkeypatch.setattr(autocast_demo, "make_ops", ops)
    with pytest.raises(torch.cuda.OutOfMemoryError):
        autocast_demo.observe(CPU)


def test_loss_scaling_does_not_switch_methods_over_a_gpu_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = loss_scaling.amp_grads

    def grads(model: Any, x: Any, y: Any, dtype: Any, scaler: Any) -> Any:
        if dtype is None:  # the fp32 reference, before the autocast backward
            return real(model, x, y, dtype, scaler)
        raise OOM

    monkeypatch.setattr(loss_scaling, "amp_grads", grads)
    with pytest.raises(torch.cuda.OutOfMemoryError):
        loss_scaling.compute(CPU)


def test_loss_scaling_says_so_when_it_casts_instead(monkeypatch: pytest.MonkeyPatch) -> None:
    real = loss_scaling.amp_grads

    def no_fp16(model: Any, x: Any, y: Any, dtype: Any, scaler: Any) -> Any:
        if dtype is None:
            return real(model, x, y, dtype, scaler)
        raise RuntimeError("fp16 autocast is not supported on this device")

    monkeypatch.setattr(loss_scaling, "amp_grads", no_fp16)
    numbers = loss_scaling.compute(CPU)
    assert numbers["method"].startswith("cast only")
    FIGURE_LOG.clear()
    loss_scaling.plot(numbers)
    assert FIGURE_LOG[-1]["note"].startswith("Cast only: fp16 autocast is unavailable here")
    assert ("method", numbers["method"]) in loss_scaling.highlights(numbers)


# ------------------------------------------------------------------ quiztutor demo
@pytest.mark.parametrize(
    ("fault", "error", "fix"),
    [
        ("run:oom", "error: CUDA out of memory.", "fix: the GPU is busy; try again"),
        ("run:illegal", "error: CUDA error: an illegal memory access", "error state"),
        ("warmup:nokernel", "error: CUDA error: no kernel image", "--device cpu"),
    ],
)
def test_cli_prints_error_and_fix_for_gpu_failures(
    fault: str,
    error: str,
    fix: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(FAULT_ENV, fault)
    assert cli_main(["formats", "--device", "auto"]) == 1
    err = capsys.readouterr().err
    assert error in err and fix in err
    assert "Traceback" not in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-CUDA error")
def test_cli_accepts_cuda_n_and_explains_its_absence(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["formats", "--device", "cuda:1"]) == 2
    err = capsys.readouterr().err
    assert "error: --device cuda:1 requested but CUDA is not available" in err
    assert "fix: use --device cpu" in err and "Traceback" not in err


def test_cli_refuses_a_device_it_cannot_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["formats", "--device", "gpu"]) == 2
    err = capsys.readouterr().err
    assert "invalid device 'gpu'" in err and "cuda:N" in err


# ------------------------------------------------------------------ settings and doctor
def test_demo_device_accepts_cuda_n() -> None:
    assert Settings(demo_device="cuda:1").demo_device == "cuda:1"
    for bad in ("gpu", "cuda:", "cuda:x", "cuda1"):
        with pytest.raises(ValidationError):
            Settings(demo_device=bad)
    pattern = Settings.model_fields["demo_device"].metadata[0].pattern
    assert pattern == DEVICE_PATTERN  # the CLI and the bot accept the same names


def test_doctor_shows_why_cuda_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FAULT_ENV, "probe:driver")  # torch's warning, on the probe's stderr
    check = check_torch(Settings(demo_device="auto"))
    assert check.ok
    assert "no GPU usable (CUDA initialization: The NVIDIA driver on your system is too old" in (
        check.detail
    )
    named = check_torch(Settings(demo_device="cuda"))
    assert not named.ok and "NVIDIA driver" in named.detail
    assert named.fix == "set DEMO_DEVICE=auto or install a CUDA build of torch"


def test_doctor_says_a_failing_gpu_makes_demos_fall_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FAULT_ENV, "warmup:busy")
    check = check_torch(Settings(demo_device="auto"))
    assert check.ok and check.detail.endswith(
        f"GPU unusable: {FAULT_MESSAGES['busy']}; demos fall back to the CPU (warning)"
    )
    named = check_torch(Settings(demo_device="cuda:0"))
    assert not named.ok and "demos are refused" in named.detail
    assert "DEMO_DEVICE=cpu" in named.fix


def test_doctor_prints_the_reason_through_the_command(tmp_path: Path) -> None:
    result = cli(tmp_path, "doctor", **{FAULT_ENV: "probe:driver", "DISCORD_TOKEN": "a.b.c"})
    assert "Traceback" not in result.stdout + result.stderr
    torch_line = next(ln for ln in result.stdout.splitlines() if "torch" in ln)
    assert "The NVIDIA driver on your system is too old" in torch_line


def test_stderr_reason_reads_torchs_warning() -> None:
    stderr = (
        "/x/torch/cuda/__init__.py:182: UserWarning: CUDA initialization: CUDA driver "
        "initialization failed, you might not have a CUDA gpu. (Triggered internally at "
        "/pytorch/c10/cuda/CUDAFunctions.cpp:119.)\n"
        "  return torch._C._cuda_getDeviceCount() > 0\n"
    )
    assert stderr_reason(stderr) == (
        "CUDA initialization: CUDA driver initialization failed, you might not have a CUDA gpu."
    )
    assert stderr_reason("") is None
