"""W7: assemble a streamed reply into its final message; and how that scales.

The stream: 200 text deltas, then one tool call whose JSON arguments arrive in
20 fragments.  Every implementation gets its own pre-built stream in its native
form and produces the final message with the arguments parsed:

- ours: ``assemble(events)`` over the AgentScope events a server sends
  (``AgentStartEvent`` … ``AgentEndEvent``, 229 events), each call's start
  event timed in a second no call before saw, as a client meets replies (the
  message's timestamp is made from that time);
- langchain-core: ``AIMessageChunk`` merging, ``+`` in a loop, and its one-call
  merge (``first + [rest...]``, which calls ``add_ai_message_chunks`` once);
- pydantic-ai: its public ``delta.apply`` (``TextPartDelta``/``ToolCallPartDelta``
  applied to a ``TextPart``/``ToolCallPart``), then a ``ModelResponse``;
- a plain loop appending to lists and joining at the end: the ceiling.

The scaling run (10x more deltas may cost at most 11x the time, up to
1,000,000 deltas) is this file run as a script: ``python bench/bench_stream.py``.
It times the stream pre-built as one list (as it is, and with the CPU caches
emptied before each run) and arriving in batches, with rising ids (this
package's emitter) and with random ids (Java's UUIDs).
"""

from __future__ import annotations

import gc
import itertools
import json
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

if __package__ in (None, ""):  # run as a script: make ``bench`` and the package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import attrs

from bench._harness import OURS, Op, Target, Workload

_R = TypeVar("_R")
TEXT_DELTAS = 200
ARGUMENT_FRAGMENTS = 20
CALL_ID, TOOL = "call_1", "search"


def text_deltas(count: int) -> list[str]:
    return [f"word{index} " for index in range(count)]


