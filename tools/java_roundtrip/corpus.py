"""The documents roundtrip.py sends through AgentScope Java: the shared vectors, hand-picked edge
values, values drawn by the test suite's hypothesis strategies (imported from tests/strategies.py and
tests/event_strategies.py), and the events that stream whole replies."""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Sequence
from typing import Any

import attrs
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import agentscope_py as asp
from agentscope_py import (
    AssistantMessage,
    AudioBlock,
    Base64Source,
    ChatUsage,
    ContentBlock,
    DataBlock,
    GenerateReason,
    HintBlock,
    ImageBlock,
    Msg,
    MsgRole,
    TextBlock,
    ThinkingBlock,
    ToolCallState,
    ToolResultBlock,
    ToolResultMessage,
    ToolResultState,
    ToolUseBlock,
    URLSource,
    UserMessage,
    VideoBlock,
)
from agentscope_py import event as ev

REPO = Path(__file__).resolve().parents[2]
VECTORS = REPO / "tests" / "data" / "agentscope-java"

#: The class each kind of document is read with, on both sides.
KINDS: dict[str, type[Any]] = {
    "Msg": asp.Msg,
    "ContentBlock": asp.ContentBlock,
    "Source": asp.Source,
    "ChatUsage": asp.ChatUsage,
    "AgentEvent": asp.AgentEvent,
    "ConfirmResult": asp.ConfirmResult,
    "PermissionRule": asp.PermissionRule,
}


@dataclass(frozen=True)
class Item:
    group: str  # golden, edge, hypothesis or stream
    id: str  # unique in the corpus, starts with the group
    value: Any  # a message, block, source, usage, event, confirm result or permission rule
    stream: str | None = None  # for an event of a stream: the stream it belongs to

    @property
    def kind(self) -> str:
        return next(kind for kind, cls in KINDS.items() if isinstance(self.value, cls))


def _test_strategies() -> tuple[Any, Any]:
    """tests/strategies.py and tests/event_strategies.py (they import each other by plain name)."""
    if str(REPO / "tests") not in sys.path:
        sys.path.insert(0, str(REPO / "tests"))
    return importlib.import_module("strategies"), importlib.import_module("event_strategies")


def _examples(strategy: st.SearchStrategy[Any], count: int, the_seed: int) -> list[Any]:
    found: list[Any] = []

    @seed(the_seed)
    @settings(max_examples=count, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value: Any) -> None:
        found.append(value)

    collect()
    return found


def golden_vectors() -> list[Item]:
    """The shared vectors (tests/data/agentscope-java/messages.jsonl, events.jsonl), as Python reads them."""
    items = []
    for name in ("messages", "events"):
        for line in (VECTORS / f"{name}.jsonl").read_text("utf-8").split("\n"):
            if line:
                case = json.loads(line)
                items.append(Item("golden", "golden/" + case["case"], KINDS[case["kind"]].from_json(case["json_text"])))
    return items


def generated(scale: int) -> list[Item]:
    """Values of every class drawn by the test suite's strategies (fixed seeds: the same corpus each run)."""
    strategies, event_strategies = _test_strategies()
    plan: list[tuple[str, st.SearchStrategy[Any], int]] = [
        *((f"msg/{role.value if role else 'any'}", strategies.messages(role), 300) for role in [*MsgRole, None]),
        *((f"block/{cls.__name__}", strategies.blocks_of(cls, depth=2), 120) for cls in strategies.BLOCK_CLASSES),
        ("source", strategies.sources(), 100),
        ("usage", strategies.chat_usages(), 100),
        *((f"event/{cls.__name__}", event_strategies.events_of(cls), 60) for cls in event_strategies.EVENT_CLASSES),
        ("confirm", event_strategies.confirm_results(), 80),
        ("rule", event_strategies.permission_rules(), 50),
    ]
    return [
        Item("hypothesis", f"hypothesis/{name}/{n}", value)
        for the_seed, (name, strategy, count) in enumerate(plan, start=1001)
        for n, value in enumerate(_examples(strategy, count * scale, the_seed))
    ]


