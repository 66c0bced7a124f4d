"""Discover the ``bench_*.py`` modules beside this file and run their benchmarks.

    python -m bench [group ...] [--quick]      # from the repository root
    python bench/run.py [group ...] [--quick]

A group is a module name without its ``bench_`` prefix (``core``, ``codec``, ``stream``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` importable as a package
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import (
    Figure,
    Settings,
    Workload,
    format_figure,
    format_workload,
    run_figure,
    run_workload,
)

BENCH_DIR = Path(__file__).resolve().parent
# --quick: enough to see that every workload runs, not to quote the figures.
QUICK = Settings(repeats=5, min_repeat_seconds=0.02)


def discover() -> dict[str, str]:
    """Group name -> module name, for every ``bench_*.py`` here, sorted."""
    return {path.stem.removeprefix("bench_"): f"bench.{path.stem}" for path in sorted(BENCH_DIR.glob("bench_*.py"))}


def run_group(module_name: str, settings: Settings) -> None:
    module = importlib.import_module(module_name)
    for benchmark in module.benchmarks():
        if isinstance(benchmark, Workload):
            print(format_workload(run_workload(benchmark, settings)), end="\n\n", flush=True)
        elif isinstance(benchmark, Figure):
            print(format_figure(run_figure(benchmark)), end="\n\n", flush=True)
        else:
            raise TypeError(f"{module_name}.benchmarks() gave {benchmark!r}, not a Workload or Figure")


def main(argv: Sequence[str] | None = None) -> int:
    groups = discover()
    parser = argparse.ArgumentParser(prog="python -m bench", description="Run the benchmarks in bench/.")
    parser.add_argument("groups", nargs="*", metavar="group", help=f"one of: {', '.join(groups)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="short repeats: check that it runs, not for figures")
    args = parser.parse_args(argv)
    unknown = [name for name in args.groups if name not in groups]
    if unknown:
        parser.error(f"unknown group(s) {', '.join(unknown)}; known: {', '.join(groups)}")
    settings = QUICK if args.quick else Settings()
    print(f"Python {sys.version.split()[0]}; {settings.repeats} repeats of >= {settings.min_repeat_seconds} s each\n")
    for name in args.groups or list(groups):
        print(f"== {name} ==", flush=True)
        run_group(groups[name], settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
