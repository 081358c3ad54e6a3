"""``quiztutor demo NAME [options]`` / ``python -m experiments NAME [options]``."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import NoReturn

from experiments.catalog import CATALOG, LANGS, get_info, widest_range
from experiments.gpu import DEVICE_HELP, env_faults, is_device
from experiments.outpaths import OutputPathError, check_output_path

LIST_FIX = "`quiztutor demo --list` shows the demos and the range of each parameter"
DEVICE_FIX = "use --device cpu (or auto); a GPU host needs the CUDA build of torch (scripts/tutor installs it where nvidia-smi works)"
#: What to do about each kind of GPU failure (experiments.cuda.kind_of).
GPU_FIXES = {
    "oom": "the GPU is busy; try again, or run the demo on the CPU with --device cpu",
    "sticky": "the GPU is in an error state: run on the CPU with --device cpu; "
    "`quiztutor doctor` checks the GPU",
    "cuda": "run on the CPU with --device cpu; `quiztutor doctor` checks the GPU",
}


def _device(value: str) -> str:
    if not is_device(value):
        raise argparse.ArgumentTypeError(f"invalid device {value!r}: {DEVICE_HELP}")
    return value


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # two lines, not the whole usage
        self.exit(2, f"error: {message}\nfix: see `{self.prog} --help` or `{self.prog} --list`\n")


def build_parser(prog: str = "quiztutor demo") -> argparse.ArgumentParser:
    p = _Parser(
        prog=prog,
        description="Run one numerics demo and print its key numbers.",
        epilog="examples:\n  quiztutor demo --list\n"
        "  quiztutor demo accumulation --micro-batches 4 --plot accumulation.png",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("name", nargs="?", help=f"demo name: {', '.join(CATALOG)}")
    p.add_argument(
        "--micro-batches",
        type=int,
        default=None,
        dest="micro_batches",
        metavar="N",
        help=f"micro-batches, {_range('micro_batches')} (per demo: --list)",
    )
    p.add_argument(
        "--micro-batch-size",
        type=int,
        default=None,
        dest="micro_batch_size",
        metavar="M",
        help=f"samples per micro-batch, {_range('micro_batch_size')} (per demo: --list)",
    )
    p.add_argument(
        "--device",
        type=_device,
        default="auto",
        help=f"{DEVICE_HELP} (default: auto)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--plot", metavar="FILE", help="write the PNG plot to FILE (checked before the run)"
    )
    p.add_argument(
        "--lang",
        choices=LANGS,
        default="en",
        help="language of the title and the one-line lesson (the numbers' labels are English)",
    )
    p.add_argument("--list", action="store_true", help="list demos and their parameters")
    return p


def _range(param: str) -> str:
    """The widest bounds of `param` over the demos that take it, e.g. '1-16'."""
    bounds = widest_range(param)
    return "not used by any demo" if bounds is None else f"{bounds[0]}-{bounds[1]}"


def _list(lang: str) -> str:
    lines = []
    for name, info in CATALOG.items():
        bounds = ", ".join(
            f"--{k.replace('_', '-')} {b['min']}-{b['max']} (default {b['default']})"
            for k, b in info.bounds.items()
        )
        lines.append(f"{name:24s} {info.title(lang)}" + (f"  [{bounds}]" if bounds else ""))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed usage + error to stderr
        return int(exc.code or 0)
    if args.list or not args.name:
        if not args.name and not args.list:
            parser.print_usage(sys.stderr)
            print(
                "error: a demo name is required; available:\n" + _list(args.lang), file=sys.stderr
            )
            return 2
        print(_list(args.lang))
        return 0
    given = {"micro_batches": args.micro_batches, "micro_batch_size": args.micro_batch_size}
    given = {k: v for k, v in given.items() if v is not None}
    try:
        info = get_info(args.name)
        info.validate(given)  # before importing torch: fast, clear errors
    except ValueError as exc:
        print(f"error: {exc}\nfix: {LIST_FIX}", file=sys.stderr)
        return 2

    if args.plot:  # before the run: a bad path must not cost the computed result
        try:
            check_output_path(args.plot, "plot")
        except OutputPathError as exc:
            print(f"error: {exc}\nfix: {exc.fix}", file=sys.stderr)
            return 2
    # Importing torch and running take seconds: say so on stderr (stdout stays clean).
    where = "the best device (cuda if available)" if args.device == "auto" else args.device
    print(f"running {args.name} on {where}…", file=sys.stderr, flush=True)
    started = time.perf_counter()

    from experiments import run_experiment  # torch is imported only from here on
    from experiments.cuda import inject, kind_of
    from experiments.gpu import GpuUnavailable, reason

    try:
        inject(env_faults(), "warmup")  # the test seam: a GPU that fails, without one
        inject(env_faults(), "run")
        result = run_experiment(args.name, device=args.device, **given)
    except GpuUnavailable as exc:  # e.g. --device cuda without CUDA
        print(f"error: {reason(exc)}\nfix: {DEVICE_FIX}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"error: {exc}\nfix: {LIST_FIX}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        kind = kind_of(exc)
        if kind is None:
            raise  # a bug in a demo: the traceback is what its report needs
        print(f"error: {reason(exc)}\nfix: {GPU_FIXES[kind]}", file=sys.stderr)
        return 1
    print(
        f"{args.name} ran on {result.device} in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    if args.plot:
        with open(args.plot, "wb") as fh:
            fh.write(result.png)
    if args.json:
        print(result.to_json())
        return 0
    print(f"{result.demo} — {info.title(args.lang)}")
    print(f"  {info.summary(args.lang)}")
    params = " ".join(f"{k}={v}" for k, v in result.params.items()) or "-"
    print(f"device: {result.device}   params: {params}   elapsed: {result.elapsed_s:.2f} s")
    width = max((len(k) for k, _ in result.highlights), default=0)
    for label, value in result.highlights:
        print(f"  {label:<{width}}  {value}")
    print("core loop:")
    for line in result.snippet.splitlines():
        print(f"    {line}")
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0