def streams(scale: int) -> tuple[list[Item], dict[str, AssistantMessage]]:
    """The events that stream generated replies (events_from_message, and a ReplyEmitter given the
    reply block by block, with metadata known only at its end), and the reply of each stream."""
    _, event_strategies = _test_strategies()
    items: list[Item] = []
    replies: dict[str, AssistantMessage] = {}
    for n, reply in enumerate(_examples(event_strategies.replies(), 150 * scale, 4242)):
        source = "main/sub" if n % 5 == 0 else None
        for chunk_size in (1, 7, 32):
            stream = f"stream/{n}/chunk{chunk_size}"
            replies[stream] = reply
            events = ev.events_from_message(reply, chunk_size=chunk_size, with_result=n % 3 == 0, source=source)
            items += [Item("stream", f"{stream}/{i}", event, stream) for i, event in enumerate(events)]
        live = ev.ReplyEmitter(reply.name, id=reply.id, source=source, metadata=reply.metadata)
        _send_live(live, reply.content)
        live.end_model_call(reply.usage)
        live.finish(reply.get_generate_reason(), metadata={"stop": n} if n % 2 else None, with_result=n % 3 == 0)
        stream = f"stream/{n}/live"
        replies[stream] = live.message
        items += [Item("stream", f"{stream}/{i}", event, stream) for i, event in enumerate(live.events)]
    return items, replies


def _send_live(live: ev.ReplyEmitter, content: Sequence[ContentBlock]) -> None:
    """Give ``live`` the blocks of ``content``: a tool result with an id as a tool streams it, item by
    item, unless a result of that id was sent in the same acting phase (the emitter refuses that);
    every other block whole."""
    acting: set[str] = set()  # the ids of the results of the acting phase under way
    for block in content:
        if not isinstance(block, ToolResultBlock):
            acting.clear()
            live.block(block)
        elif block.id is None or block.id in acting:
            acting = {block.id} if block.id is not None else acting  # a repeated id: a new acting phase
            live.block(block)
        else:
            acting.add(block.id)
            live.tool_result(block.id, name=block.name)
            for item in block.output:
                live.tool_result(block.id, item.text if type(item) is TextBlock else item)
            live.end_tool_result(block.id, block.state, metadata=block.metadata)


TEXTS = {
    "empty": "", "nul": "\x00", "controls": "".join(map(chr, range(32))) + "\x7f\x80\x9f",
    "lone_high": "\ud800", "lone_low": "a\udfffb", "lone_high_at_end": "x\udbff", "split_pair": "\ud83d" + "\ude00",
    "reversed_pair": "\ude00\ud83d", "emoji": "😀👍🏽👨‍👩‍👧🏳️‍🌈", "bom": "\ufeffbom", "noncharacters": "\uffff\ufffe\U0010ffff",
    "line_separators": "\u2028\u2029", "rtl": "العربية עברית", "escapes": '"\\/\b\f', "long": "ab" * 20000,
    "combining": "e\u0301", "html": "</script><!--&",
}
NUMBERS: dict[str, Any] = {
    "2^63": 2**63, "2^63-1": 2**63 - 1, "2^64": 2**64, "-2^63-1": -(2**63) - 1, "-2^63": -(2**63), "10^30": 10**30,
    "-10^30": -(10**30), "2^53+1": 2**53 + 1, "2^31": 2**31, "-2^31-1": -(2**31) - 1, "300_digits": 10**299 + 7,
    "-0.0": -0.0, "0.0": 0.0, "1e21": 1e21, "-1e21": -1e21, "1e16": 1e16, "1e22": 1e22, "1e23": 1e23, "2e23": 2e23,
    "1e-7": 1e-7, "5e-324": 5e-324, "max": 1.7976931348623157e308, "0.1": 0.1, "1.0": 1.0, "2^53+1.0": float(2**53 + 1),
    "subnormal": 2.2250738585072014e-308 / 3, "1.23e-300": 1.2345678901234567e-300, "1/3": 1 / 3, "2e-3": 2.0e-3,
    "8.41e21": 8.41e21, "0.5": 0.5, "true": True, "false": False, "[null]": [None], "[]": [], "{}": {}, '""': "",
    "nested": {"a": [1, {"b": [None, True, 1.5, "x", {}]}]},
}
SOURCES = {
    "url": URLSource("https://e.com/a.png"), "url_mime": URLSource("https://e.com/a", "image/png"),
    "url_empty": URLSource(""), "base64": Base64Source("image/png", "AAAA"), "base64_empty": Base64Source("", ""),
}


