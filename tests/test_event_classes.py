"""The event classes: construction, Java defaults, immutability, copies, AgentEventType."""

from __future__ import annotations

import copy
import pickle
import re
from typing import Any

import attrs
import pytest
from event_strategies import events
from hypothesis import given, settings
from read_only import assert_read_only

import agentscope_py
from agentscope_py import (
    ArgumentTypeError,
    ArgumentValueError,
    ChatUsage,
    DataBlock,
    GenerateReason,
    TextBlock,
    ToolResultBlock,
    ToolResultState,
    ToolUseBlock,
    URLSource,
)
from agentscope_py import event as ev
from agentscope_py._fields import unchecked_init
from agentscope_py.event import (
    AgentEvent,
    AgentEventType,
    AgentStartEvent,
    AllToolsDeniedEvent,
    ConfirmResult,
    CustomEvent,
    ExceedMaxItersEvent,
    ModelCallEndEvent,
    PermissionBehavior,
    PermissionRule,
    RequestStopEvent,
    RequireUserConfirmEvent,
    TextBlockDeltaEvent,
    ToolCallStartEvent,
    ToolResultDataDeltaEvent,
    ToolResultEndEvent,
    ToolResultTextDeltaEvent,
    UserConfirmResultEvent,
)

HEX32 = re.compile(r"[0-9a-f]{32}")
ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")

JAVA_ORDER = (
    "AGENT_START AGENT_END AGENT_RESULT MODEL_CALL_START MODEL_CALL_END "
    "TEXT_BLOCK_START TEXT_BLOCK_DELTA TEXT_BLOCK_END THINKING_BLOCK_START THINKING_BLOCK_DELTA "
    "THINKING_BLOCK_END DATA_BLOCK_START DATA_BLOCK_DELTA DATA_BLOCK_END TOOL_CALL_START "
    "TOOL_CALL_DELTA TOOL_CALL_END TOOL_RESULT_START TOOL_RESULT_TEXT_DELTA TOOL_RESULT_DATA_DELTA "
    "TOOL_RESULT_END EXCEED_MAX_ITERS REQUIRE_USER_CONFIRM REQUIRE_EXTERNAL_EXECUTION "
    "USER_CONFIRM_RESULT EXTERNAL_EXECUTION_RESULT REQUEST_STOP SUBAGENT_EXPOSED HINT_BLOCK "
    "ALL_TOOLS_DENIED CUSTOM"
).split()

EVENT_CLASSES: list[type[AgentEvent]] = [
    cls for cls in vars(ev).values() if isinstance(cls, type) and issubclass(cls, AgentEvent) and cls is not AgentEvent
]


def test_event_type_has_the_31_java_members_in_order() -> None:
    assert [member.name for member in AgentEventType] == JAVA_ORDER
    assert all(member.value == member.name for member in AgentEventType)


@pytest.mark.parametrize(
    ("alias", "member"),
    [
        ("RUN_STARTED", "AGENT_START"),
        ("REPLY_START", "AGENT_START"),
        ("RUN_FINISHED", "AGENT_END"),
        ("REPLY_END", "AGENT_END"),
        ("MODEL_CALL_STARTED", "MODEL_CALL_START"),
        ("MODEL_CALL_ENDED", "MODEL_CALL_END"),
        ("BINARY_BLOCK_START", "DATA_BLOCK_START"),
        ("BINARY_BLOCK_DELTA", "DATA_BLOCK_DELTA"),
        ("BINARY_BLOCK_END", "DATA_BLOCK_END"),
        ("TOOL_RESULT_BINARY_DELTA", "TOOL_RESULT_DATA_DELTA"),
        ("THREAD_EXPOSED", "SUBAGENT_EXPOSED"),
    ],
)
def test_from_value_accepts_the_legacy_aliases(alias: str, member: str) -> None:
    assert AgentEventType.from_value(alias) is AgentEventType[member]


def test_from_value_accepts_every_canonical_value() -> None:
    for member in AgentEventType:
        assert AgentEventType.from_value(member.value) is member
        assert AgentEventType.from_value(member) is member  # a member is its own value, as AgentEventType(member) has it


@pytest.mark.parametrize("bad", ["agent_start", "", "NOPE", None, 3])
def test_from_value_rejects_anything_else_naming_the_value(bad: Any) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(bad))) as info:
        AgentEventType.from_value(bad)
    assert isinstance(info.value, ArgumentValueError)


