"""Core message model: building and reading messages, import time, memory.

W1  a user message with one text block, id and timestamp generated
W2  a user message with a text block and a DataBlock holding a ~1 KB base64 PNG
W3  an assistant message: thinking, text and two tool calls (id, name, 3-key input)
W6  get_text_content() plus get_content_blocks(ToolUseBlock) on a W3 message

Every implementation builds its blocks and its message from scratch in each
call, as application code does, with whatever checks it normally runs.
"""

from __future__ import annotations

import base64
import functools
import gc
import os
import random
import re
import struct
import subprocess
import sys
import tracemalloc
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from bench._harness import OURS, Figure, Op, Target, Workload

_R = TypeVar("_R")

QUESTION = "What's in this image?"
THOUGHT = "The user wants the weather and the local time in Paris; two tool calls."
ANSWER = "Let me look both up."


def _png(width: int, height: int) -> bytes:
    """A valid RGB PNG of seeded noise (noise does not compress, so the size is predictable)."""
    noise = random.Random(0)
    rows = b"".join(b"\x00" + noise.randbytes(width * 3) for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 0)) + chunk(b"IEND", b"")


PNG_BASE64 = base64.b64encode(_png(15, 15)).decode("ascii")  # 1012 characters


@dataclass(frozen=True)
class CoreOps:
    """One implementation's version of the workloads."""

    user_text: Op  # W1
    user_image: Op  # W2
    assistant_tool_calls: Callable[[], Any]  # W3
    read: Callable[[Any], object]  # W6, given a W3 message


def ours() -> CoreOps:
    from agentscope_py import (
        AssistantMessage,
        Base64Source,
        DataBlock,
        TextBlock,
        ThinkingBlock,
        ToolUseBlock,
        UserMessage,
    )

    def assistant_tool_calls() -> AssistantMessage:
        return AssistantMessage(
            ThinkingBlock(THOUGHT),
            TextBlock(ANSWER),
            ToolUseBlock("call_1", "get_weather", {"city": "Paris", "unit": "celsius", "days": 3}),
            ToolUseBlock("call_2", "get_time", {"tz": "Europe/Paris", "format": "24h", "precise": True}),
        )

    def read(msg: AssistantMessage) -> object:
        return msg.get_text_content(), msg.get_content_blocks(ToolUseBlock)

    return CoreOps(
        user_text=lambda: UserMessage(TextBlock(QUESTION)),
        user_image=lambda: UserMessage(TextBlock(QUESTION), DataBlock(Base64Source("image/png", PNG_BASE64))),
        assistant_tool_calls=assistant_tool_calls,
        read=read,
    )


def pydantic_v2(same_ids: bool = False) -> CoreOps:
    """The pydantic peer; ``same_ids``: its messages and data blocks generate ids and timestamps with
    agentscope_py's generators instead of ``uuid4``/``strftime`` (see ``peers/pydantic_model.py``)."""
    from bench.peers import pydantic_model as models
    from bench.peers.pydantic_model import Base64Source, TextBlock, ThinkingBlock, ToolUseBlock

    user, assistant, data = (
        (models.UserMessageSameIds, models.AssistantMessageSameIds, models.DataBlockSameIds)
        if same_ids
        else (models.UserMessage, models.AssistantMessage, models.DataBlock)
    )

    def assistant_tool_calls() -> models.AssistantMessage:
        return assistant(
            content=(
                ThinkingBlock(thinking=THOUGHT),
                TextBlock(text=ANSWER),
                ToolUseBlock(id="call_1", name="get_weather", input={"city": "Paris", "unit": "celsius", "days": 3}),
                ToolUseBlock(
                    id="call_2", name="get_time", input={"tz": "Europe/Paris", "format": "24h", "precise": True}
                ),
            )
        )

    def read(msg: models.AssistantMessage) -> object:
        return msg.get_text_content(), msg.get_content_blocks(ToolUseBlock)

    return CoreOps(
        user_text=lambda: user(content=(TextBlock(text=QUESTION),)),
        user_image=lambda: user(
            content=(
                TextBlock(text=QUESTION),
                data(source=Base64Source(media_type="image/png", data=PNG_BASE64)),
            )
        ),
        assistant_tool_calls=assistant_tool_calls,
        read=read,
    )


