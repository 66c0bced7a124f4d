"""W4 and W5: the JSON codec on the W3 assistant message (thinking, text, two tool calls).

W4  ``to_json()`` of the W3 message
W5  ``Msg.from_json`` of that document, then ``==`` with the original

Peers: the hand-written pydantic v2 model (``model_dump_json`` /
``model_validate_json``) and msgspec Structs of the same blocks, tagged unions
on ``type`` (the practical ceiling: a C codec with no per-field Python code).

Our JSON backend is the fastest installed: ``msgspec`` (orjson writing, msgspec's
typed reading), ``orjson``, or the standard library.  To measure another, set
``AGENTSCOPE_BENCH_JSON``; the tables name the backend used::

    python -m bench codec                              # msgspec (the bench extra has it)
    AGENTSCOPE_BENCH_JSON=orjson python -m bench codec
    AGENTSCOPE_BENCH_JSON=json python -m bench codec
"""

from __future__ import annotations

import os
from typing import Any

from bench._harness import OURS, Op, Target, Workload
from bench.bench_core import ANSWER, THOUGHT, ours, pydantic_v2

BACKEND = os.environ.get("AGENTSCOPE_BENCH_JSON", "")


def _our_backend() -> str:
    from agentscope_py import _json

    if BACKEND:
        _json.set_backend(BACKEND)
    return _json.backend_name()


def _ours_to_json() -> Op:
    _our_backend()
    return ours().assistant_tool_calls().to_json


def _ours_from_json() -> Op:
    from agentscope_py import Msg

    _our_backend()
    message = ours().assistant_tool_calls()
    text = message.to_json()
    return lambda: Msg.from_json(text) == message


def _pydantic_to_json() -> Op:
    return pydantic_v2().assistant_tool_calls().model_dump_json  # type: ignore[no-any-return]


def _pydantic_from_json() -> Op:
    message = pydantic_v2().assistant_tool_calls()
    model = type(message)
    text = message.model_dump_json()
    return lambda: model.model_validate_json(text) == message


def _msgspec_message() -> Any:
    """The W3 message as msgspec Structs (``peers/msgspec_model.py``)."""
    from bench.peers.msgspec_model import (
        AssistantMessage,
        TextBlock,
        ThinkingBlock,
        ToolUseBlock,
    )

    template = ours().assistant_tool_calls()
    return AssistantMessage(
        id=str(template.id),
        timestamp=str(template.timestamp),
        content=(
            ThinkingBlock(THOUGHT),
            TextBlock(ANSWER),
            ToolUseBlock("call_1", "get_weather", {"city": "Paris", "unit": "celsius", "days": 3}),
            ToolUseBlock("call_2", "get_time", {"tz": "Europe/Paris", "format": "24h", "precise": True}),
        ),
    )


def _msgspec_to_json() -> Op:
    import msgspec

    message = _msgspec_message()
    encode = msgspec.json.Encoder().encode
    return lambda: encode(message)


def _msgspec_from_json() -> Op:
    import msgspec

    message = _msgspec_message()
    decode = msgspec.json.Decoder(type(message)).decode
    text = msgspec.json.encode(message)
    return lambda: decode(text) == message


def benchmarks() -> list[Workload]:
    backend = _our_backend()
    # The targets: 1.5x pydantic v2 with the fast extra, 1x with the standard library alone.
    target = Target(1.0 if backend == "json" else 1.5, "pydantic v2")
    return [
        Workload(
            "W4",
            f"to_json() of the W3 message (our JSON backend: {backend})",
            {OURS: _ours_to_json, "pydantic v2": _pydantic_to_json, "msgspec": _msgspec_to_json},
            target,
        ),
        Workload(
            "W5",
            f"Msg.from_json of the W3 document, then == (our JSON backend: {backend})",
            {OURS: _ours_from_json, "pydantic v2": _pydantic_from_json, "msgspec": _msgspec_from_json},
            target,
        ),
    ]