def test_there_is_one_concrete_class_per_type_exported_everywhere() -> None:
    assert len(EVENT_CLASSES) == 31
    assert {cls.type for cls in EVENT_CLASSES} == set(AgentEventType)
    for cls in EVENT_CLASSES:
        assert cls.__name__ in ev.__all__
        assert getattr(agentscope_py, cls.__name__) is cls
        assert cls.__name__ in agentscope_py.__all__
    for name in ("AgentEvent", "AgentEventType", "ConfirmResult", "PermissionRule", "PermissionBehavior"):
        assert getattr(agentscope_py, name) is getattr(ev, name)


def test_generated_id_and_time_and_keyword_only_common_fields() -> None:
    event = TextBlockDeltaEvent("r1", "text", "Hel")
    assert (event.reply_id, event.block_id, event.delta) == ("r1", "text", "Hel")
    assert event.type is AgentEventType.TEXT_BLOCK_DELTA
    assert event.id is not None and HEX32.fullmatch(event.id)
    assert event.created_at is not None and ISO_UTC.fullmatch(event.created_at)
    assert event.source is None and event.metadata is None
    assert TextBlockDeltaEvent("r1", "text", "Hel").id != event.id
    given = TextBlockDeltaEvent("r1", "text", "x", id="e1", created_at="2025-01-01T00:00:00Z", source="main/a")
    assert (given.id, given.created_at, given.source) == ("e1", "2025-01-01T00:00:00Z", "main/a")
    with pytest.raises(TypeError, match=r"takes 4 positional arguments but 5 were given"):
        TextBlockDeltaEvent("r1", "text", "x", "e1")  # type: ignore[call-arg]


@settings(max_examples=300)
@given(event=events())
def test_the_emitters_unchecked_init_builds_what_the_class_builds(event: AgentEvent) -> None:
    # The emitters build their events without the type checks of __init__ (their values are checked).
    cls = type(event)
    fields = {field.name: getattr(event, field.name) for field in attrs.fields(cls)}
    built = unchecked_init(cls)(**fields)
    assert built == event and type(built) is cls


def test_the_unchecked_init_takes_what_init_takes_defaults_and_factories_included() -> None:
    start = unchecked_init(AgentStartEvent)(None, "R", "Friday")
    assert start == AgentStartEvent(None, "R", "Friday", id=start.id, created_at=start.created_at)
    assert start.role == "assistant" and start.id is not None and HEX32.fullmatch(start.id)
    assert start.created_at is not None and ISO_UTC.fullmatch(start.created_at)
    assert unchecked_init(AgentStartEvent)(None, "R", "Friday").id != start.id
    stop = unchecked_init(RequestStopEvent)("why", None, metadata={})  # converters that do more than check still run
    assert stop.generate_reason is GenerateReason.MIDDLEWARE_STOP_REQUESTED and stop.metadata is None
    with pytest.raises(TypeError, match="positional"):
        unchecked_init(TextBlockDeltaEvent)("r", "text", "x", "an id")


def test_positional_arguments_follow_the_java_convenience_constructors() -> None:
    usage = ChatUsage(10, 5)
    assert ToolCallStartEvent("r1", "call-1", "search").tool_call_name == "search"
    end = ToolResultEndEvent("r1", "call-1", "search", ToolResultState.SUCCESS)
    assert (end.tool_call_id, end.state) == ("call-1", ToolResultState.SUCCESS)
    assert ModelCallEndEvent("r1", usage).usage is usage
    start = AgentStartEvent("sess", "r1", "Friday")
    assert (start.session_id, start.reply_id, start.name) == ("sess", "r1", "Friday")
    assert ExceedMaxItersEvent("", 10, 10).current_iter == 10


def test_java_defaults() -> None:
    assert AgentStartEvent(None, "r", "a").role == "assistant"
    assert AgentStartEvent(None, "r", "a", None).role == "assistant"
    assert AgentStartEvent(None, "r", "a", "user").role == "user"
    assert RequestStopEvent("budget").generate_reason is GenerateReason.MIDDLEWARE_STOP_REQUESTED
    assert RequestStopEvent("b", None).generate_reason is GenerateReason.MIDDLEWARE_STOP_REQUESTED
    assert RequestStopEvent("b", GenerateReason.INTERRUPTED).generate_reason is GenerateReason.INTERRUPTED
    assert RequireUserConfirmEvent("r", None).tool_calls == ()
    assert AllToolsDeniedEvent(None).denied_tool_calls == ()
    assert UserConfirmResultEvent("r", None).confirm_results == ()
    assert CustomEvent("ping").value == {}
    assert CustomEvent("ping", None).value == {}
    assert ModelCallEndEvent("r").usage is None