def langchain_core() -> CoreOps:
    # LangChain's closest equivalents: content parts as dicts, tool calls on AIMessage.
    # Its messages get no id or timestamp unless given one.
    from langchain_core.messages import AIMessage, HumanMessage

    def assistant_tool_calls() -> AIMessage:
        return AIMessage(
            content=[{"type": "reasoning", "reasoning": THOUGHT}, {"type": "text", "text": ANSWER}],
            tool_calls=[
                {"id": "call_1", "name": "get_weather", "args": {"city": "Paris", "unit": "celsius", "days": 3}},
                {"id": "call_2", "name": "get_time", "args": {"tz": "Europe/Paris", "format": "24h", "precise": True}},
            ],
        )

    def read(msg: AIMessage) -> object:
        return msg.text, msg.tool_calls

    return CoreOps(
        user_text=lambda: HumanMessage(content=[{"type": "text", "text": QUESTION}]),
        user_image=lambda: HumanMessage(
            content=[
                {"type": "text", "text": QUESTION},
                {"type": "image", "base64": PNG_BASE64, "mime_type": "image/png"},
            ]
        ),
        assistant_tool_calls=assistant_tool_calls,
        read=read,
    )


def attrs_ceiling() -> CoreOps:
    from bench.peers.attrs_model import Base64Source, DataBlock, Msg, TextBlock, ThinkingBlock, ToolUseBlock

    def assistant_tool_calls() -> Msg:
        return Msg(
            "ASSISTANT",
            (
                ThinkingBlock(THOUGHT),
                TextBlock(ANSWER),
                ToolUseBlock("call_1", "get_weather", {"city": "Paris", "unit": "celsius", "days": 3}),
                ToolUseBlock("call_2", "get_time", {"tz": "Europe/Paris", "format": "24h", "precise": True}),
            ),
        )

    def read(msg: Msg) -> object:
        return msg.get_text_content(), msg.get_content_blocks(ToolUseBlock)

    return CoreOps(
        user_text=lambda: Msg("USER", (TextBlock(QUESTION),)),
        user_image=lambda: Msg("USER", (TextBlock(QUESTION), DataBlock(Base64Source("image/png", PNG_BASE64)))),
        assistant_tool_calls=assistant_tool_calls,
        read=read,
    )


IMPLEMENTATIONS: dict[str, Callable[[], CoreOps]] = {
    OURS: ours,
    "pydantic v2": pydantic_v2,
    "pydantic v2, same ids": functools.partial(pydantic_v2, same_ids=True),
    "langchain-core": langchain_core,
    "attrs (no checks)": attrs_ceiling,
}


def _reading(impl: Callable[[], CoreOps]) -> Op:
    ops = impl()
    msg = ops.assistant_tool_calls()
    return lambda: ops.read(msg)


# -- import time ----------------------------------------------------------------

IMPORT_RUNS = 7
IMPORTED_MODULES = (OURS, "pydantic", "langchain_core.messages")  # OURS is also our module name
_IMPORTTIME_LINE = re.compile(r"^import time:\s+\d+\s+\|\s+(\d+)\s+\|\s*(\S+)\s*$")
# Bytecode must be cached, as it is after ``pip install``: PYTHONDONTWRITEBYTECODE
# would make every run compile the package from source and time the compiler.
_CACHING_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def _fresh_interpreter(module: str, *args: str) -> str:
    """Run a new ``python *args``; its stdout and stderr.  ``ImportError`` if ``module`` is absent."""
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=False, env=_CACHING_ENV)
    if result.returncode != 0:
        raise ImportError(f"cannot import {module}", name=module)
    return result.stdout + result.stderr


