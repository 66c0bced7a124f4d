"""The Java message vectors, and documents made from them by one mutation: shared by the fuzz tests."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from strategies import json_values

from agentscope_py import AgentEvent, ChatUsage, ContentBlock, Msg, Source

JAVA_DATA = Path(__file__).parent / "data" / "agentscope-java"
VECTORS = JAVA_DATA / "messages.jsonl"


def json_depth(value: Any) -> int:
    """Nesting of objects and arrays, counted as DecodeLimits.max_depth counts it (the top object is 1)."""
    if isinstance(value, dict):
        return 1 + max(map(json_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(json_depth, value), default=0)
    return 0


def read_cases(name: str) -> list[dict[str, Any]]:
    """The cases of ``tests/data/agentscope-java/<name>``, one a line (split on "\\n" only: U+2028 is data)."""
    return [json.loads(line) for line in (JAVA_DATA / name).read_text("utf-8").split("\n") if line]


CASES = read_cases("messages.jsonl")
#: Every case of events.jsonl (events, and the ConfirmResult documents beside them).
ALL_EVENT_CASES = read_cases("events.jsonl")
EVENT_CASES = [case for case in ALL_EVENT_CASES if case["kind"] == "AgentEvent"]
KINDS: dict[str, type[Any]] = {
    "Msg": Msg,
    "ContentBlock": ContentBlock,
    "Source": Source,
    "ChatUsage": ChatUsage,
    "AgentEvent": AgentEvent,
}

# Numbers at the edges of what floats, 64-bit integers and Python's int-to-text conversion hold.
EXTREMES = st.sampled_from([10**400, -(10**400), 2**63, -(2**63) - 1, 2**64, 1e308, -1e308, 5e-324, 1.5, -0.0, True])
TAGS = st.sampled_from(["text", "thinking", "data", "image", "audio", "video", "hint", "tool_use", "tool_result",
                        "url", "base64", "USER", "ASSISTANT", "SYSTEM", "TOOL", None, "x"])


@st.composite
def mutated_vectors(draw: st.DrawFn) -> tuple[type[Any], Any]:
    """A Java message vector with one value somewhere inside replaced, removed or wrapped."""
    return _mutated(draw, CASES)


@st.composite
def mutated_event_vectors(draw: st.DrawFn) -> tuple[type[Any], Any]:
    """A Java event vector with one value somewhere inside replaced, removed or wrapped."""
    return _mutated(draw, EVENT_CASES)


def _mutated(draw: st.DrawFn, cases: list[dict[str, Any]]) -> tuple[type[Any], Any]:
    case = draw(st.sampled_from(cases))
    document = copy.deepcopy(case["json"])
    parent: Any = None
    key: Any = None
    node: Any = document
    while isinstance(node, (dict, list)) and node and draw(st.booleans()):
        parent, key = node, draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
        node = node[key]
    action = draw(st.sampled_from(["replace", "delete", "wrap", "retag"]))
    replacement = draw(json_values(max_leaves=6) | TAGS | EXTREMES) if action == "replace" else None
    if parent is None:
        document = {"wrap": [document], "replace": replacement}.get(action, document)
    elif action == "delete":
        del parent[key]
    elif action == "wrap":
        parent[key] = [node]
    elif action == "retag" and isinstance(node, dict):
        node["type" if "type" in node else "role"] = draw(TAGS)
    else:
        parent[key] = replacement
    return KINDS[case["kind"]], document


