"""The timing and reporting every ``bench_*.py`` module shares.

A benchmark module exposes ``benchmarks() -> list[Workload | Figure]`` (see
``bench/README.md``).  A *Workload* is timed here; a *Figure* is a number the
module measures itself (import time, memory).  Both map implementation names to
their code; the entry named ``OURS`` is agentscope_py, every other entry is a
peer, and a peer whose package is not installed is reported as missing instead
of failing the run.  Tables list the implementations in the mapping's order.
"""

from __future__ import annotations

import gc
import itertools
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

__all__ = [
    "OURS",
    "Figure",
    "FigureResult",
    "Missing",
    "Op",
    "Settings",
    "Setup",
    "Target",
    "Timing",
    "Workload",
    "WorkloadResult",
    "calibrate",
    "format_figure",
    "format_workload",
    "run_figure",
    "run_workload",
    "time_ops",
]

OURS = "agentscope_py"

Op = Callable[[], object]
# A setup imports what it needs and returns the operation to time.  Importing in
# the setup, not at module level, is what lets a missing peer be reported.
Setup = Callable[[], Op]
_R = TypeVar("_R")


@dataclass(frozen=True)
class Settings:
    """How hard to measure: ``repeats`` runs of at least ``min_repeat_seconds`` each."""

    repeats: int = 7
    min_repeat_seconds: float = 0.2


@dataclass(frozen=True)
class Timing:
    """Operations per second of each repeat; the reported figure is their median."""

    ops_per_repeat: int
    per_repeat: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.per_repeat)

    @property
    def spread(self) -> float:
        """(max - min) / median: how far apart the repeats were."""
        return (max(self.per_repeat) - min(self.per_repeat)) / self.median


@dataclass(frozen=True)
class Missing:
    """A peer that could not be set up, and why (usually: its package is not installed)."""

    reason: str


@dataclass(frozen=True)
class Target:
    """Ours must reach ``ratio`` times the figure of ``peer`` (for figures where lower is
    better, at most ``ratio`` times), or, with no peer, ``ratio`` is an absolute limit."""

    ratio: float
    peer: str | None = None


@dataclass(frozen=True)
class Workload:
    """One operation, implemented by ours and each peer; timed in ops/s."""

    name: str
    description: str
    implementations: Mapping[str, Setup]
    target: Target | None = None


@dataclass(frozen=True)
class Figure:
    """A number each implementation measures itself, e.g. memory or import time."""

    name: str
    description: str
    unit: str
    implementations: Mapping[str, Callable[[], float]]
    lower_is_better: bool = True
    target: Target | None = None
    notes: Sequence[str] = field(default=())


@dataclass(frozen=True)
class WorkloadResult:
    workload: Workload
    results: Mapping[str, Timing | Missing]


@dataclass(frozen=True)
class FigureResult:
    figure: Figure
    results: Mapping[str, float | Missing]


def _seconds_for(op: Op, calls: int) -> float:
    loop = itertools.repeat(None, calls)
    start = time.perf_counter()
    for _ in loop:
        op()
    return time.perf_counter() - start


def calibrate(op: Op, settings: Settings = Settings()) -> int:
    """A call count for which ``op`` runs at least ``min_repeat_seconds``."""
    # Untimed: a first call may load what the later ones reuse (the codec, at the first to_json),
    # which alone could outlast a short repeat and leave the count at one call.
    op()
    calls = 1
    while True:
        elapsed = _seconds_for(op, calls)
        if elapsed >= settings.min_repeat_seconds:
            return calls
        # Aim a little past the minimum so the next try usually succeeds.
        calls = max(calls * 2, int(calls * 1.2 * settings.min_repeat_seconds / max(elapsed, 1e-9)))


def _ops_per_second(op: Op, calls: int) -> float:
    gc.collect()  # start every repeat from a similar heap, so the repeats agree
    return calls / _seconds_for(op, calls)


def time_ops(op: Op, settings: Settings = Settings()) -> Timing:
    """Time one ``op`` on its own: calibrate, then ``repeats`` runs of that many calls."""
    calls = calibrate(op, settings)
    return Timing(calls, tuple(_ops_per_second(op, calls) for _ in range(settings.repeats)))


def _set_up(setup: Callable[[], _R]) -> _R | Missing:
    try:
        return setup()
    except ImportError as error:
        return Missing(f"not installed ({error.name or error})")