def _best_run(measure_once: Callable[[], float]) -> float:
    """The best of ``IMPORT_RUNS`` runs after a warm-up one (which writes the bytecode cache).

    The best, not the median: an import is one short burst, so a busy machine can
    only add to it, and the fastest run is the closest to its true cost.
    """
    measure_once()
    return min(measure_once() for _ in range(IMPORT_RUNS))


def importtime_ms(module: str) -> float:
    """``module``'s cumulative import time as ``python -X importtime`` reports it, in ms."""

    def once() -> float:
        output = _fresh_interpreter(module, "-X", "importtime", "-c", f"import {module}")
        cumulative = [int(m[1]) for line in output.splitlines() if (m := _IMPORTTIME_LINE.match(line)) and m[2] == module]
        return cumulative[-1] / 1000

    return _best_run(once)


def import_cpu_ms(module: str) -> float:
    """The CPU time (``time.process_time``) the interpreter spends importing ``module``, in ms.

    Wall-clock time, which ``-X importtime`` measures, grows with the load other
    processes put on the machine; this process's own CPU time grows less (shared
    cores and caches still slow it).
    """
    script = f"import time; start = time.process_time(); import {module}; print(time.process_time() - start)"
    return _best_run(lambda: float(_fresh_interpreter(module, "-c", script)) * 1000)


# -- memory -----------------------------------------------------------------------

MESSAGES_IN_MEMORY = 100_000


def w3_memory_mb(impl: Callable[[], CoreOps]) -> float:
    """Memory traced while 100,000 W3 messages are alive, in MB (10**6 bytes)."""
    build = impl().assistant_tool_calls
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        messages = [build() for _ in range(MESSAGES_IN_MEMORY)]
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del messages
    return (after - before) / 1e6


def _per_implementation(measure: Callable[[Callable[[], CoreOps]], _R]) -> dict[str, Callable[[], _R]]:
    """``measure`` bound to each implementation, run only when the harness calls it."""
    return {label: functools.partial(measure, impl) for label, impl in IMPLEMENTATIONS.items()}


def _building(pick: Callable[[CoreOps], Op]) -> Callable[[Callable[[], CoreOps]], Op]:
    return lambda impl: pick(impl())


def benchmarks() -> list[Workload | Figure]:
    at_least_2x_pydantic = Target(2.0, "pydantic v2")
    return [
        Workload(
            "W1",
            "user message, one text block, id + timestamp",
            _per_implementation(_building(lambda ops: ops.user_text)),
            at_least_2x_pydantic,
        ),
        Workload(
            "W2",
            f"user message, text + DataBlock ({len(PNG_BASE64)} B base64 PNG)",
            _per_implementation(_building(lambda ops: ops.user_image)),
            at_least_2x_pydantic,
        ),
        Workload(
            "W3",
            "assistant message, thinking + text + 2 tool calls",
            _per_implementation(_building(lambda ops: ops.assistant_tool_calls)),
            at_least_2x_pydantic,
        ),
        Workload(
            "W6",
            "get_text_content() + get_content_blocks(ToolUseBlock) on W3",
            _per_implementation(_reading),
            Target(1.0, "pydantic v2"),
        ),
        Figure(
            "import",
            f"cumulative import time, python -X importtime, best of {IMPORT_RUNS} fresh interpreters",
            "ms",
            {module: functools.partial(importtime_ms, module) for module in IMPORTED_MODULES},
            target=Target(60.0),
            notes=["pydantic's figure is the bare package; defining models adds to it"],
        ),
        Figure(
            "import (CPU)",
            f"CPU time of the same import (time.process_time), best of {IMPORT_RUNS} fresh interpreters",
            "ms",
            {module: functools.partial(import_cpu_ms, module) for module in IMPORTED_MODULES},
            target=Target(60.0),
            notes=["this process's CPU only: a second opinion, less moved by a busy machine than wall-clock time"],
        ),
        Figure(
            "memory",
            f"{MESSAGES_IN_MEMORY:,} W3 messages alive, traced by tracemalloc",
            "MB",
            _per_implementation(w3_memory_mb),
        ),
    ]