def edge_values() -> list[Item]:
    """Hand-picked values at the edges: odd strings, numbers past Java's types, every enum value, nulls, depth."""
    items: list[Item] = []

    def add(name: str, value: Any) -> None:
        items.append(Item("edge", f"edge/{name}", value))

    for name, text in TEXTS.items():
        add(f"text/{name}", TextBlock(text))
        add(f"msg_strings/{name}", UserMessage(text, name=text, id=text, timestamp=text, metadata={text or "k": text}))
        add(f"event_strings/{name}", ev.TextBlockDeltaEvent(text, text, text, id=text, created_at=text, source=text,
                                                            metadata={text or "k": text}))
    for name in ("lone_high", "lone_low", "split_pair", "emoji", "nul"):
        add(f"metadata_key/{name}", AssistantMessage("x", metadata={TEXTS[name]: 1}))
        add(f"input_key/{name}", ToolUseBlock("c", "n", {TEXTS[name]: {TEXTS[name]: [TEXTS[name]]}}))

    add("metadata/all_numbers", AssistantMessage("x", metadata=NUMBERS))
    for name, number in NUMBERS.items():
        add(f"metadata/{name}", UserMessage("x", metadata={"v": number}))
        add(f"input/{name}", ToolUseBlock("c", "n", {"v": number, "nest": {"l": [number]}}))
        add(f"custom_event/{name}", ev.CustomEvent("n", {"v": number}))
        add(f"event_metadata/{name}", ev.AgentEndEvent("R", metadata={"v": number}))
        add(f"thinking_metadata/{name}", ThinkingBlock("t", {"v": number}))
        add(f"result_metadata/{name}", ToolResultBlock("c", "n", [], {"v": number}))
    for time_ in (0.0, -0.0, 1e-7, 1e21, 1.5, 1 / 3, 2**31 - 0.5, 1e300, 5e-324):
        add(f"usage_time/{time_!r}", ChatUsage(1, 2, 3, time_))
    for int_ in (0, 2**31 - 1, -(2**31), -1):  # the range of a Java int, which every integer field is
        add(f"usage_ints/{int_}", ChatUsage(int_, int_, int_, 0.0))
        add(f"image_pixels/{int_}", ImageBlock(URLSource("u"), int_, int_))
        add(f"video_ints/{int_}", VideoBlock(URLSource("u"), None, int_, int_, int_, int_))
        add(f"exceed_max_iters/{int_}", ev.ExceedMaxItersEvent("", int_, int_))
    add("usage_total_past_int", ChatUsage(2**31 - 1, 2**31 - 1, 0, 0.0))
    for fps in (0.1, 1 / 3, 2.0, 0.0, -0.0, 1e-45, 1.4e-45, 1e-46, 3.4028234663852886e38, 3.4028235e38, 1e-7, 16777217.0, 29.97):
        add(f"video_fps/{fps!r}", VideoBlock(URLSource("u"), fps))

    for role in MsgRole:
        add(f"plain_msg_role/{role.value}", Msg("x", role=role))
    add("plain_msg_role/none", Msg("x", role=None))
    add("plain_msg_role/none_empty", Msg(role=None))
    for reason in GenerateReason:
        add(f"generate_reason/{reason.value}", AssistantMessage("x", generate_reason=reason))
        add(f"request_stop/{reason.value}", ev.RequestStopEvent("why", reason))
    for call_state in ToolCallState:
        add(f"tool_call_state/{call_state.value}", ToolUseBlock("c", "n", {}, None, {}, call_state))
    for result_state in ToolResultState:
        add(f"tool_result_state/{result_state.value}", ToolResultBlock("c", "n", [TextBlock("x")], {}, result_state))
        add(f"tool_result_end/{result_state.value}", ev.ToolResultEndEvent("r", "c", "n", result_state))
    add("tool_result_end/none", ev.ToolResultEndEvent("r", "c", "n", None))
    for behavior in asp.PermissionBehavior:
        add(f"permission_behavior/{behavior.value}", asp.PermissionRule("t", None, behavior, "s"))
    for name, source in SOURCES.items():
        add(f"source/{name}", source)
        add(f"data/{name}", DataBlock(source, "d1", "n.png"))
        add(f"data_no_name/{name}", DataBlock(source, "d2"))
        add(f"image/{name}", ImageBlock(source))
        add(f"audio/{name}", AudioBlock(source))
        add(f"video/{name}", VideoBlock(source, 2.0, 1, 2, 3, 4))
        add(f"data_delta_event/{name}", ev.ToolResultDataDeltaEvent("r", "c", "n", DataBlock(source, "d3")))
    add("video/no_source", VideoBlock())

    add("nulls/msg", Msg(role=MsgRole.ASSISTANT, id=None, name=None, timestamp=None, usage=None))
    add("nulls/hint", HintBlock(None, None, None))
    add("nulls/tool_use", ToolUseBlock(None, None, None, None, None))
    add("nulls/tool_result", ToolResultBlock(None, None, None, None))
    add("nulls/thinking", ThinkingBlock("", None))
    add("nulls/data_id", DataBlock(URLSource("u"), None))
    add("nulls/confirm", asp.ConfirmResult(False, None, None))
    add("empty/thinking_metadata", ThinkingBlock("", {}))
    add("empty/tool_use_strings", ToolUseBlock("", "", {}, ""))
    add("empty/data_id", DataBlock(URLSource("u"), ""))
    add("empty/confirm_rules", asp.ConfirmResult(True, ToolUseBlock("c", "n"), []))
    add("empty/custom_event", ev.CustomEvent("", {}))
    add("empty/agent_start_metadata", ev.AgentStartEvent("", "", "", "", metadata={}))
    add("empty/confirm_event", ev.RequireUserConfirmEvent("r", []))
    for cls in EVENT_CLASSES:
        # Every field that may be null, null (an int field may not: Java's is a primitive).
        nulls = {f.name: None for f in attrs.fields(cls) if f.name not in ("source", "metadata") and "int" not in str(f.type)}
        if len(nulls) == len([f for f in attrs.fields(cls) if f.name not in ("source", "metadata")]):
            add(f"nulls/event/{cls.__name__}", cls(**nulls))

    for depth in (10, 49, 50, 100):
        nested = ToolResultBlock("c0", "t", TextBlock("leaf"))
        for level in range(1, depth):
            nested = ToolResultBlock(f"c{level}", "t", nested)
        add(f"deep/tool_result_{depth}", nested)
        add(f"deep/tool_message_{depth}", ToolResultMessage(nested))
        add(f"deep/data_delta_event_{depth}", ev.ToolResultDataDeltaEvent("r", "c", "n", nested))
    deep_value: Any = "leaf"
    for level in range(150):
        deep_value = {"k": [deep_value]} if level % 2 else {"k": deep_value}
    add("deep/input_150", ToolUseBlock("c", "n", {"d": deep_value}))
    add("deep/metadata_150", AssistantMessage("x", metadata={"d": deep_value}))
    add("input/content_differs", ToolUseBlock("c", "n", {"n": 1}, '{"n": true}'))
    add("input/content_not_json", ToolUseBlock("c", "n", {}, "{not json"))

    every_block = [
        TextBlock("t"), ThinkingBlock("th", {"reasoningDetails": [{"x": 1}]}), DataBlock(SOURCES["base64"], "d", "n"),
        ImageBlock(SOURCES["url_mime"], 1, 2), AudioBlock(SOURCES["base64"]), VideoBlock(SOURCES["url"], 2.5, 1, 2, 3, 4),
        HintBlock("h", "hint", "alice"), ToolUseBlock("c", "n", {"q": 1}, '{"q":1}', {"m": 1}, ToolCallState.ASKING),
        ToolResultBlock("c", "n", [TextBlock("r"), DataBlock(SOURCES["url"], "d9")], {"agentscope_suspended": True},
                        ToolResultState.RUNNING),
    ]
    usage = ChatUsage(1, 2, 3, 0.5)
    add("every_block/assistant", AssistantMessage(every_block, name="agent", usage=usage, metadata={"_chat_usage": usage},
                                                  generate_reason=GenerateReason.TOOL_CALLS))
    add("every_block/tool", ToolResultMessage(every_block, name="agent"))
    add("every_block/user", UserMessage([b for b in every_block if isinstance(b, (TextBlock, DataBlock, ImageBlock, AudioBlock, VideoBlock))]))
    add("every_block/result_event", ev.AgentResultEvent(AssistantMessage(every_block)))
    return items


EVENT_CLASSES: list[type[asp.AgentEvent]] = [
    cls for cls in vars(ev).values() if isinstance(cls, type) and issubclass(cls, asp.AgentEvent) and cls is not asp.AgentEvent
]