def argument_fragments(count: int) -> list[str]:
    """``count`` fragments that join into a JSON object."""
    body = json.dumps({"query": "kittens " * count, "limit": 10})
    size = -(-len(body) // count)
    return [body[start : start + size] for start in range(0, len(body), size)]


def ours_events(text_count: int = TEXT_DELTAS, fragment_count: int = ARGUMENT_FRAGMENTS) -> list[Any]:
    return list(event_stream(text_count, fragment_count))


def event_stream(text_count: int, fragment_count: int) -> Iterator[Any]:
    """The AgentScope events a server sends for the reply, made one by one as they are asked for."""
    from agentscope_py import (
        AgentEndEvent,
        AgentStartEvent,
        ChatUsage,
        ModelCallEndEvent,
        ModelCallStartEvent,
        TextBlockDeltaEvent,
        TextBlockEndEvent,
        TextBlockStartEvent,
        ToolCallDeltaEvent,
        ToolCallEndEvent,
        ToolCallStartEvent,
    )

    yield AgentStartEvent(None, "reply-1", "assistant")
    yield ModelCallStartEvent("call-1")
    yield TextBlockStartEvent("call-1", "text")
    yield from (TextBlockDeltaEvent("call-1", "text", delta) for delta in text_deltas(text_count))
    yield TextBlockEndEvent("call-1", "text")
    yield ToolCallStartEvent("call-1", CALL_ID, TOOL)
    yield from (ToolCallDeltaEvent("call-1", CALL_ID, TOOL, piece) for piece in argument_fragments(fragment_count))
    yield ToolCallEndEvent("call-1", CALL_ID, TOOL)
    yield ModelCallEndEvent("call-1", ChatUsage(100, 50))
    yield AgentEndEvent("reply-1")


def setup_ours() -> Op:
    from agentscope_py import assemble

    events = ours_events()
    # Each call assembles a reply that started in a second no call before it saw, as a client meets
    # replies: the message's timestamp is made from the start event's time, and the work done for
    # one hour is kept for the next reply of that hour (here one call in 60 starts a new hour).
    # (Replacing the first event costs tens of nanoseconds of the call's tens of microseconds.)
    times = (f"2026-01-01T{hour:02d}:{minute:02d}:00.000Z" for hour in range(24) for minute in range(60))
    starts = itertools.cycle([attrs.evolve(events[0], created_at=instant) for instant in times])

    def op() -> object:
        events[0] = next(starts)
        return assemble(events)

    return op


def _langchain_chunks() -> list[Any]:
    from langchain_core.messages import AIMessageChunk

    chunks = [AIMessageChunk(content=delta) for delta in text_deltas(TEXT_DELTAS)]
    for index, piece in enumerate(argument_fragments(ARGUMENT_FRAGMENTS)):
        first = index == 0
        chunks.append(
            AIMessageChunk(
                content="",
                tool_call_chunks=[
                    {"name": TOOL if first else None, "args": piece, "id": CALL_ID if first else None, "index": 0}
                ],
            )
        )
    return chunks


def setup_langchain_add() -> Op:
    chunks = _langchain_chunks()
    first, rest = chunks[0], chunks[1:]

    def op() -> object:
        message = first
        for chunk in rest:
            message = message + chunk
        return message

    return op


def setup_langchain_merge() -> Op:
    chunks = _langchain_chunks()
    first, rest = chunks[0], chunks[1:]
    return lambda: first + rest  # one add_ai_message_chunks call


def setup_pydantic_ai() -> Op:
    from pydantic_ai.messages import (
        ModelResponse,
        TextPart,
        TextPartDelta,
        ToolCallPart,
        ToolCallPartDelta,
    )

    text = [TextPartDelta(content_delta=delta) for delta in text_deltas(TEXT_DELTAS)]
    arguments = [ToolCallPartDelta(args_delta=piece) for piece in argument_fragments(ARGUMENT_FRAGMENTS)]

    def op() -> object:
        text_part = TextPart(content="")
        for delta in text:
            text_part = delta.apply(text_part)
        call = ToolCallPart(tool_name=TOOL, args="", tool_call_id=CALL_ID)
        for piece in arguments:
            call = piece.apply(call)
        call.args_as_dict()
        return ModelResponse(parts=[text_part, call])

    return op


def setup_plain() -> Op:
    text, arguments = text_deltas(TEXT_DELTAS), argument_fragments(ARGUMENT_FRAGMENTS)

    def op() -> object:
        text_parts: list[str] = []
        for delta in text:
            text_parts.append(delta)
        argument_parts: list[str] = []
        for piece in arguments:
            argument_parts.append(piece)
        return "".join(text_parts), json.loads("".join(argument_parts))

    return op


def benchmarks() -> list[Workload]:
    return [
        Workload(
            "W7",
            f"assemble {TEXT_DELTAS} text deltas + a tool call in {ARGUMENT_FRAGMENTS} argument fragments (streams/s)",
            {
                OURS: setup_ours,
                "langchain-core AIMessageChunk +": setup_langchain_add,
                "langchain-core one-call merge": setup_langchain_merge,
                "pydantic-ai delta.apply": setup_pydantic_ai,
                "plain list append + join (ceiling)": setup_plain,
            },
            Target(5.0, "langchain-core one-call merge"),  # the fastest peer
        )
    ]


# -- scaling: 10x more deltas must cost at most 11x the time ----------------------------------

SCALING_COUNTS = (1_000, 10_000, 100_000, 1_000_000)
BATCH = 1_000


def _random_id(rng: random.Random) -> str:
    return f"{rng.getrandbits(128):032x}"  # as Java's UUID.randomUUID() ids: no order


def _with_random_ids(events: list[Any], rng: random.Random) -> list[Any]:
    return [attrs.evolve(event, id=_random_id(rng)) for event in events]


def _timed(op: Callable[[], object]) -> float:
    start = time.perf_counter()
    op()
    return time.perf_counter() - start


def _without_gc(op: Callable[[], _R]) -> Callable[[], _R]:
    # As timeit runs: the cyclic collector's passes land wherever allocations cross a threshold
    # (building the events, mostly) and would be charged to whichever size triggered one.  No
    # collection before each run either: walking every object would push a small stream out of the
    # caches that a run of it otherwise finds it in (``_best`` collects once per size instead).
    def run() -> _R:
        gc.disable()
        try:
            return op()
        finally:
            gc.enable()

    return run


#: Runs per size, the same for every size: the best of more runs is lower, and a size given more
#: would gain on the others.
REPEATS = 10


def _best(run: Callable[[], float]) -> float:
    """The least time of ``REPEATS`` runs, after one collection of what building the input left."""
    gc.collect()
    return min(run() for _ in range(REPEATS))


# Twice the largest CPU cache of the machines this runs on (a 32 MB L3): a write to each of its
# cache lines leaves nothing an earlier run read in any cache.
_EVICTION = bytearray(64 << 20)


def _evict_caches() -> None:
    _EVICTION[::64] = bytes(len(_EVICTION) // 64)


def _cold(op: Callable[[], float]) -> Callable[[], float]:
    """``op`` run with cold caches: every size then reads its stream from memory, as the first run of
    each does.  Repeated warm runs of a small stream find it all cached, which a large one never does."""

    def run() -> float:
        _evict_caches()
        return op()

    return run


def _prebuilt(count: int, random_ids: bool) -> Callable[[], float]:
    """``assemble`` of the whole stream, built beforehand as one list."""
    from agentscope_py import assemble

    events = ours_events(count, max(1, count // 10))
    if random_ids:
        events = _with_random_ids(events, random.Random(count))
    return _without_gc(lambda: _timed(partial(assemble, events)))


def _prebuilt_cold(count: int, random_ids: bool) -> Callable[[], float]:
    """``_prebuilt`` with the caches emptied before each run (outside the time taken)."""
    return _cold(_prebuilt(count, random_ids))


def _arriving(count: int, random_ids: bool) -> Callable[[], float]:
    """The stream as a client receives it: batches of ``BATCH`` events, each decoded (here: built)
    just before it is fed, outside the time taken; only ``feed_all`` and ``close`` are timed."""
    from agentscope_py import MessageAssembler

    def run() -> float:
        events = event_stream(count, max(1, count // 10))
        rng = random.Random(count)
        assembler, taken = MessageAssembler(), 0.0
        while True:
            batch = list(itertools.islice(events, BATCH))
            if not batch:
                break
            if random_ids:
                batch = _with_random_ids(batch, rng)
            taken += _timed(partial(assembler.feed_all, batch))
        return taken + _timed(assembler.close)

    return _without_gc(run)


def _batch_split(count: int) -> tuple[float | None, float]:
    """For the batches with rising ids: the best time per event of the batches in between (``None``
    when there are none), and the last batch's time per delta of the whole stream (the reply ends)."""
    from agentscope_py import MessageAssembler

    def run() -> list[float]:
        events = event_stream(count, max(1, count // 10))
        assembler, times = MessageAssembler(), []
        while batch := list(itertools.islice(events, BATCH)):
            times.append(_timed(partial(assembler.feed_all, batch)))
        return times

    gc.collect()
    runs = [_without_gc(run)() for _ in range(REPEATS)]
    last = min(times[-1] for times in runs) / count * 1e6
    if len(runs[0]) < 3:
        return None, last
    return min(sum(times[1:-1]) / (len(times) - 2) for times in runs) / BATCH * 1e6, last


def scaling() -> None:
    """Time per delta as the stream grows 10x at a time: the stream pre-built as one list (timed
    as it is, best of several runs, and with the caches emptied before each run) or arriving in
    batches; with the rising ids of this package's emitter or random ids as Java sends them.
    A pre-built list of ten thousand events stays in the CPU caches from one run to the next, and
    one of a hundred thousand does not: the cold-cache rows time both as first runs, and the plain
    walk over the same list (read each delta, append, join) shows how much of the growth the
    memory alone accounts for.  For the batches with rising ids, two more rows split the time:
    the batches in between, and the last, where the reply ends and its deltas are joined and freed."""
    print(f"{'stream':<36} " + "  ".join(f"{count:>9,}" for count in SCALING_COUNTS) + "   (us per delta; x for 10x)")
    for name, make in (("pre-built list", _prebuilt), ("pre-built, cold caches", _prebuilt_cold), ("arriving in batches", _arriving)):
        for random_ids in (False, True):
            per_delta: list[float] = []
            growth: list[str] = []
            for count in SCALING_COUNTS:
                op = make(count, random_ids)
                best = _best(op)
                per_delta.append(best / count * 1e6)
                if len(per_delta) > 1:
                    ratio = per_delta[-1] / per_delta[-2] * 10
                    growth.append(f"{ratio:.2f}x {'met' if ratio <= 11 else 'MISSED'}")
            _row(f"{name}, {'random ids' if random_ids else 'rising ids'}", per_delta, ", ".join(growth))
    split = [_batch_split(count) for count in SCALING_COUNTS]
    _row("batches, rising: middle batch", [middle for middle, _ in split], "(us per event of a batch in between)")
    _row("batches, rising: last batch", [last for _, last in split], "(us per delta: the reply ends, is joined, freed)")
    for label, cold in (("plain walk of pre-built list", False), ("plain walk, cold caches", True)):
        walks = []
        for count in SCALING_COUNTS:
            walk = _without_gc(partial(_timed, _plain_walk(ours_events(count, max(1, count // 10)))))
            walk = _cold(walk) if cold else walk
            walks.append(_best(walk) / count * 1e6)
        _row(label, walks, ", ".join(f"{walks[i] / walks[i - 1] * 10:.2f}x" for i in range(1, len(walks))))


def _row(label: str, values: Sequence[float | None], note: str) -> None:
    cells = "  ".join("        -" if value is None else f"{value:>9.3f}" for value in values)
    print(f"{label:<36} {cells}   {note}")


def _plain_walk(events: list[Any]) -> Callable[[], object]:
    """The least any assembler does: read each event's delta, append it, join once."""

    def op() -> str:
        parts = []
        for event in events:
            delta = getattr(event, "delta", None)
            if delta is not None:
                parts.append(delta)
        return "".join(parts)

    return op


if __name__ == "__main__":
    import argparse

    argparse.ArgumentParser(
        prog="python bench/bench_stream.py",
        description="The W7 scaling table: 1,000 to 1,000,000 deltas (a few minutes). W7 itself: python -m bench stream.",
    ).parse_args()
    scaling()