def test_lists_are_stored_as_tuples_and_mappings_are_read_only_copies() -> None:
    calls = [ToolUseBlock("c1", "search")]
    event = RequireUserConfirmEvent("r", calls)
    calls.append(ToolUseBlock("c2", "x"))
    assert event.tool_calls == (ToolUseBlock("c1", "search"),)
    value = {"pct": 50, "nested": {"x": [1]}}
    custom = CustomEvent("progress", value)
    value["pct"] = 0
    assert custom.value == {"pct": 50, "nested": {"x": [1]}}
    assert_read_only(custom.value)
    assert_read_only(TextBlockDeltaEvent("r", "text", "x", metadata={"tags": ["a", {"b": [1]}]}).metadata)
    decoded = AgentEvent.from_json(custom.to_json())
    assert isinstance(decoded, CustomEvent) and decoded == custom
    assert_read_only(decoded.value)
    assert hash(decoded) == hash(custom)


def test_events_are_frozen_value_equal_and_hashable() -> None:
    event = TextBlockDeltaEvent("r1", "text", "Hel", id="e1", created_at="t")
    twin = TextBlockDeltaEvent("r1", "text", "Hel", id="e1", created_at="t")
    assert event == twin and hash(event) == hash(twin)
    assert event != TextBlockDeltaEvent("r1", "text", "Hel!", id="e1", created_at="t")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        event.delta = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        event.type = AgentEventType.CUSTOM  # type: ignore[misc]
    assert not hasattr(event, "__dict__")  # slotted


def test_events_pickle_and_copy() -> None:
    event = RequireUserConfirmEvent("r", [ToolUseBlock("c", "n", {"a": [1]})], metadata={"k": {"x": 1}})
    assert pickle.loads(pickle.dumps(event)) == event
    assert copy.deepcopy(event) == event and copy.copy(event) == event


def test_repr_shows_the_event_fields_first() -> None:
    text = repr(TextBlockDeltaEvent("r1", "text", "Hel", id="e1", created_at="t"))
    assert text == (
        "TextBlockDeltaEvent(reply_id='r1', block_id='text', delta='Hel', id='e1', "
        "created_at='t', source=None, metadata=None)"
    )


def test_a_repr_shows_the_start_of_long_strings_and_their_length() -> None:
    # Streaming an image sends it whole in a custom event: printing that event printed megabytes.
    image = "QUJD" * 250_000
    message = agentscope_py.AssistantMessage(agentscope_py.ImageBlock(agentscope_py.Base64Source("image/png", image)))
    [custom] = [event for event in ev.events_from_message(message) if isinstance(event, CustomEvent)]
    text = repr(custom)
    assert len(text) < 500 and "'QUJDQUJD" in text and "…(1,000,000 characters)" in text
    # Long lists and deep values too: the first items and the count, and nothing past twenty levels.
    deep: Any = "x" * 1_000_000
    for _ in range(25):
        deep = [deep]
    wide = CustomEvent("progress", {"items": list(range(100_000)), "deep": deep}, id="e", created_at="t")
    assert repr(wide) == (
        "CustomEvent(name='progress', value={'items': [" + ", ".join(map(str, range(20))) + ", …(100,000 items)], "
        "'deep': " + "[" * 19 + "[…(1 item)]" + "]" * 19 + "}, id='e', created_at='t', source=None, metadata=None)"
    )
    delta = ev.DataBlockDeltaEvent("r", "d", image, id="e", created_at="t", metadata={"note": "x" * 200})
    assert repr(delta) == (
        f"DataBlockDeltaEvent(reply_id='r', block_id='d', delta={image[:48]!r}…(1,000,000 characters), "
        f"id='e', created_at='t', source=None, metadata={{'note': {'x' * 48!r}…(200 characters)}})"
    )


def test_empty_metadata_is_stored_as_none() -> None:
    assert TextBlockDeltaEvent("r", "b", "d", metadata={}).metadata is None


def test_copy_helpers_return_copies_keeping_id_and_time() -> None:
    event = TextBlockDeltaEvent("r1", "text", "Hel")
    tagged = event.with_source("main/researcher")
    assert tagged.source == "main/researcher" and event.source is None
    assert (tagged.id, tagged.created_at, type(tagged)) == (event.id, event.created_at, TextBlockDeltaEvent)
    assert event.with_metadata({"taskId": "t1"}).metadata == {"taskId": "t1"}
    assert event.with_metadata({"a": 1}).with_metadata(None).metadata is None
    chained = (
        event.with_metadata_entry("a", 1)
        .with_metadata_entry("b", 2)
        .with_metadata_entry("a", None)
        .with_metadata_entry(" ", 3)
        .with_metadata_entry(None, 4)
    )
    assert chained.metadata == {"b": 2}
    assert chained.with_metadata_entry("b", None).metadata is None
    assert event.with_metadata_entry("", 1) is event
    with pytest.raises(ArgumentTypeError, match=r"^TextBlockDeltaEvent\.with_metadata_entry key must be a str or None, got 1 \(int\)$"):
        event.with_metadata_entry(1, "v")  # type: ignore[arg-type]


