"""Events on the wire: every Java vector round-trips, the API builds the same documents,
bad input raises only DecodeError (or RoleContentError), and encode/decode are inverse."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from event_strategies import EVENT_CLASSES, confirm_results, events_of
from hypothesis import given
from hypothesis import strategies as st
from strategies import json_values
from vectors import ALL_EVENT_CASES

from agentscope_py import (
    AssistantMessage,
    Base64Source,
    ChatUsage,
    DataBlock,
    AgentEventType,
    DecodeError,
    GenerateReason,
    ImageBlock,
    RoleContentError,
    TextBlock,
    ToolCallState,
    ToolResultBlock,
    ToolResultState,
    ToolUseBlock,
    URLSource,
)
from agentscope_py.event import (
    AgentEndEvent,
    AgentEvent,
    AgentResultEvent,
    AgentStartEvent,
    AllToolsDeniedEvent,
    ConfirmResult,
    CustomEvent,
    DataBlockDeltaEvent,
    ExceedMaxItersEvent,
    ExternalExecutionResultEvent,
    HintBlockEvent,
    ModelCallEndEvent,
    PermissionBehavior,
    PermissionRule,
    RequestStopEvent,
    RequireUserConfirmEvent,
    SubagentExposedEvent,
    TextBlockDeltaEvent,
    TextBlockStartEvent,
    ThinkingBlockDeltaEvent,
    ToolCallDeltaEvent,
    ToolCallStartEvent,
    ToolResultDataDeltaEvent,
    ToolResultEndEvent,
    ToolResultStartEvent,
    ToolResultTextDeltaEvent,
    UserConfirmResultEvent,
)

VECTORS = ALL_EVENT_CASES
BY_CASE = {case["case"]: case for case in VECTORS}
HEX32 = re.compile(r"[0-9a-f]{32}")
ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z")

Decodable = type[AgentEvent] | type[ConfirmResult]


def decoder_of(case: dict[str, Any]) -> Decodable:
    return AgentEvent if case["kind"] == "AgentEvent" else ConfirmResult


def test_the_vectors_cover_every_event_type() -> None:
    assert len(VECTORS) == 52
    types = {case["json"]["type"] for case in VECTORS if case["kind"] == "AgentEvent"}
    assert types == {cls.type.value for cls in EVENT_CLASSES}


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize("case", VECTORS, ids=[case["case"] for case in VECTORS])
def test_every_java_vector_round_trips(case: dict[str, Any]) -> None:
    cls = decoder_of(case)
    decoded = cls.from_json(case["json_text"])  # Java's text, "type" written twice
    assert type(decoded).__name__ == case["java_class"].rsplit(".", 1)[1]
    assert decoded.to_dict() == case["json"]
    assert cls.from_dict(case["json"]) == decoded
    assert cls.from_json(decoded.to_json()) == decoded
    assert type(decoded).from_json(case["json_text"]) == decoded  # the concrete class reads its own type


def test_generated_fields_have_javas_shape() -> None:
    case = BY_CASE["event/agent_start_generated"]
    built = AgentStartEvent("sess-1", "reply-1", "Friday").to_dict()
    for document in (case["json"], built):
        assert HEX32.fullmatch(document["id"]) and ISO_UTC.fullmatch(document["createdAt"])
    del built["id"], built["createdAt"]
    expected = {k: v for k, v in case["json"].items() if k not in ("id", "createdAt")}
    assert built == expected


T = "2025-01-02T03:04:05.678Z"
USAGE = ChatUsage(120, 45, 7, 1.25)
CALL_2 = ToolUseBlock(
    "call_2",
    "search",
    {"limit": 5, "query": "agentscope"},
    '{"query":"agentscope","limit":5}',
    {"thoughtSignature": "sig-abc"},
    ToolCallState.ASKING,
)
CALL_1 = ToolUseBlock("call_1", "get_weather", {"city": "Paris"})
WEATHER = ("reply-1", "call_1", "get_weather")

BUILT: dict[str, Callable[[], Any]] = {
    "event/agent_start": lambda: AgentStartEvent("sess-1", "reply-1", "Friday", id="evt-0001", created_at=T),
    "event/agent_start_all_null": lambda: AgentStartEvent(None, None, None, id=None, created_at=None),
    "event/agent_start_with_source_and_metadata": lambda: AgentStartEvent(
        "sess-1", "reply-1", "Friday", "user", id="evt-0003", created_at=T
    )
    .with_source("subagent-7")
    .with_metadata_entry(AgentStartEvent.METADATA_TASK_ID, "task-1")
    .with_metadata_entry(AgentStartEvent.METADATA_PARENT_SESSION_ID, "sess-0"),
    "event/agent_start_empty_metadata_omitted": lambda: AgentStartEvent(
        "sess-1", "reply-1", "Friday", id="evt-0004", metadata={}, created_at=T
    ),
    "event/agent_end": lambda: AgentEndEvent("reply-1", id="evt-0005", created_at=T),
    "event/agent_result": lambda: AgentResultEvent(
        AssistantMessage(
            "Done.",
            id="msg-r1",
            name="Friday",
            timestamp="2025-01-02 03:04:05.678",
            usage=USAGE,
            generate_reason=GenerateReason.MODEL_STOP,
        ),
        id="evt-0006",
        created_at=T,
    ),
    "event/agent_result_null": lambda: AgentResultEvent(None, id="evt-0008", created_at=T),
    "event/model_call_end": lambda: ModelCallEndEvent("reply-1", USAGE, id="evt-0010", created_at=T),
    "event/model_call_end_no_usage": lambda: ModelCallEndEvent("reply-1", id="evt-0011", created_at=T),
    "event/text_block_start": lambda: TextBlockStartEvent("reply-1", "blk-1", id="evt-0012", created_at=T),
    "event/text_block_delta": lambda: TextBlockDeltaEvent("reply-1", "blk-1", "Hel", id="evt-0013", created_at=T),
    "event/thinking_block_delta": lambda: ThinkingBlockDeltaEvent("reply-1", "blk-2", "hmm", id="evt-0016", created_at=T),
    "event/data_block_delta": lambda: DataBlockDeltaEvent("reply-1", "blk-3", "iVBORw0K", id="evt-0019", created_at=T),
    "event/tool_call_start": lambda: ToolCallStartEvent(*WEATHER, id="evt-0021", created_at=T),
    "event/tool_call_delta": lambda: ToolCallDeltaEvent(*WEATHER, '{"city":', id="evt-0022", created_at=T),
    "event/tool_result_start_metadata": lambda: ToolResultStartEvent(
        *WEATHER, id="evt-0025", metadata={"taskId": "t-1"}, created_at=T
    ),
    "event/tool_result_data_delta_datablock": lambda: ToolResultDataDeltaEvent(
        "reply-1",
        "call_4",
        "render",
        DataBlock(Base64Source("image/png", "iVBORw0KGgo="), "data-9", "chart.png"),
        id="evt-0027",
        created_at=T,
    ),
    "event/tool_result_data_delta_image": lambda: ToolResultDataDeltaEvent(
        "reply-1",
        "call_4",
        "render",
        ImageBlock(URLSource("https://example.com/cat.png", "image/png")),
        id="evt-0028",
        metadata={"k": "v"},
        created_at=T,
    ),
    "event/tool_result_end_error": lambda: ToolResultEndEvent(*WEATHER, ToolResultState.ERROR, id="evt-0030", created_at=T),
    "event/tool_result_end_null_state": lambda: ToolResultEndEvent(*WEATHER, None, id="evt-0034", created_at=T),
    "event/exceed_max_iters": lambda: ExceedMaxItersEvent("reply-1", 10, 11, id="evt-0035", created_at=T),
    "event/require_user_confirm": lambda: RequireUserConfirmEvent("reply-1", [CALL_2, CALL_1], id="evt-0036", created_at=T),
    "event/require_user_confirm_null_list": lambda: RequireUserConfirmEvent("reply-1", None, id="evt-0037", created_at=T),
    "event/user_confirm_result": lambda: UserConfirmResultEvent(
        "reply-1",
        [
            ConfirmResult(
                True,
                CALL_2,
                [
                    PermissionRule("search", "query:*", PermissionBehavior.ALLOW, "user"),
                    PermissionRule("rm", None, PermissionBehavior.DENY, "session"),
                ],
            ),
            ConfirmResult(False, CALL_1),
        ],
        id="evt-0039",
        created_at=T,
    ),
    "event/external_execution_result": lambda: ExternalExecutionResultEvent(
        "reply-1",
        [
            ToolResultBlock("call_2", "search", TextBlock("3 hits"), state=ToolResultState.SUCCESS),
            ToolResultBlock.error("call_3", "timeout"),
        ],
        id="evt-0040",
        created_at=T,
    ),
    "event/request_stop": lambda: RequestStopEvent(
        "budget exceeded", GenerateReason.REASONING_STOP_REQUESTED, id="evt-0041", created_at=T
    ),
    "event/request_stop_default_reason": lambda: RequestStopEvent(None, id="evt-0042", created_at=T),
    "event/subagent_exposed": lambda: SubagentExposedEvent(
        "sub-1", "agent-9", "sess-2", "Researcher", id="evt-0043", created_at=T
    ),
    "event/hint_block": lambda: HintBlockEvent("reply-1", "hint-1", "rag", "Use the docs", id="evt-0044", created_at=T),
    "event/all_tools_denied": lambda: AllToolsDeniedEvent([CALL_1], id="evt-0045", created_at=T),
    "event/custom": lambda: CustomEvent(
        "progress", {"pct": 50, "label": "half", "nested": {"x": [1, 2]}}, id="evt-0046", created_at=T
    ),
    "event/custom_null_value": lambda: CustomEvent("ping", None, id="evt-0047", created_at=T),
    "event/custom_with_source": lambda: CustomEvent(
        "ping", id="evt-0048", source="agent-x", metadata={"taskId": "t-9"}, created_at=T
    ),
    "confirm_result/with_rules": lambda: ConfirmResult(
        True, CALL_1, [PermissionRule("get_weather", "city:Paris", PermissionBehavior.ASK, "project")]
    ),
    "confirm_result/no_rules": lambda: ConfirmResult(False, CALL_1),
}


@pytest.mark.parametrize("name", sorted(BUILT))
def test_objects_built_through_the_api_encode_to_the_java_vector(name: str) -> None:
    built = BUILT[name]()
    assert built.to_dict() == BY_CASE[name]["json"]


def test_type_is_written_once_and_first() -> None:
    event = TextBlockDeltaEvent("r1", "text", "Hel", id="e1", created_at="t", source="main/a", metadata={"k": 1})
    text = event.to_json()
    assert text.startswith('{"type":"TEXT_BLOCK_DELTA",')
    assert text.count('"type"') == 1
    assert list(event.to_dict()) == ["type", "id", "createdAt", "replyId", "blockId", "delta", "source", "metadata"]


@pytest.mark.parametrize(
    "event",
    [
        ToolResultStartEvent("r1", "call-1", "search"),
        ToolResultTextDeltaEvent("r1", "call-1", "search", "Sun"),
        ToolResultDataDeltaEvent("r1", "call-1", "search", TextBlock("x")),
        ToolResultEndEvent("r1", "call-1", "search", ToolResultState.SUCCESS),
    ],
)
def test_tool_result_events_write_metadata_before_source_as_java_does(event: AgentEvent) -> None:
    # Their Java constructors take metadata, and Jackson writes a constructor's properties first.
    keys = list(event.with_source("main/a").with_metadata({"k": 1}).to_dict())
    assert keys[-2:] == ["metadata", "source"]


@pytest.mark.parametrize(
    ("alias", "cls"),
    [
        ("RUN_STARTED", AgentStartEvent),
        ("REPLY_START", AgentStartEvent),
        ("RUN_FINISHED", AgentEndEvent),
        ("REPLY_END", AgentEndEvent),
        ("MODEL_CALL_ENDED", ModelCallEndEvent),
        ("BINARY_BLOCK_DELTA", DataBlockDeltaEvent),
        ("TOOL_RESULT_BINARY_DELTA", ToolResultDataDeltaEvent),
        ("THREAD_EXPOSED", SubagentExposedEvent),
    ],
)
def test_legacy_type_names_decode_and_are_written_as_today(alias: str, cls: type[AgentEvent]) -> None:
    decoded = AgentEvent.from_dict({"type": alias, "id": "e1", "replyId": "r1"})
    assert type(decoded) is cls
    assert decoded.to_dict()["type"] == cls.type.value
    assert cls.from_dict({"type": alias}) == cls.from_dict({"type": cls.type.value})


def test_an_unknown_type_lists_the_types_to_write_not_the_legacy_ones() -> None:
    with pytest.raises(DecodeError) as caught:
        AgentEvent.from_dict({"type": "NOPE"})
    known = str(caught.value).split("(known: ", 1)[1].split(")", 1)[0].split(", ")
    assert known == sorted(member.value for member in AgentEventType)  # the 31, read and written


def test_java_reading_rules() -> None:
    lenient = AgentEvent.from_dict({"type": "EXCEED_MAX_ITERS", "replyId": "", "unknown": [1, {"x": None}]})
    assert lenient == ExceedMaxItersEvent("", 0, 0, id=None, created_at=None)  # missing ints read as 0
    assert AgentEvent.from_dict({"type": "AGENT_START", "role": None}) == AgentStartEvent(
        None, None, None, "assistant", id=None, created_at=None
    )
    empty = AgentEvent.from_dict({"type": "CUSTOM", "name": "x", "metadata": {}, "value": None})
    assert empty.metadata is None and isinstance(empty, CustomEvent) and empty.value == {}
    assert "metadata" not in empty.to_dict()
    stop = AgentEvent.from_dict({"type": "REQUEST_STOP", "generateReason": None})
    assert isinstance(stop, RequestStopEvent) and stop.generate_reason is GenerateReason.MIDDLEWARE_STOP_REQUESTED
    rule = PermissionRule.from_dict({"tool_name": "bash", "behavior": "ALLOW", "source": "user"})
    assert rule == PermissionRule("bash", None, PermissionBehavior.ALLOW, "user")
    # Read regardless of case, but ASCII letters only: a Kelvin sign that lowers to "k" is not one.
    with pytest.raises(DecodeError, match="it holds a letter that is not ASCII: did you mean 'ask'"):
        PermissionRule.from_dict({"tool_name": "bash", "behavior": "AS\u212a", "source": "user"})
    # Folded to be read, not to be quoted: the error shows what the document wrote.
    with pytest.raises(DecodeError, match=r"got 'ASK '$"):
        PermissionRule.from_dict({"tool_name": "bash", "behavior": "ASK ", "source": "user"})


@pytest.mark.parametrize(
    ("document", "path", "error"),
    [
        ({"type": "TEXT_BLOCK_DELTA", "delta": 3}, "delta", "expected a string, got number"),
        ({"type": "text_block_delta"}, "type", "did you mean 'TEXT_BLOCK_DELTA'"),
        ({"type": "NOPE"}, "type", "unknown AgentEvent type 'NOPE'"),
        ({"id": "e1"}, "", "missing required key 'type'"),
        ({"type": "MODEL_CALL_END", "usage": {"inputTokens": "10"}}, "usage.inputTokens", "expected an integer"),
        (
            {"type": "REQUIRE_USER_CONFIRM", "toolCalls": [{"type": "tool_use"}, {"type": "tool_use", "state": "ASKING"}]},
            "toolCalls[1].state",
            "did you mean 'asking'",
        ),
        ({"type": "ALL_TOOLS_DENIED", "deniedToolCalls": [{"type": "text", "text": "x"}]}, "deniedToolCalls[0].type", "ToolUseBlock"),
        (
            {"type": "USER_CONFIRM_RESULT", "confirmResults": [{"confirmed": True, "rules": [{"tool_name": "x", "source": "u"}]}]},
            "confirmResults[0].rules[0]",
            "missing required key 'behavior'",
        ),
        ({"type": "TOOL_RESULT_DATA_DELTA", "data": "AAAA"}, "data", "expected an object"),
        ({"type": "TOOL_RESULT_END", "state": "done"}, "state", "expected one of"),
        ({"type": "EXCEED_MAX_ITERS", "maxIters": 1.5}, "maxIters", "expected an integer"),
        ({"type": "CUSTOM", "value": [1]}, "value", "expected an object"),
        (
            {"type": "AGENT_RESULT", "result": {"role": "USER", "content": [{"type": "text", "text": 1}]}},
            "result.content[0].text",
            "expected a string",
        ),
    ],
)
def test_bad_documents_raise_decode_error_with_a_path(document: dict[str, Any], path: str, error: str) -> None:
    with pytest.raises(DecodeError) as info:
        AgentEvent.from_dict(document)
    assert info.value.path == path
    assert error in str(info.value)


def test_a_role_violation_inside_a_result_is_a_role_content_error_saying_where(backend: str) -> None:
    document = {"type": "AGENT_RESULT", "result": {"role": "SYSTEM", "content": [{"type": "thinking", "thinking": "x"}]}}
    expected = r"^result: SYSTEM message may only contain text blocks, got ThinkingBlock at content\[0\]$"
    with pytest.raises(RoleContentError, match=expected):
        AgentEvent.from_dict(document)
    with pytest.raises(RoleContentError, match=expected):
        AgentEvent.from_json(json.dumps(document))


def test_a_concrete_class_refuses_another_type() -> None:
    with pytest.raises(DecodeError, match="TextBlockDeltaEvent"):
        TextBlockDeltaEvent.from_dict({"type": "AGENT_END"})


def test_malformed_json_text_is_a_decode_error() -> None:
    for text in ("", "{", "[]", "null", '{"type": "AGENT_END",}', b"\xff"):
        with pytest.raises(DecodeError):
            AgentEvent.from_json(text)


# -- properties ---------------------------------------------------------------------------


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=[cls.__name__ for cls in EVENT_CLASSES])
@given(data=st.data())
def test_decoding_the_encoding_gives_the_event_back(cls: type[AgentEvent], data: st.DataObject) -> None:
    event = data.draw(events_of(cls))
    assert AgentEvent.from_json(event.to_json()) == event
    assert cls.from_dict(event.to_dict()) == event


@given(confirm_results())
def test_confirm_results_round_trip(result: ConfirmResult) -> None:
    assert ConfirmResult.from_json(result.to_json()) == result


def decode_or_refuse(document: Any) -> None:
    """Decoding either works (and then re-encodes to an equal event) or raises DecodeError/RoleContentError."""
    try:
        event = AgentEvent.from_dict(document)
    except (DecodeError, RoleContentError):
        return
    assert AgentEvent.from_dict(event.to_dict()) == event


@given(json_values())
def test_arbitrary_json_raises_only_decode_errors(document: Any) -> None:
    decode_or_refuse(document)


VECTOR_KEYS = sorted({key for case in VECTORS for key in case["json"]})
VECTOR_TYPES = sorted({case["json"]["type"] for case in VECTORS if "type" in case["json"]})


@given(st.dictionaries(st.sampled_from(VECTOR_KEYS), json_values(), max_size=6), st.sampled_from(VECTOR_TYPES))
def test_documents_with_known_keys_and_random_values_raise_only_decode_errors(
    document: dict[str, Any], type_name: str
) -> None:
    decode_or_refuse({**document, "type": type_name})


def _mutate(document: Any, data: st.DataObject) -> Any:
    """Replace, delete or retype one value somewhere inside ``document`` (a deep copy)."""
    document = copy.deepcopy(document)
    holder = document
    while True:
        keys = list(holder) if isinstance(holder, dict) else list(range(len(holder)))
        if not keys:
            return document
        key = data.draw(st.sampled_from(keys))
        child = holder[key]
        if isinstance(child, (dict, list)) and child and data.draw(st.booleans()):
            holder = child
            continue
        action = data.draw(st.sampled_from(["replace", "delete", "null", "stringify"]))
        if action == "delete":
            del holder[key]
        elif action == "null":
            holder[key] = None
        elif action == "stringify":
            holder[key] = json.dumps(child)
        else:
            holder[key] = data.draw(json_values(max_leaves=4))
        return document


@given(st.sampled_from([case for case in VECTORS if case["kind"] == "AgentEvent"]), st.data())
def test_mutated_java_vectors_raise_only_decode_errors(case: dict[str, Any], data: st.DataObject) -> None:
    mutated = case["json"]
    for _ in range(data.draw(st.integers(1, 3))):
        mutated = _mutate(mutated, data)
    decode_or_refuse(mutated)