def run_workload(workload: Workload, settings: Settings = Settings()) -> WorkloadResult:
    """Time every implementation, interleaved: each round runs one repeat of each.

    On a shared machine the load drifts; interleaving makes every implementation
    meet the same drift in the same round, so the per-round ratios stay honest.
    """
    ops: dict[str, Op] = {}
    results: dict[str, Timing | Missing] = {}
    for name, setup in workload.implementations.items():
        op = _set_up(setup)
        if isinstance(op, Missing):
            results[name] = op
        else:
            ops[name] = op
    calls = {name: calibrate(op, settings) for name, op in ops.items()}
    rounds: dict[str, list[float]] = {name: [] for name in ops}
    for _ in range(settings.repeats):
        for name, op in ops.items():
            rounds[name].append(_ops_per_second(op, calls[name]))
    for name in ops:
        results[name] = Timing(calls[name], tuple(rounds[name]))
    # Keep the order the workload gave, missing peers included.
    return WorkloadResult(workload, {name: results[name] for name in workload.implementations})


def run_figure(figure: Figure) -> FigureResult:
    results: dict[str, float | Missing] = {}
    for name, measure in figure.implementations.items():
        value = _set_up(measure)
        results[name] = value if isinstance(value, Missing) else float(value)
    return FigureResult(figure, results)


def _table(rows: Iterable[Sequence[str]]) -> str:
    rows = list(rows)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(row, widths)))
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def _verdict(ratio: float | None, target: Target | None, higher_is_better: bool, rounds: Sequence[float] = ()) -> str:
    """``met``/``MISSED`` by ``ratio``; with the per-round ratios, how many rounds agree when not all
    do, so that a verdict the machine's noise could turn reads as such."""
    if target is None or ratio is None:
        return ""

    def meets(value: float) -> bool:
        return value >= target.ratio if higher_is_better else value <= target.ratio

    sign = ">=" if higher_is_better else "<="
    met = meets(ratio)
    agreeing = sum(meets(value) == met for value in rounds)
    split = f"; {agreeing} of {len(rounds)} rounds agree" if agreeing < len(rounds) else ""
    return f"{'met' if met else 'MISSED'} (target {sign} {target.ratio:g}x{split})"


def _round_ratios(ours: Timing, peer: Timing) -> list[float]:
    """ours/peer in each round: both ran in the same round, under the same load."""
    return [o / p for o, p in zip(ours.per_repeat, peer.per_repeat)]


def format_workload(result: WorkloadResult) -> str:
    """The workload's table: ops/s of each implementation and the ratio ours/peer."""
    workload = result.workload
    ours = result.results.get(OURS)
    rows = [("implementation", "ops/s (median)", "spread", "ours/peer (median, range over rounds)", "")]
    for name, timing in result.results.items():
        target = workload.target if workload.target is not None and workload.target.peer == name else None
        if isinstance(timing, Missing):
            unchecked = "; the target is not checked" if target is not None else ""
            rows.append((name, "missing", "", "", timing.reason + unchecked))
            continue
        rounds = [] if not isinstance(ours, Timing) or name == OURS else _round_ratios(ours, timing)
        ratio = statistics.median(rounds) if rounds else None
        rows.append(
            (
                name,
                f"{timing.median:,.0f}",
                f"{timing.spread:.0%}",
                "" if ratio is None else f"{ratio:.2f}x ({min(rounds):.2f}–{max(rounds):.2f})",
                _verdict(ratio, target, higher_is_better=True, rounds=rounds),
            )
        )
    return f"{workload.name}: {workload.description}\n{_table(rows)}"


def format_figure(result: FigureResult) -> str:
    """The figure's table: each implementation's value and ours/peer."""
    figure = result.figure
    ours = result.results.get(OURS)
    rows = [("implementation", figure.unit, "ours/peer", "")]
    for name, value in result.results.items():
        if isinstance(value, Missing):
            rows.append((name, "missing", "", value.reason))
            continue
        ratio = None if not isinstance(ours, float) or name == OURS or value == 0 else ours / value
        target = figure.target
        verdict = ""
        if target is not None and target.peer == name:
            verdict = _verdict(ratio, target, higher_is_better=not figure.lower_is_better)
        elif target is not None and target.peer is None and name == OURS:
            met = value <= target.ratio if figure.lower_is_better else value >= target.ratio
            sign = "<" if figure.lower_is_better else ">"
            verdict = f"{'met' if met else 'MISSED'} (target {sign} {target.ratio:g} {figure.unit})"
        rows.append((name, f"{value:,.1f}", "" if ratio is None else f"{ratio:.2f}x", verdict))
    notes = "".join(f"\n  note: {note}" for note in figure.notes)
    return f"{figure.name}: {figure.description}\n{_table(rows)}{notes}"