@pytest.mark.parametrize("key", ["\xa0", "\u2007", "\u202f", "\x85"])
def test_a_key_of_no_break_spaces_is_not_blank_as_java_reads_it(key: str) -> None:
    # Java's isBlank skips Character.isWhitespace, which the no-break spaces and U+0085 are not.
    event = TextBlockDeltaEvent("r", "text", "x", id="e1", created_at="t")
    assert event.with_metadata_entry(key, 1).metadata == {key: 1}
    assert event.with_metadata_entry("\u3000\t\x1f", 1) is event


def test_tool_result_events_take_metadata_by_keyword() -> None:
    delta = ToolResultTextDeltaEvent("r1", "call-1", "search", "res", metadata={"k": "v"})
    assert delta.metadata == {"k": "v"}
    block = DataBlock(URLSource("https://example.com/x.png"))
    assert ToolResultDataDeltaEvent("r1", "call-1", "render", block).data is block


def test_bad_arguments_name_the_class_and_field() -> None:
    with pytest.raises(ArgumentTypeError, match=r"TextBlockDeltaEvent\.block_id must be a str or None"):
        TextBlockDeltaEvent("r1", 2, "x")  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"ExceedMaxItersEvent\.max_iters must be an int"):
        ExceedMaxItersEvent("r", "10", 1)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"tool_calls\[0\] must be a ToolUseBlock"):
        RequireUserConfirmEvent("r", [TextBlock("x")])  # type: ignore[list-item]
    with pytest.raises(ArgumentTypeError, match="ToolResultEndEvent.state"):
        ToolResultEndEvent("r", "c", "n", "success")  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="ModelCallEndEvent.usage"):
        ModelCallEndEvent("r", {"inputTokens": 1})  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="AgentEvent is abstract"):
        AgentEvent()


def test_permission_behavior_reads_case_insensitively() -> None:
    assert [b.value for b in PermissionBehavior] == ["allow", "deny", "ask", "passthrough"]
    assert PermissionBehavior("ALLOW") is PermissionBehavior.ALLOW
    assert PermissionBehavior("PassThrough") is PermissionBehavior.PASSTHROUGH
    with pytest.raises(ValueError, match=r"^'maybe' is not a value of PermissionBehavior; the values are 'allow', 'deny', 'ask', 'passthrough'$"):
        PermissionBehavior("maybe")
    # ASCII letters only, as the decoder reads them: a Kelvin sign lowers to "k" but is not one.
    with pytest.raises(ValueError, match="it holds a letter that is not ASCII: use PermissionBehavior.ASK"):
        PermissionBehavior("AS\u212a")


def test_confirm_result_and_permission_rule() -> None:
    call = ToolUseBlock("call-1", "bash", {"cmd": "ls"})
    rule = PermissionRule("bash", "ls *", PermissionBehavior.ALLOW, "user")
    assert ConfirmResult(True, call).rules is None
    result = ConfirmResult(False, call, [rule])
    assert result.rules == (rule,) and not result.confirmed
    assert ConfirmResult(True, call, []).rules == ()
    with pytest.raises(ArgumentTypeError, match="ConfirmResult.confirmed"):
        ConfirmResult(1, call)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="PermissionRule.behavior"):
        PermissionRule("bash", None, "allow", "user")  # type: ignore[arg-type]
    results = UserConfirmResultEvent("r", [result])
    assert results.confirm_results == (result,)


def test_external_execution_result_holds_tool_results() -> None:
    results = [ToolResultBlock("call-1", "search", TextBlock("hits"), state=ToolResultState.SUCCESS)]
    event = ev.ExternalExecutionResultEvent("r1", results)
    assert event.tool_results == tuple(results)


def test_every_event_s_init_has_type_hints_a_tool_can_read() -> None:
    # Dependency-injection and CLI tools read __init__'s annotations; the metadata converter's
    # used to name Mapping, which the events' own modules do not import.
    import typing

    public = [getattr(agentscope_py, name) for name in agentscope_py.__all__]
    events = [cls for cls in public if isinstance(cls, type) and issubclass(cls, AgentEvent)]
    assert len(events) > 31
    for cls in events:
        assert "metadata" in typing.get_type_hints(cls.__init__), cls.__name__
