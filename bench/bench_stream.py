"""W7: assemble a streamed reply into its final message; and how that scales.

The stream: 200 text deltas, then one tool call whose JSON arguments arrive in
20 fragments.  Every implementation gets its own pre-built stream in its native
form and produces the final message with the arguments parsed:

- ours: ``assemble(events)`` over the AgentScope events a server sends
  (``AgentStartEvent`` … ``AgentEndEvent``, 229 events);
- langchain-core: ``AIMessageChunk`` merging, ``+`` in a loop, and its one-call
  merge (``first + [rest...]``, which calls ``add_ai_message_chunks`` once);
- pydantic-ai: its public ``delta.apply`` (``TextPartDelta``/``ToolCallPartDelta``
  applied to a ``TextPart``/``ToolCallPart``), then a ``ModelResponse``;
- a plain loop appending to lists and joining at the end: the ceiling.

The scaling run (10x more deltas may cost at most 11x the time, up to
1,000,000 deltas) is this file run as a script: ``python bench/bench_stream.py``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``bench`` and the package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import OURS, Op, Target, Workload

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

    return [
        AgentStartEvent(None, "reply-1", "assistant"),
        ModelCallStartEvent("call-1"),
        TextBlockStartEvent("call-1", "text"),
        *(TextBlockDeltaEvent("call-1", "text", delta) for delta in text_deltas(text_count)),
        TextBlockEndEvent("call-1", "text"),
        ToolCallStartEvent("call-1", CALL_ID, TOOL),
        *(ToolCallDeltaEvent("call-1", CALL_ID, TOOL, piece) for piece in argument_fragments(fragment_count)),
        ToolCallEndEvent("call-1", CALL_ID, TOOL),
        ModelCallEndEvent("call-1", ChatUsage(100, 50)),
        AgentEndEvent("reply-1"),
    ]


def setup_ours() -> Op:
    from agentscope_py import assemble

    events = ours_events()
    return lambda: assemble(events)


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


def _seconds(op: Callable[[], object], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        op()
        best = min(best, time.perf_counter() - start)
    return best


def _plain_walk(events: list[Any], remember_ids: bool = False) -> Callable[[], object]:
    """The least any assembler does: read each event's delta, append it, join once; and, with
    ``remember_ids``, the least a replay check does: add each event's id to a set."""

    def op() -> str:
        parts, seen = [], set()
        for event in events:
            if remember_ids:
                seen.add(event.id)
            delta = getattr(event, "delta", None)
            if delta is not None:
                parts.append(delta)
        return "".join(parts)

    return op


def scaling() -> None:
    """Time per delta as the stream grows 10x at a time, for ours and for two plain walks over the
    same events: one that only appends the deltas, one that also adds every event id to a set (the
    replay check).  Where ours grows faster than the count as the second walk does, the growing
    set of ids (a random access per event into a table that outgrows the caches) is why."""
    from agentscope_py import assemble

    print("deltas     events     ours best (s)  us/delta  x for 10x      walk x for 10x  walk+ids x for 10x")
    previous: tuple[float, float, float] | None = None
    for count in SCALING_COUNTS:
        events = ours_events(count, max(1, count // 10))
        repeats = 5 if count <= 100_000 else 3
        ours = _seconds(partial(assemble, events), repeats)
        walk = _seconds(_plain_walk(events), repeats)
        walk_ids = _seconds(_plain_walk(events, remember_ids=True), repeats)
        growth = ["", "", ""]
        if previous is not None:
            ratio = ours / previous[0]
            growth = [
                f"{ratio:5.2f}x {'met' if ratio <= 11 else 'MISSED'}",
                f"{walk / previous[1]:5.2f}x",
                f"{walk_ids / previous[2]:5.2f}x",
            ]
        print(
            f"{count:>9,}  {len(events):>9,}  {ours:>13.4f}  {ours / count * 1e6:>8.3f}  {growth[0]:<13}"
            f"  {growth[1]:>14}  {growth[2]:>18}"
        )
        previous = (ours, walk, walk_ids)
        del events


if __name__ == "__main__":
    scaling()
